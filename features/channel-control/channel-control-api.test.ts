// Channel control over HTTP (issue 44), a real gateway on loopback with its SQLite store: the page's data shows each
// channel's YAML weight beside the operator's override and what is in force; an unknown channel is a 404, a weight
// out of range a 400, an account's user a 403 on every route; a disabled channel gets no request (even as a last
// resort); clearing returns to YAML; the override is read again after a restart; the health figures match a known
// set of usage records.

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { pino } from 'pino';
import type { UsageRecord } from '../../core/store/store.js';
import { consoleAccountUser, consoleSignIn, type ConsoleSession } from '../../test/helpers/console-session.js';
import { configWith, startGatewayUnderTest, TEST_KEY, type GatewayUnderTest } from '../../test/helpers/gateway-under-test.js';

const ADMIN = 'test-admin-token-0123456789';

interface Answer {
  readonly status: number;
  readonly json: Record<string, unknown>;
  readonly text: string;
}
type Row = {
  name: string;
  yaml: { weight: number };
  override: null | { disabled: boolean; weight: number | null; updated_by: string };
  effective: { enabled: boolean; weight: number };
  health: Record<'m5' | 'm60', Record<string, number | null>>;
  health_state: { state: string; until: string | null; failures: number; window: number };
};
type Orphan = { name: string; disabled: boolean; weight: number | null; updated_by: string };

function record(ts: number, status: number, latencyMs: number, ttftMs: number | null, i: number): UsageRecord {
  return {
    requestId: `req-health-${i}`, ts, keyId: 'k', keyName: 'k', group: 'pro', route: '/v1/chat/completions', model: 'demo-1', upstreamModel: 'demo-1',
    channel: 'alpha', status, errorCode: null, stream: ttftMs !== null, promptTokens: 1, completionTokens: 1, cachedTokens: 0, cacheWriteTokens: 0,
    reasoningTokens: 0, latencyMs, ttftMs, aborted: false,
  };
}

describe('channel control over HTTP', () => {
  let gw: GatewayUnderTest;
  let op: ConsoleSession;
  let ada: ConsoleSession;
  const logLines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logLines.push(chunk.toString());
      done();
    },
  });
  // Outside the gateway's own folder (removed when it stops): the restart opens the same database.
  const storeDir = mkdtempSync(join(tmpdir(), 'gw-channel-control-'));
  const yaml = configWith(
    '  - { name: alpha, type: mock, models: ["demo-*"], weight: 1 }\n  - { name: beta, type: mock, models: ["demo-*"], weight: 2 }\n',
    'accounts: [{ name: acme }]\n',
  ).replace('sqlite:./gateway.db', `sqlite:${join(storeDir, 'gateway.db')}`);

  async function call(who: ConsoleSession, method: string, path: string, body?: unknown): Promise<Answer> {
    const headers = { 'content-type': 'application/json', cookie: who.cookie, 'x-csrf-token': who.csrf };
    const res = await fetch(`${gw.url}/console/api${path}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    const text = await res.text();
    return { status: res.status, text, json: text.startsWith('{') ? (JSON.parse(text) as Record<string, unknown>) : {} };
  }
  const rows = async (): Promise<Row[]> => (await call(op, 'GET', '/channel-control')).json['data'] as Row[];
  const row = async (name: string): Promise<Row> => (await rows()).find((r) => r.name === name) as Row;
  async function servedBy(n: number, conversation?: string): Promise<Set<string>> {
    const ids = new Set<string>();
    for (let i = 0; i < n; i++) {
      const res = await fetch(`${gw.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'demo-1', messages: [{ role: 'user', content: `hi ${i}` }], ...(conversation === undefined ? {} : { prompt_cache_key: conversation }) }),
      });
      assert.equal(res.status, 200, await res.text());
      ids.add(res.headers.get('x-request-id') ?? '');
    }
    const records = (await gw.usage()).filter((r) => ids.has(r.requestId));
    assert.equal(records.length, n);
    return new Set(records.map((r) => r.channel ?? ''));
  }

  before(async () => {
    gw = await startGatewayUnderTest(yaml, { logger: pino({ level: 'info' }, sink) });
    op = await consoleSignIn(gw.url, { admin_token: ADMIN });
    ada = await consoleAccountUser(gw.url, op, 'acme', 'ada', 'a long enough password');
  });
  after(async () => {
    await gw?.stop();
    rmSync(storeDir, { recursive: true, force: true });
  });

  it('shows the YAML weight beside the override and what is in force', async () => {
    assert.deepEqual((await row('beta')).override, null);
    assert.deepEqual((await row('beta')).effective, { enabled: true, weight: 2 });
    const saved = await call(op, 'PATCH', '/channel-control/beta', { disabled: false, weight: 5 });
    assert.equal(saved.status, 200, saved.text);
    const beta = await row('beta');
    assert.deepEqual([beta.yaml.weight, beta.override?.weight, beta.effective.weight, beta.effective.enabled], [2, 5, 5, true]);
    assert.ok((beta.override?.updated_by ?? '') !== '', 'who changed it is kept');
  });

  it('shows each channel\'s rotation: in, then out until its probe, then probing', async () => {
    assert.deepEqual((await row('alpha')).health_state, { state: 'in', until: null, failures: 0, window: 10 });
    const rotation = gw.gateway.runtime.current.services.router.rotation;
    const strict = { errors: 1, window: 1, probeAfterMs: 60_000, probeMaxMs: 60_000 };
    rotation.record('alpha', strict, 'failed', false);
    const out = (await row('alpha')).health_state;
    assert.equal(out.state, 'out');
    const left = Date.parse(out.until ?? '') - Date.now();
    assert.ok(left > 50_000 && left <= 60_000, `probe due in about a minute, not ${left} ms`);
    // A channel out gets no request: beta serves all.
    assert.deepEqual([...(await servedBy(6))], ['beta']);
    rotation.taken('alpha', 0);
    assert.equal((await row('alpha')).health_state.state, 'in');
  });

  it('a disabled channel gets no request, not even as a last resort; clearing returns to YAML', async () => {
    assert.equal((await call(op, 'PATCH', '/channel-control/alpha', { disabled: true, weight: null })).status, 200);
    assert.deepEqual([...(await servedBy(12))], ['beta']);
    // With beta disabled too, nothing serves the model: the operator's disable is no cool-down to fall back on.
    assert.equal((await call(op, 'PATCH', '/channel-control/beta', { disabled: true, weight: null })).status, 200);
    const none = await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'demo-1', messages: [{ role: 'user', content: 'anyone?' }] }),
    });
    // The model exists and is out of service (503 model_unavailable), not unknown (404).
    const refusal = (await none.json()) as { error: { code: string; message: string } };
    assert.equal(none.status, 503);
    assert.equal(refusal.error.code, 'model_unavailable');
    assert.match(refusal.error.message, /out of service/);
    assert.equal((await call(op, 'DELETE', '/channel-control/beta')).status, 200);
    assert.equal((await call(op, 'DELETE', '/channel-control/alpha')).status, 200);
    const alpha = await row('alpha');
    assert.deepEqual([alpha.override, alpha.effective], [null, { enabled: true, weight: 1 }]);
    assert.deepEqual([...(await servedBy(30))].sort(), ['alpha', 'beta']);
  });

  it('a conversation bound to a channel the operator disables moves to another, as from a failed one', async () => {
    const bound = [...(await servedBy(6, 'conv-bound'))];
    assert.equal(bound.length, 1, 'the conversation keeps its channel');
    const [from] = bound as [string];
    assert.equal((await call(op, 'PATCH', `/channel-control/${from}`, { disabled: true, weight: null })).status, 200);
    assert.deepEqual([...(await servedBy(4, 'conv-bound'))], [from === 'alpha' ? 'beta' : 'alpha']);
    assert.equal((await call(op, 'DELETE', `/channel-control/${from}`)).status, 200);
  });

  it('every change is logged with who made it and counted', async () => {
    const changes = logLines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => typeof l['msg'] === 'string' && (l['msg'] as string).startsWith('channel override:'));
    assert.ok(changes.length >= 6, `${changes.length} change lines`);
    const first = changes[0] as Record<string, unknown>;
    assert.deepEqual([first['channel'], first['action'], first['weight'], first['yaml_weight']], ['beta', 'weight', 5, 2]);
    assert.ok(typeof first['by'] === 'string' && first['by'] !== '');
    const metrics = await (await fetch(`${gw.url}/metrics`)).text();
    for (const action of ['disable', 'weight', 'clear']) assert.match(metrics, new RegExp(`gateway_channel_override_changes_total\\{action="${action}"\\} [1-9]`), action);
  });

  it('refuses an unknown channel (404), a weight out of range (400) and an account user (403)', async () => {
    assert.equal((await call(op, 'PATCH', '/channel-control/nope', { disabled: true, weight: null })).status, 404);
    assert.equal((await call(op, 'DELETE', '/channel-control/nope')).status, 404);
    for (const weight of [0, -1, 1001, 'heavy']) assert.equal((await call(op, 'PATCH', '/channel-control/alpha', { disabled: false, weight })).status, 400, `weight ${String(weight)}`);
    assert.equal((await call(op, 'PATCH', '/channel-control/alpha', { disabled: false })).status, 400, 'weight is required (null: YAML)');
    assert.equal((await call(ada, 'GET', '/channel-control')).status, 403);
    assert.equal((await call(ada, 'PATCH', '/channel-control/alpha', { disabled: true, weight: null })).status, 403);
    assert.equal((await call(ada, 'DELETE', '/channel-control/alpha')).status, 403);
    assert.equal((await row('alpha')).override, null, 'nothing refused was stored');
  });

  it('the health figures match a known set of records', async () => {
    const now = Date.now();
    const recent = Array.from({ length: 10 }, (_, i) => record(now - 60_000, i < 2 ? 500 : i === 2 ? 400 : 200, (i + 1) * 10, i + 1, i));
    const older = Array.from({ length: 10 }, (_, i) => record(now - 30 * 60_000, 200, 200 + i * 100, null, 10 + i));
    const outside = record(now - 2 * 3_600_000, 500, 99_999, 99_999, 99);
    // alpha served requests in the test before: the figures are read on a fresh name's records only.
    const fresh = (r: UsageRecord): UsageRecord => Object.assign({}, r, { channel: 'gamma' });
    await gw.gateway.runtime.deps.store.insertUsage([...recent, ...older, outside].map(fresh));
    await gw.writeConfig(yaml.replace('  - { name: beta', '  - { name: gamma, type: mock, models: ["other-*"] }\n  - { name: beta'));
    assert.equal(await gw.gateway.reload(), true);
    const gamma = await row('gamma');
    assert.deepEqual(gamma.health.m5, { requests: 10, errors: 2, error_rate: 0.2, latency_p50_ms: 50, latency_p99_ms: 100, ttfb_p50_ms: 5, ttfb_p99_ms: 10, percentile_sample: 10, percentiles_sampled: false });
    assert.deepEqual(gamma.health.m60, { requests: 20, errors: 2, error_rate: 0.1, latency_p50_ms: 100, latency_p99_ms: 1100, ttfb_p50_ms: 5, ttfb_p99_ms: 10, percentile_sample: 20, percentiles_sampled: false });
  });

  it('a change\'s answer carries no health (the list does); a cleared override says whether there was one', async () => {
    const saved = await call(op, 'PATCH', '/channel-control/gamma', { disabled: false, weight: 3 });
    assert.equal(saved.status, 200, saved.text);
    assert.deepEqual([saved.json['name'], saved.json['health']], ['gamma', null]);
    assert.deepEqual((await call(op, 'DELETE', '/channel-control/gamma')).json, { object: 'channel_override', name: 'gamma', cleared: true, configured: true });
    assert.deepEqual((await call(op, 'DELETE', '/channel-control/gamma')).json, { object: 'channel_override', name: 'gamma', cleared: false, configured: true });
  });

  it('an override of a channel taken out of the config is listed apart and can be cleared, then is gone', async () => {
    assert.equal((await call(op, 'PATCH', '/channel-control/gamma', { disabled: true, weight: 4 })).status, 200);
    await gw.writeConfig(yaml);
    assert.equal(await gw.gateway.reload(), true);
    const listed = (await call(op, 'GET', '/channel-control')).json;
    assert.equal((listed['data'] as Row[]).some((r) => r.name === 'gamma'), false);
    assert.deepEqual(
      (listed['orphans'] as Orphan[]).map((o) => [o.name, o.disabled, o.weight]),
      [['gamma', true, 4]],
    );
    assert.equal((await call(op, 'PATCH', '/channel-control/gamma', { disabled: false, weight: null })).status, 404, 'no new override of an unconfigured name');
    assert.deepEqual((await call(op, 'DELETE', '/channel-control/gamma')).json, { object: 'channel_override', name: 'gamma', cleared: true, configured: false });
    assert.deepEqual((await call(op, 'GET', '/channel-control')).json['orphans'], []);
    assert.equal((await call(op, 'DELETE', '/channel-control/gamma')).status, 404, 'neither configured nor stored');
  });

  it('an override is read again at start: a restarted gateway on the same store routes as the operator left it', async () => {
    assert.equal((await call(op, 'PATCH', '/channel-control/alpha', { disabled: true, weight: null })).status, 200);
    await gw.stop();
    gw = await startGatewayUnderTest(yaml);
    op = await consoleSignIn(gw.url, { admin_token: ADMIN });
    assert.equal((await row('alpha')).effective.enabled, false);
    assert.deepEqual([...(await servedBy(10))], ['beta']);
  });
});
