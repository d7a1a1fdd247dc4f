// A run-time key's own limits.tokens_per_day (issue 45), set through the admin API on each store (migration 0029):
// created with a Berlin day of three requests' estimates, the key is served three and refused the fourth with the
// 429 that says when the day ends; listed back as written; a bad cap is a 400 naming its part, nothing stored; a
// PATCH of another limit keeps it, null clears it (served again), and the calendar day turning serves it too.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { parseOpenAIError, postChat } from '../helpers/chat-requests.js';
import { FakeOpenAI } from '../helpers/fake-openai.js';
import { startGatewayUnderTest, type GatewayUnderTest } from '../helpers/gateway-under-test.js';
import { storeBackends } from '../helpers/test-stores.js';

const ADMIN = 'tpd-admin-token-0123456789abc';
/** 23:00 on 29 November in Berlin (UTC+1): the day ends an hour later, at 23:00 UTC. */
const EVENING = Date.parse('2026-11-29T22:00:00Z');
const BERLIN_MIDNIGHT = Date.parse('2026-11-29T23:00:00Z');
const BODY = { model: 'gpt-4o', max_tokens: 7, messages: [{ role: 'user', content: 'hello' }] };
/** What the gateway reserves for one (bytes / 4 and max_tokens), and what each answer reports using: the same. */
const ESTIMATE = Math.ceil(JSON.stringify(BODY).length / 4) + 7;

async function admin(url: string, method: string, path: string, body?: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

for (const backend of storeBackends()) {
  describe(`a run-time key's tokens_per_day through the admin API (${backend.name})`, { skip: backend.skip }, () => {
    const upstream = new FakeOpenAI('up');
    let gw: GatewayUnderTest;
    let db: { readonly url: string; cleanup(): Promise<void> };
    let now = EVENING;

    before(async () => {
      await upstream.start();
      upstream.reply = () => ({ kind: 'completion', usage: { prompt: ESTIMATE - 7, completion: 7, cached: 0, reasoning: 0 } });
      db = await backend.fresh();
      gw = await startGatewayUnderTest(
        `server: { host: 127.0.0.1, port: 0, admin_token: ${ADMIN} }
store: { url: "${db.url}" }
groups:
  pro: { models: ["*"] }
channels:
  - { name: up, type: openai, base_url: "${upstream.url}", keys: [sk-up], models: ["gpt-*"], models_refresh_ms: 0 }
`,
        { clock: () => now },
      );
    });
    after(async () => {
      await gw.stop();
      await upstream.close();
      await db.cleanup();
    });

    it('refuses a bad cap with a 400 naming its part, and stores nothing', async () => {
      for (const [tokens_per_day, param] of [
        [0, 'limits.tokens_per_day'],
        [{ tokens: 10, timezone: 'Mars/Olympus_Mons' }, 'limits.tokens_per_day.timezone'],
        [{ tokens: 10, period: 'fortnight' }, 'limits.tokens_per_day.period'],
        [{ tokens: 1.5 }, 'limits.tokens_per_day.tokens'],
        [{ tokens: 10, every: 2 }, 'limits.tokens_per_day.every'],
        ['10', 'limits.tokens_per_day'],
      ] as const) {
        const res = await admin(gw.url, 'POST', '/admin/keys', { name: 'bad', group: 'pro', limits: { tokens_per_day } });
        assert.equal(res.status, 400, JSON.stringify(res.json));
        assert.equal((res.json['error'] as Record<string, unknown>)['param'], param);
      }
      assert.equal(((await admin(gw.url, 'GET', '/admin/keys')).json['data'] as unknown[]).length, 0, 'nothing stored');
    });

    it('serves the day exactly, says when it resets, keeps it through other edits, clears it with null', async () => {
      const cap = { tokens: 3 * ESTIMATE, timezone: 'Europe/Berlin' };
      const created = await admin(gw.url, 'POST', '/admin/keys', { name: 'daily', group: 'pro', limits: { rpm: 100, tokens_per_day: cap } });
      assert.equal(created.status, 201, JSON.stringify(created.json));
      const key = created.json['key'] as string;
      const id = created.json['id'] as string;
      assert.deepEqual(created.json['limits'], { rpm: 100, tokens_per_day: cap });

      for (let i = 0; i < 3; i++) {
        const res = await postChat(gw.url, BODY, { key });
        assert.equal(res.status, 200, await res.text());
      }
      const refused = await postChat(gw.url, BODY, { key });
      assert.equal(refused.status, 429);
      assert.equal(refused.headers.get('x-gateway-budget-reset'), '2026-11-29T23:00:00.000Z');
      assert.equal(refused.headers.get('retry-after'), '3600');
      assert.match(parseOpenAIError(await refused.text()).message, /key "daily" on tokens per day \(TPD\): Limit \d+, Used \d+, Requested \d+\. .*the day resets at 2026-11-29T23:00:00\.000Z/);

      // Another limit edited: the day's cap stays (read back from the store), still refusing.
      const edited = await admin(gw.url, 'PATCH', `/admin/keys/${id}`, { limits: { rpm: 50 } });
      assert.equal(edited.status, 200, JSON.stringify(edited.json));
      assert.deepEqual(edited.json['limits'], { rpm: 50, tokens_per_day: cap });
      const listed = ((await admin(gw.url, 'GET', '/admin/keys')).json['data'] as Record<string, unknown>[]).find((k) => k['id'] === id);
      assert.deepEqual(listed?.['limits'], { rpm: 50, tokens_per_day: cap });
      assert.equal((await postChat(gw.url, BODY, { key })).status, 429);

      // The Berlin day turns: served again.
      now = BERLIN_MIDNIGHT;
      assert.equal((await postChat(gw.url, BODY, { key })).status, 200);

      // Replaced whole by a UTC week's cap of one request's estimate (its week began Monday 23 November, UTC): a count
      // of its own, which one request fills.
      const weekly = await admin(gw.url, 'PATCH', `/admin/keys/${id}`, { limits: { tokens_per_day: { tokens: ESTIMATE, period: 'week' } } });
      assert.deepEqual(weekly.json['limits'], { rpm: 50, tokens_per_day: { tokens: ESTIMATE, period: 'week' } });
      assert.equal((await postChat(gw.url, BODY, { key })).status, 200);
      const week = await postChat(gw.url, BODY, { key });
      assert.equal(week.status, 429);
      assert.match(parseOpenAIError(await week.text()).message, /tokens per week/);

      const cleared = await admin(gw.url, 'PATCH', `/admin/keys/${id}`, { limits: { tokens_per_day: null } });
      assert.deepEqual(cleared.json['limits'], { rpm: 50 });
      assert.equal((await postChat(gw.url, BODY, { key })).status, 200);
    });
  });
}
