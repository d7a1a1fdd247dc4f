// Every usage record of a known key carries its account (issue 40, finding 8), on SQLite and PostgreSQL: the
// refusals (402 of the balance and of max_spend, 429, 403 model_not_priced), an upstream's failure, a video submission
// and its refusal, each made by a key of an account, are recorded with that account; the account's user sees them in
// the console (the dashboard's error count, the usage log's "error" filter) and another account's user sees none of
// them, whatever it asks for by id.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { postChat } from '../helpers/chat-requests.js';
import { consoleAccountUser, consoleSignIn, creditAccount, type ConsoleSession } from '../helpers/console-session.js';
import { startFakeArk, type FakeArk } from '../helpers/fake-ark.js';
import { FakeOpenAI } from '../helpers/fake-openai.js';
import { startGatewayUnderTest, type GatewayUnderTest } from '../helpers/gateway-under-test.js';
import { until } from '../helpers/poll.js';
import { storeBackends } from '../helpers/test-stores.js';
import { VIDEO_TASKS } from '../../features/video/store-part.js';

const ADMIN = 'console-records-admin-token-0123456789';
const ADA = 'sk-ada-records-0123456789abcdef';
const ADA_CAPPED = 'sk-ada-capped-0123456789abcdef';
const ADA_SLOW = 'sk-ada-slow-0123456789abcdefgh';
const GUS = 'sk-gus-records-0123456789abcdef';
const BROKE = 'sk-broke-records-0123456789abcd';
const SEEDANCE = 'doubao-seedance-2-0-260128';

type Row = { request_id: string; account: string | null; key_id: string; status: number; error_code: string | null };

for (const backend of storeBackends()) {
  describe(`usage records carry their key's account (${backend.name})`, { skip: backend.skip }, () => {
    const upstream = new FakeOpenAI('up');
    const flaky = new FakeOpenAI('flaky');
    let ark: FakeArk;
    let gw: GatewayUnderTest;
    let cleanup: () => Promise<void> = async () => {};
    const sessions: Record<string, ConsoleSession> = {};
    /** The request id of each answer the test made, by what it was, and its status. */
    const made = new Map<string, { id: string; status: number }>();

    async function consoleGet(who: string, path: string): Promise<{ status: number; json: Record<string, unknown> }> {
      const s = sessions[who] as ConsoleSession;
      const res = await fetch(`${gw.url}${path}`, { headers: { cookie: s.cookie } });
      return { status: res.status, json: (await res.json()) as Record<string, unknown> };
    }

    async function remember(what: string, answer: Promise<Response>): Promise<void> {
      const res = await answer;
      await res.arrayBuffer();
      const id = res.headers.get('x-request-id');
      assert.ok(id !== null, `${what}: an x-request-id`);
      made.set(what, { id, status: res.status });
    }

    const postVideo = (key: string, model: string): Promise<Response> =>
      fetch(`${gw.url}/v1/videos`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model, prompt: 'a recorded video', seconds: '5' }),
      });

    before(async () => {
      await upstream.start();
      await flaky.start();
      flaky.reply = () => ({ kind: 'status', status: 503 });
      ark = await startFakeArk();
      const db = await backend.fresh();
      cleanup = db.cleanup;
      gw = await startGatewayUnderTest(`server: { port: 0, host: 127.0.0.1, admin_token: ${ADMIN} }
store: { url: "${db.url}" }
pricing:
  models:
    "gpt-*": { input: 2.50, output: 10.00 }
    "doubao-seedance-*": { output: "2.00" }
groups:
  pro: { models: ["*"] }
accounts: [{ name: acme }, { name: globex }, { name: broke }]
keys:
  - { name: ada-bot, key: ${ADA}, group: pro, account: acme }
  - { name: ada-capped, key: ${ADA_CAPPED}, group: pro, account: acme, max_spend: "0.000001" }
  - { name: ada-slow, key: ${ADA_SLOW}, group: pro, account: acme, limits: { rpm: 1 } }
  - { name: gus-bot, key: ${GUS}, group: pro, account: globex }
  - { name: broke-bot, key: ${BROKE}, group: pro, account: broke }
channels:
  - { name: up, type: openai, base_url: "${upstream.url}", keys: [sk-up-0000000000], models: ["gpt-4o", "unpriced-*"], models_refresh_ms: 0 }
  - { name: flaky, type: openai, base_url: "${flaky.url}", keys: [sk-flaky-000000000], models: ["gpt-flaky"], models_refresh_ms: 0, cooldown_ms: 0 }
  - { name: ark, type: volcengine, base_url: "${ark.url}", keys: ${JSON.stringify(ark.keys)}, models: ["doubao-seedance-*", "video-unpriced"], cooldown_ms: 0 }
`);
      for (const account of ['acme', 'globex']) await creditAccount(gw.url, ADMIN, account, '10.00');
      sessions['operator'] = await consoleSignIn(gw.url, { admin_token: ADMIN });
      sessions['ada'] = await consoleAccountUser(gw.url, sessions['operator'] as ConsoleSession, 'acme', 'ada', 'ada has a password');
      sessions['gus'] = await consoleAccountUser(gw.url, sessions['operator'] as ConsoleSession, 'globex', 'gus', 'gus has a password');

      const chat = (key: string, model: string): Promise<Response> => postChat(gw.url, { model, messages: [{ role: 'user', content: 'hi' }] }, { key });
      await remember('served', chat(ADA, 'gpt-4o'));
      await remember('max_spend', chat(ADA_CAPPED, 'gpt-4o'));
      await remember('first of the minute', chat(ADA_SLOW, 'gpt-4o'));
      await remember('rate limited', chat(ADA_SLOW, 'gpt-4o'));
      await remember('not priced', chat(ADA, 'unpriced-model'));
      await remember('upstream failed', chat(ADA, 'gpt-flaky'));
      await remember('video submitted', postVideo(ADA, SEEDANCE));
      await remember('video not priced', postVideo(ADA, "video-unpriced"));
      await remember('balance', chat(BROKE, 'gpt-4o'));
      await remember('globex served', chat(GUS, 'gpt-4o'));
      await gw.usage();
    });
    after(async () => {
      await gw?.stop();
      await cleanup();
      await upstream.close();
      await flaky.close();
      await ark?.close();
    });

    const ACME_ERRORS = ['max_spend', 'rate limited', 'not priced', 'upstream failed', 'video not priced'];

    it('each answer is what the test meant it to be', () => {
      const statuses = Object.fromEntries([...made].map(([what, m]) => [what, m.status]));
      assert.deepEqual(statuses, {
        served: 200,
        max_spend: 402,
        'first of the minute': 200,
        'rate limited': 429,
        'not priced': 403,
        'upstream failed': 503,
        'video submitted': 200,
        'video not priced': 403,
        balance: 402,
        'globex served': 200,
      });
    });

    it('every record, refusals and failures and video submissions included, names its key\'s account', async () => {
      const records = new Map((await gw.usage()).map((r) => [r.requestId, r]));
      for (const [what, m] of made) {
        const record = records.get(m.id);
        assert.ok(record !== undefined, `${what} is recorded`);
        const account = what === 'balance' ? 'broke' : what === 'globex served' ? 'globex' : 'acme';
        assert.equal(record.account, account, `${what}'s record names ${account}`);
        assert.equal(record.status, m.status, what);
      }
    });

    it("the account's user sees its errors: the dashboard's count and the usage log's error filter", async () => {
      const dashboard = await consoleGet('ada', '/console/api/dashboard');
      assert.equal(dashboard.status, 200);
      const totals = dashboard.json['totals'] as { requests: number; errors: number };
      assert.deepEqual([totals.requests, totals.errors], [made.size - 2, ACME_ERRORS.length]);
      const errors = await consoleGet('ada', '/console/api/usage?status=error');
      const ids = (errors.json['data'] as Row[]).map((r) => r.request_id).sort();
      assert.deepEqual(ids, ACME_ERRORS.map((what) => made.get(what)?.id).sort());
      assert.equal((errors.json['totals'] as { errors: number }).errors, ACME_ERRORS.length);
      const video = await consoleGet('ada', `/console/api/usage?request_id=${made.get('video submitted')?.id ?? ''}`);
      assert.deepEqual((video.json['data'] as Row[]).map((r) => [r.account, r.status]), [['acme', 200]]);
      // The operator sees the same, account by account.
      const operator = await consoleGet('operator', '/console/api/usage?status=error&account=broke');
      assert.deepEqual((operator.json['data'] as Row[]).map((r) => [r.request_id, r.error_code]), [[made.get('balance')?.id, 'GW_ERR_INSUFFICIENT_BALANCE']]);
      const operatorDashboard = await consoleGet('operator', '/console/api/dashboard?account=acme');
      assert.equal((operatorDashboard.json['totals'] as { errors: number }).errors, ACME_ERRORS.length);
    });

    it("another account's user sees none of them, whatever it asks for", async () => {
      const dashboard = await consoleGet('gus', '/console/api/dashboard?account=acme');
      assert.deepEqual([dashboard.json['account'], (dashboard.json['totals'] as { requests: number; errors: number }).errors], ['globex', 0]);
      const errors = await consoleGet('gus', '/console/api/usage?status=error&account=acme');
      assert.deepEqual(errors.json['data'], []);
      for (const what of ACME_ERRORS) {
        const byId = await consoleGet('gus', `/console/api/usage?request_id=${made.get(what)?.id ?? ''}`);
        assert.deepEqual([byId.status, byId.json['data']], [200, []], what);
      }
      const byKey = await consoleGet('gus', '/console/api/usage?key_id=config:ada-bot');
      assert.deepEqual([byKey.status, byKey.json['data']], [200, []]);
      const own = await consoleGet('gus', '/console/api/usage');
      assert.deepEqual((own.json['data'] as Row[]).map((r) => [r.request_id, r.account]), [[made.get('globex served')?.id, 'globex']]);
    });

    type Listed = { id: string; name: string; account?: string; declared: boolean; status: string; created_at: string | null; spend: string; last_used_at: string | null; max_spend_left: string | null; key?: string };
    const listed = async (who: string, query = ''): Promise<Listed[]> => (await consoleGet(who, `/console/api/keys${query}`)).json['data'] as Listed[];

    it("the keys list shows an account's keys declared in gateway.yaml, read-only; the operator's shows them all", async () => {
      const ada = await listed('ada', '?account=globex');
      assert.deepEqual(ada.map((k) => [k.id, k.name, k.account, k.declared, k.status]), [
        ['config:ada-bot', 'ada-bot', 'acme', true, 'active'],
        ['config:ada-capped', 'ada-capped', 'acme', true, 'active'],
        ['config:ada-slow', 'ada-slow', 'acme', true, 'active'],
      ]);
      const bot = ada[0] as Listed;
      assert.ok(bot.key === undefined && bot.created_at === null, 'no secret, no invented creation time');
      assert.ok(bot.spend !== '0' && bot.last_used_at !== null, 'its spend and last use, from its records');
      assert.equal(ada[1]?.max_spend_left, '0.000001', 'refused: nothing spent of its cap');
      assert.deepEqual((await listed('gus')).map((k) => k.id), ['config:gus-bot']);
      assert.deepEqual((await listed('operator')).map((k) => k.id), ['config:ada-bot', 'config:ada-capped', 'config:ada-slow', 'config:gus-bot', 'config:broke-bot']);
      assert.deepEqual((await listed('operator', '?account=broke')).map((k) => k.id), ['config:broke-bot']);
      // The usage log's key filter takes a declared key's id, as the page's key list offers it.
      const byKey = await consoleGet('ada', '/console/api/usage?key_id=config:ada-slow');
      assert.deepEqual((byKey.json['data'] as Row[]).map((r) => r.request_id).sort(), [made.get('first of the minute')?.id, made.get('rate limited')?.id].sort());
    });

    it('a declared key cannot be edited nor revoked through the console; another account\'s is a missing key', async () => {
      const s = (who: string): ConsoleSession => sessions[who] as ConsoleSession;
      const send = async (who: string, method: string, id: string): Promise<{ status: number; error: { code: string; message: string } }> => {
        const res = await fetch(`${gw.url}/console/api/keys/${id}`, {
          method,
          headers: { cookie: s(who).cookie, 'x-csrf-token': s(who).csrf, 'content-type': 'application/json' },
          ...(method === 'PATCH' ? { body: JSON.stringify({ enabled: false }) } : {}),
        });
        return { status: res.status, error: ((await res.json()) as { error: { code: string; message: string } }).error };
      };
      for (const method of ['PATCH', 'DELETE']) {
        for (const who of ['ada', 'operator']) {
          const refused = await send(who, method, 'config:ada-bot');
          assert.deepEqual([refused.status, refused.error.code], [409, 'key_declared_in_config'], `${who} ${method}`);
        }
        const missing = await send('gus', method, 'config:nothing-here');
        const other = await send('gus', method, 'config:ada-bot');
        assert.deepEqual([other.status, other.error.code], [404, missing.error.code], `gus ${method}`);
        assert.equal(other.error.message.replace('config:ada-bot', 'ID'), missing.error.message.replace('config:nothing-here', 'ID'));
      }
      assert.deepEqual((await listed('ada')).map((k) => [k.id, k.status]).slice(0, 1), [['config:ada-bot', 'active']]);
      assert.equal((await postChat(gw.url, { model: 'gpt-4o', messages: [{ role: 'user', content: 'still served' }] }, { key: ADA })).status, 200);
    });
  });
}

for (const backend of storeBackends()) {
  describe(`a video task's settled record carries its key's account, priced or not (${backend.name})`, { skip: backend.skip }, () => {
    let ark: FakeArk;
    let gw: GatewayUnderTest;
    let cleanup: () => Promise<void> = async () => {};

    before(async () => {
      ark = await startFakeArk();
      const db = await backend.fresh();
      cleanup = db.cleanup;
      // No price for the video model, and `unpriced: free`: a metered key's task is served, and costs nothing.
      gw = await startGatewayUnderTest(
        `server: { port: 0, host: 127.0.0.1, admin_token: ${ADMIN} }
store: { url: "${db.url}" }
video: { poll_interval_ms: 100, max_poll_interval_ms: 200, refresh_after_ms: 0 }
pricing:
  unpriced: free
  models:
    "gpt-*": { input: 2.50, output: 10.00 }
groups:
  pro: { models: ["*"] }
accounts: [{ name: acme }]
keys:
  - { name: ada-bot, key: ${ADA}, group: pro, account: acme }
channels:
  - { name: ark, type: volcengine, base_url: "${ark.url}", keys: ${JSON.stringify(ark.keys)}, models: ["${SEEDANCE}"], cooldown_ms: 0 }
`,
        { videoPollTickMs: 25 },
      );
    });
    after(async () => {
      await gw?.stop();
      await cleanup();
      await ark?.close();
    });

    it('a free task of a metered key is recorded with its account when it ends', async () => {
      const res = await fetch(`${gw.url}/v1/videos`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADA}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: SEEDANCE, prompt: 'a free video', seconds: '5' }),
      });
      const created = (await res.json()) as { id: string };
      assert.equal(res.status, 200);
      ark.finish([...ark.tasks.keys()].pop() as string, { totalTokens: 108_900, duration: 5 });
      const tasks = gw.gateway.runtime.deps.store.part(VIDEO_TASKS);
      await until('the task recorded', async () => ((await tasks.task(created.id))?.recordedAt != null ? true : undefined), { timeoutMs: 10_000, intervalMs: 25 });
      const record = (await gw.usage()).find((r) => r.requestId === created.id);
      assert.deepEqual([record?.status, record?.cost, record?.account], [200, undefined, 'acme']);
    });
  });
}
