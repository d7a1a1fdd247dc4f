// The console's usage log, CSV, ledger and the operator's views over HTTP (issue 25): filters, totals of the whole
// filter, keyset pages, a CSV equal to the filtered records; a user reading another account's usage, ledger or
// key by id gets nothing of it; the operator's routes refuse a user (403); accounts created, credited,
// disabled (its keys refused) and enabled again; channels cooling down after their upstream fails, with their
// error rate; instances; the running config with its secrets redacted, and a reload.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { parse } from 'yaml';
import { postChat } from '../helpers/chat-requests.js';
import { consoleAccountUser, consoleSignIn, creditAccount, type ConsoleSession } from '../helpers/console-session.js';
import { FakeOpenAI, defaultReply } from '../helpers/fake-openai.js';
import { startGatewayUnderTest, type GatewayUnderTest } from '../helpers/gateway-under-test.js';

const ADMIN = 'console-usage-admin-token-0123456789';
const UPSTREAM_SECRET = 'sk-upstream-secret-value-4242';

describe('console usage, ledger and operator views', () => {
  const upstream = new FakeOpenAI('up');
  const flaky = new FakeOpenAI('flaky');
  let gw: GatewayUnderTest;
  const sessions: Record<string, ConsoleSession> = {};
  const keys: Record<string, { id: string; key: string }> = {};
  const keyOf = (user: string): string => keys[user]?.key ?? '';

  async function call(who: string, method: string, path: string, body?: unknown): Promise<{ status: number; json: Record<string, unknown>; headers: Headers }> {
    const s = sessions[who] as ConsoleSession;
    const res = await fetch(`${gw.url}${path}`, {
      method,
      headers: { cookie: s.cookie, 'x-csrf-token': s.csrf, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, json: (await res.json()) as Record<string, unknown>, headers: res.headers };
  }

  const config = (extra = ''): string => `server: { port: 0, host: 127.0.0.1, admin_token: ${ADMIN} }
store: { url: "sqlite:./gateway.db" }
pricing:
  models:
    "gpt-*": { input: 2.50, output: 10.00 }
groups:
  pro: { models: ["*"] }
accounts: [{ name: acme, groups: [pro] }, { name: globex, groups: [pro] }]
channels:
  - { name: up, type: openai, base_url: "${upstream.url}", keys: [${UPSTREAM_SECRET}], models: ["gpt-4o"], models_refresh_ms: 0 }
  - { name: flaky, type: openai, base_url: "${flaky.url}", keys: [sk-flaky-secret-0000000], models: ["gpt-flaky"], models_refresh_ms: 0, cooldown_ms: 60000 }
${extra}`;

  before(async () => {
    await upstream.start();
    await flaky.start();
    flaky.reply = () => ({ kind: 'status', status: 503 });
    gw = await startGatewayUnderTest(config());
    sessions['operator'] = await consoleSignIn(gw.url, { admin_token: ADMIN });
    for (const [user, account] of [['ada', 'acme'], ['gus', 'globex']] as const) {
      sessions[user] = await consoleAccountUser(gw.url, sessions['operator'] as ConsoleSession, account, user, `${user} has a password`);
      await creditAccount(gw.url, ADMIN, account, '5.00');
      const made = await call(user, 'POST', '/console/api/keys', { name: `${user}-key`, group: 'pro' });
      keys[user] = { id: String(made.json['id']), key: String(made.json['key']) };
    }
    // ada: 7 requests (one of them to the failing channel), gus: 2.
    for (let i = 0; i < 6; i++) assert.equal((await postChat(gw.url, { model: 'gpt-4o', messages: [{ role: 'user', content: `a${i}` }] }, { key: keyOf('ada') })).status, 200);
    assert.equal((await postChat(gw.url, { model: 'gpt-flaky', messages: [{ role: 'user', content: 'fails' }] }, { key: keyOf('ada') })).status, 503);
    for (let i = 0; i < 2; i++) assert.equal((await postChat(gw.url, { model: 'gpt-4o', messages: [{ role: 'user', content: `g${i}` }] }, { key: keyOf('gus') })).status, 200);
    await gw.usage();
  });
  after(async () => {
    await gw.stop();
    await upstream.close();
    await flaky.close();
  });

  type Row = { request_id: string; key_name: string; status: number; cost: string | null; input_tokens: number; model: string };

  it('a user\'s log holds their account\'s records, filtered, with the totals of the whole filter, by keyset pages', async () => {
    const all = await call('ada', 'GET', '/console/api/usage?account=globex');
    const rows = all.json['data'] as Row[];
    assert.equal(rows.length, 7, 'their own account whatever they ask');
    assert.ok(rows.every((r) => r.key_name === 'ada-key'));
    const totals = all.json['totals'] as { requests: number; errors: number; cost: string; input_tokens: number };
    assert.deepEqual([totals.requests, totals.errors], [7, 1]);
    assert.equal(totals.input_tokens, rows.reduce((sum, r) => sum + r.input_tokens, 0));
    const errors = await call('ada', 'GET', '/console/api/usage?status=error');
    assert.deepEqual((errors.json['data'] as Row[]).map((r) => [r.model, r.status]), [['gpt-flaky', 503]]);
    const byModel = await call('ada', 'GET', '/console/api/usage?model=gpt-4o&limit=4');
    assert.equal((byModel.json['data'] as Row[]).length, 4);
    assert.equal((byModel.json['totals'] as { requests: number }).requests, 6, 'the totals cover every page');
    const next = await call('ada', 'GET', `/console/api/usage?model=gpt-4o&limit=4&cursor=${String(byModel.json['next_cursor'])}`);
    const paged = [...(byModel.json['data'] as Row[]), ...(next.json['data'] as Row[])].map((r) => r.request_id);
    assert.equal(new Set(paged).size, 6);
    assert.equal(next.json['next_cursor'], null);
    const one = await call('ada', 'GET', `/console/api/usage?request_id=${paged[2] ?? ''}`);
    assert.deepEqual((one.json['data'] as Row[]).map((r) => r.request_id), [paged[2]]);
    for (const bad of ['status=maybe', 'limit=0', 'limit=201', 'cursor=abc', 'from=yesterday', 'from=2026-01-02&to=2026-01-01']) {
      const refused = await call('ada', 'GET', `/console/api/usage?${bad}`);
      assert.equal(refused.status, 400, bad);
    }
  });

  it('the CSV holds exactly the filtered records, streamed with a header row', async () => {
    const res = await fetch(`${gw.url}/console/api/usage.csv?model=gpt-4o`, { headers: { cookie: sessions['ada']?.cookie ?? '' } });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/csv/);
    assert.match(res.headers.get('content-disposition') ?? '', /^attachment; filename="usage-\d{4}-\d\d-\d\d\.csv"$/);
    const lines = (await res.text()).trimEnd().split('\r\n');
    const header = (lines[0] ?? '').split(',');
    assert.equal(header[1], 'request_id');
    const page = (await call('ada', 'GET', '/console/api/usage?model=gpt-4o&limit=200')).json['data'] as Record<string, unknown>[];
    assert.equal(lines.length - 1, page.length);
    const csvRows = lines.slice(1).map((line) => line.split(','));
    for (const [i, cells] of csvRows.entries()) {
      const record = page[i] as Record<string, unknown>;
      for (const [c, name] of header.entries()) assert.equal(cells[c], record[name] === null ? '' : String(record[name]), `${name} of row ${i}`);
    }
  });

  it('a user reaching another account\'s usage, key or ledger by id gets nothing of it', async () => {
    const adaRecord = ((await call('ada', 'GET', '/console/api/usage')).json['data'] as Row[])[0] as Row;
    const byRequest = await call('gus', 'GET', `/console/api/usage?request_id=${adaRecord.request_id}`);
    assert.deepEqual([byRequest.status, (byRequest.json['data'] as Row[]).length], [200, 0]);
    const byKey = await call('gus', 'GET', `/console/api/usage?key_id=${keys['ada']?.id ?? ''}`);
    assert.deepEqual([(byKey.json['data'] as Row[]).length, (byKey.json['totals'] as { requests: number }).requests], [0, 0]);
    const csv = await fetch(`${gw.url}/console/api/usage.csv?key_id=${keys['ada']?.id ?? ''}`, { headers: { cookie: sessions['gus']?.cookie ?? '' } });
    assert.equal((await csv.text()).trimEnd().split('\r\n').length, 1, 'the header row only');
    const ledger = await call('gus', 'GET', '/console/api/ledger?account=acme');
    assert.equal(ledger.json['account'], 'globex');
    assert.ok((ledger.json['data'] as { account: string }[]).every((e) => e.account === 'globex'));
    const dash = await call('gus', 'GET', '/console/api/dashboard?account=acme');
    assert.equal(dash.json['account'], 'globex');
    for (const [method, path] of [
      ['GET', '/console/api/accounts'],
      ['POST', '/console/api/accounts'],
      ['PATCH', '/console/api/accounts/acme'],
      ['POST', '/console/api/accounts/acme/credit'],
      ['POST', '/console/api/accounts/acme/users'],
      ['GET', '/console/api/channels'],
      ['GET', '/console/api/instances'],
      ['GET', '/console/api/config'],
      ['POST', '/console/api/config/reload'],
    ] as const) {
      const res = await call('gus', method, path, method === 'GET' ? undefined : { name: 'x', amount: '1', idempotency_key: 'x', disabled: true });
      assert.equal(res.status, 403, `${method} ${path}`);
    }
    assert.equal((await call('operator', 'GET', '/console/api/accounts')).json['object'], 'list');
  });

  it('the ledger pages newest first: the credit, then the charges', async () => {
    const first = await call('ada', 'GET', '/console/api/ledger?limit=1');
    const entries = first.json['data'] as { kind: string; amount: string }[];
    assert.equal(entries.length, 1);
    const rest = await call('ada', 'GET', `/console/api/ledger?limit=200&cursor=${String(first.json['next_cursor'])}`);
    const kinds = [...entries, ...(rest.json['data'] as { kind: string }[])].map((e) => e.kind);
    assert.equal(kinds[kinds.length - 1], 'credit');
    assert.ok(kinds.slice(0, -1).every((k) => k === 'charge'), kinds.join(' '));
    assert.equal((await call('operator', 'GET', '/console/api/ledger')).status, 400, 'the operator names the account');
    assert.equal((await call('operator', 'GET', '/console/api/ledger?account=nowhere')).status, 404);
  });

  it('the operator creates and credits an account, and a disabled account\'s keys get 401 until it is enabled', async () => {
    const made = await call('operator', 'POST', '/console/api/accounts', { name: 'initech', description: 'Initech' });
    assert.deepEqual([made.status, made.json['balance'], made.json['disabled']], [201, '0', false]);
    const credit = { amount: '2.5', note: 'welcome', idempotency_key: 'initech-1' };
    assert.equal((await call('operator', 'POST', '/console/api/accounts/initech/credit', credit)).status, 201);
    const again = await call('operator', 'POST', '/console/api/accounts/initech/credit', credit);
    assert.deepEqual([again.status, (again.json['account'] as { balance: string }).balance], [200, '2.5'], 'a double submit credits once');
    const off = await call('operator', 'PATCH', '/console/api/accounts/acme', { disabled: true });
    assert.deepEqual([off.status, off.json['disabled']], [200, true]);
    const refused = await postChat(gw.url, { model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] }, { key: keyOf('ada') });
    assert.equal(refused.status, 401);
    assert.equal(((await refused.json()) as { error: { code: string } }).error.code, 'account_deactivated');
    assert.equal((await postChat(gw.url, { model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] }, { key: keyOf('gus') })).status, 200, 'other accounts are served');
    assert.equal((await call('operator', 'PATCH', '/console/api/accounts/acme', { disabled: false })).status, 200);
    assert.equal((await postChat(gw.url, { model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] }, { key: keyOf('ada') })).status, 200);
    assert.equal((await call('operator', 'PATCH', '/console/api/accounts/acme', { disabled: 'yes' })).status, 400);
    assert.equal((await call('operator', 'PATCH', '/console/api/accounts/acme', { balance: '100' })).status, 400);
    assert.equal((await call('operator', 'PATCH', '/console/api/accounts/nowhere', { disabled: true })).status, 404);
  });

  it('the operator gives a new account groups, whose user then makes keys in them; a second link resets a password', async () => {
    const made = await call('operator', 'POST', '/console/api/accounts', { name: 'hooli', groups: ['pro'] });
    assert.deepEqual([made.status, made.json['groups']], [201, ['pro']]);
    assert.equal((await call('operator', 'POST', '/console/api/accounts', { name: 'bad-groups', groups: ['nope'] })).status, 400);
    const listed = (await call('operator', 'GET', '/console/api/accounts')).json['data'] as { name: string }[];
    assert.ok(!listed.some((a) => a.name === 'bad-groups'), 'a refused create makes nothing');
    sessions['hal'] = await consoleAccountUser(gw.url, sessions['operator'] as ConsoleSession, 'hooli', 'hal', 'hal has a password');
    const session = await call('hal', 'GET', '/console/api/session');
    assert.deepEqual((session.json['groups'] as { name: string }[]).map((g) => g.name), ['pro']);
    assert.equal((await call('hal', 'POST', '/console/api/keys', { name: 'hal-key', group: 'pro' })).status, 201);
    assert.deepEqual((await call('operator', 'PATCH', '/console/api/accounts/hooli', { groups: [] })).json['groups'], []);
    assert.equal((await call('hal', 'POST', '/console/api/keys', { name: 'hal-key-2', group: 'pro' })).status, 400, 'no groups left');
    assert.equal((await call('operator', 'PATCH', '/console/api/accounts/hooli', { groups: 'pro' })).status, 400);
    // A new link for hal (same account): the new password works, the old one and hal's session no longer do.
    sessions['hal'] = await consoleAccountUser(gw.url, sessions['operator'] as ConsoleSession, 'hooli', 'hal', 'hal has a new password');
    const old = await fetch(`${gw.url}/console/api/session`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'hal', password: 'hal has a password' }) });
    assert.equal(old.status, 401);
    // The name of another account's user is not handed a link.
    assert.equal((await call('operator', 'POST', '/console/api/accounts/hooli/users', { name: 'ada' })).status, 400);
  });

  it('the operator sees the failing channel cooling down, with its error rate; the instances; the redacted config; a reload', async () => {
    const channels = (await call('operator', 'GET', '/console/api/channels')).json['data'] as {
      name: string;
      cooling: boolean;
      cooldown_left_ms: number;
      in_flight: number;
      last_hour: { requests: number; errors: number; error_rate: number };
    }[];
    const up = channels.find((c) => c.name === 'up');
    const bad = channels.find((c) => c.name === 'flaky');
    assert.deepEqual([up?.cooling, up?.in_flight, up?.last_hour.errors], [false, 0, 0]);
    assert.ok((up?.last_hour.requests ?? 0) >= 8);
    assert.equal(bad?.cooling, true);
    assert.ok((bad?.cooldown_left_ms ?? 0) > 50_000 && (bad?.cooldown_left_ms ?? 0) <= 60_000);
    assert.deepEqual([bad?.last_hour.requests, bad?.last_hour.errors, bad?.last_hour.error_rate], [1, 1, 1]);
    const attempts = (name: string): unknown => (channels.find((c) => c.name === name) as unknown as { attempts: { attempts: number; failures: number } }).attempts;
    assert.deepEqual(attempts('flaky'), { window_minutes: 60, attempts: 1, failures: 1, failure_rate: 1 });
    // A stream open on `up`: one in flight there, until it ends.
    upstream.reply = () => ({ kind: 'stream', pieces: ['a', 'b', 'c', 'd', 'e'], delayMs: 150 });
    const streaming = postChat(gw.url, { model: 'gpt-4o', stream: true, messages: [{ role: 'user', content: 'slow' }] }, { key: keyOf('gus') });
    const inFlight = async (): Promise<number> =>
      ((await call('operator', 'GET', '/console/api/channels')).json['data'] as { name: string; in_flight: number }[]).find((c) => c.name === 'up')?.in_flight ?? -1;
    let seen = 0;
    for (let i = 0; i < 40 && seen === 0; i++) {
      seen = await inFlight();
      if (seen === 0) await new Promise((r) => setTimeout(r, 25));
    }
    assert.equal(seen, 1, 'the open stream is in flight');
    await (await streaming).text();
    upstream.reply = defaultReply;
    // The request's finish runs as its last byte goes out: the client may read it a moment before.
    let left = await inFlight();
    for (let i = 0; i < 40 && left !== 0; i++) {
      await new Promise((r) => setTimeout(r, 25));
      left = await inFlight();
    }
    assert.equal(left, 0, 'and no longer once it ended');
    const instances = (await call('operator', 'GET', '/console/api/instances')).json['data'] as { self: boolean }[];
    assert.deepEqual(instances.map((i) => i.self), [true]);
    const shown = await call('operator', 'GET', '/console/api/config');
    const yaml = String(shown.json['yaml']);
    assert.equal(shown.json['path'], gw.configPath);
    assert.ok(!yaml.includes(UPSTREAM_SECRET) && !yaml.includes(ADMIN) && !yaml.includes('sk-flaky-secret'), yaml);
    assert.deepEqual((parse(yaml) as { channels: { keys: string[] }[] }).channels[0]?.keys, ['***redacted***']);
    assert.match(yaml, /name: flaky/);
    await gw.writeConfig(config('log: { level: warn }'));
    const reloaded = await call('operator', 'POST', '/console/api/config/reload', {});
    assert.deepEqual([reloaded.status, reloaded.json['reloaded']], [200, true]);
    assert.match(String((await call('operator', 'GET', '/console/api/config')).json['yaml']), /level: warn/);
    await gw.writeConfig('channels: [');
    const rejected = await call('operator', 'POST', '/console/api/config/reload', {});
    assert.deepEqual([rejected.status, rejected.json['reloaded']], [200, false]);
    const noCsrf = await fetch(`${gw.url}/console/api/config/reload`, { method: 'POST', headers: { cookie: sessions['operator']?.cookie ?? '', 'content-type': 'application/json' }, body: '{}' });
    assert.equal(noCsrf.status, 403);
  });
});
