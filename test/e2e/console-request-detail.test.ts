// Request detail, ledger trace and prices over HTTP (issue 44), on SQLite and PostgreSQL: a failover's record tells
// both attempts, its error-free answer, its tokens, the prices it was charged at (the group's multiplier applied) and
// the ledger charge that covers it; a failed request keeps its client's error message; the charge lists its requests;
// a user of another account gets 404 for the request and the charge by id; the price list is each group's.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { consoleAccountUser, consoleSignIn, creditAccount, type ConsoleSession } from '../helpers/console-session.js';
import { FakeOpenAI } from '../helpers/fake-openai.js';
import { startGatewayUnderTest, type GatewayUnderTest } from '../helpers/gateway-under-test.js';
import { until } from '../helpers/poll.js';
import { storeBackends } from '../helpers/test-stores.js';

const ADMIN = 'request-detail-admin-token-0123456789';
const ACME_KEY = 'sk-acme-request-detail-0123456789';
const INITECH_KEY = 'sk-initech-request-detail-012345678';

for (const backend of storeBackends()) {
  describe(`request detail over HTTP (${backend.name})`, { skip: backend.skip }, () => {
    const up = new FakeOpenAI('up');
    const flaky = new FakeOpenAI('flaky');
    let gw: GatewayUnderTest;
    let cleanup: () => Promise<void> = async () => {};
    let ada: ConsoleSession;
    let ivan: ConsoleSession;
    let operator: ConsoleSession;

    async function get(who: ConsoleSession, path: string): Promise<{ status: number; json: Record<string, unknown> }> {
      const res = await fetch(`${gw.url}/console/api${path}`, { headers: { cookie: who.cookie } });
      return { status: res.status, json: (await res.json()) as Record<string, unknown> };
    }

    async function chat(key: string, model: string): Promise<{ status: number; id: string }> {
      const res = await fetch(`${gw.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }] }),
      });
      await res.arrayBuffer();
      return { status: res.status, id: res.headers.get('x-request-id') ?? '' };
    }

    /** The request's detail as `who` sees it, once its record is written (records are written in batches). */
    function detailOf(who: ConsoleSession, id: string): Promise<Record<string, unknown>> {
      return until(`the record of ${id}`, async () => {
        const found = await get(who, `/requests/${id}`);
        return found.status === 200 ? found.json : undefined;
      }, { timeoutMs: 10_000, intervalMs: 20 });
    }

    before(async () => {
      await up.start();
      await flaky.start();
      flaky.reply = () => ({ kind: 'status', status: 503 });
      const db = await backend.fresh();
      cleanup = db.cleanup;
      gw = await startGatewayUnderTest(`server: { port: 0, host: 127.0.0.1, admin_token: ${ADMIN} }
store: { url: "${db.url}" }
pricing:
  models:
    "gpt-*": { input: 2.50, output: 10.00, cache_read: 1.25 }
    "demo-video": { output: 1.00 }
  calls: { CreateAsset: 0.01 }
groups:
  pro: { models: ["*"] }
  cheap: { models: ["gpt-4o"], price_multiplier: 0.5 }
accounts: [{ name: acme, groups: [pro] }, { name: initech, groups: [cheap] }]
keys:
  - { name: acme-bot, key: ${ACME_KEY}, group: pro, account: acme }
  - { name: initech-bot, key: ${INITECH_KEY}, group: cheap, account: initech }
channels:
  - { name: flaky, type: openai, base_url: "${flaky.url}", keys: [sk-flaky-secret-00000000], models: ["gpt-4o", "gpt-broken"], models_refresh_ms: 0, priority: 10, cooldown_ms: 1 }
  - { name: up, type: openai, base_url: "${up.url}", keys: [sk-up-secret-0000000000], models: ["gpt-4o"], models_refresh_ms: 0 }
  - { name: studio, type: mock, assets: true, models: ["demo-*"] }
video: { poll_interval_ms: 100 }
`, { videoPollTickMs: 50 });
      await creditAccount(gw.url, ADMIN, 'acme', '10');
      await creditAccount(gw.url, ADMIN, 'initech', '10');
      operator = await consoleSignIn(gw.url, { admin_token: ADMIN });
      ada = await consoleAccountUser(gw.url, operator, 'acme', 'ada', 'ada has a long password');
      ivan = await consoleAccountUser(gw.url, operator, 'initech', 'ivan', 'ivan has a long password');
    });
    after(async () => {
      await gw?.stop();
      await cleanup();
      await up.close();
      await flaky.close();
    });

    let failover = '';

    it('a failover: both attempts, the model asked and served, tokens, the price with its multiplier, the cost and its charge', async () => {
      const answer = await chat(ACME_KEY, 'gpt-4o');
      assert.equal(answer.status, 200);
      failover = answer.id;
      const d = await detailOf(ada, failover);
      const attempts = d['attempts'] as { channel: string; status: number | null; error: string | null; latency_ms: number | null }[];
      assert.deepEqual(attempts.map((a) => [a.channel, a.status, a.error]), [['flaky', 503, 'status_503'], ['up', 200, null]]);
      assert.ok(attempts.every((a) => typeof a.latency_ms === 'number' && a.latency_ms >= 0));
      assert.deepEqual([d['route'], d['model'], d['upstream_model'], d['channel'], d['status'], d['account'], d['group']], ['/v1/chat/completions', 'gpt-4o', 'gpt-4o', 'up', 200, 'acme', 'pro']);
      assert.deepEqual(d['key'], { id: 'config:acme-bot', name: 'acme-bot' });
      assert.ok(!JSON.stringify(d).includes(ACME_KEY), 'never the secret');
      const price = d['price'] as { multiplier: string; per_unit: Record<string, string> };
      assert.equal(price.multiplier, '1');
      assert.deepEqual([price.per_unit['input_per_million'], price.per_unit['output_per_million'], price.per_unit['cache_read_per_million']], ['2.5', '10', '1.25']);
      const charge = d['charge'] as { id: number; kind: string; amount: string; request_id: string };
      assert.equal(charge.kind, 'charge');
      assert.equal(`-${String(d['cost'])}`, charge.amount, 'its charge is its cost alone (one request in its batch)');
      assert.equal(charge.request_id, failover);
      const listed = await get(ada, `/ledger/${charge.id}/requests`);
      assert.deepEqual((listed.json['data'] as { request_id: string }[]).map((r) => r.request_id), [failover]);
    });

    it("a failed request keeps its client's error message and each attempt's failure", async () => {
      const answer = await chat(ACME_KEY, 'gpt-broken');
      assert.equal(answer.status, 503);
      const d = await detailOf(ada, answer.id);
      assert.equal(d['error_code'], 'GW_ERR_UPSTREAM_OVERLOADED');
      assert.match(String(d['error_message']), /overloaded/);
      assert.deepEqual((d['attempts'] as { channel: string; status: number }[]).map((a) => [a.channel, a.status]), [['flaky', 503]]);
      assert.equal(d['charge'], null);
    });

    it("isolation by id: another account's request and charge are 404, as a missing one; the operator reads both", async () => {
      const d = await detailOf(ada, failover);
      const chargeId = (d['charge'] as { id: number }).id;
      const request = await get(ivan, `/requests/${failover}`);
      assert.equal(request.status, 404);
      const missing = await get(ivan, '/requests/no-such-request');
      assert.equal(missing.status, 404);
      const codeOf = (json: Record<string, unknown>): unknown => (json['error'] as { code?: unknown } | undefined)?.code;
      assert.equal(codeOf(request.json), codeOf(missing.json), 'answered as a missing one');
      assert.equal((await get(ivan, `/ledger/${chargeId}/requests`)).status, 404);
      assert.equal((await get(ivan, `/ledger/${chargeId}/requests?account=acme`)).status, 404, 'a user cannot name another account');
      assert.equal((await get(operator, `/requests/${failover}`)).status, 200);
      assert.equal((await get(operator, `/ledger/${chargeId}/requests?account=acme`)).status, 200);
      assert.equal((await get(operator, `/ledger/${chargeId}/requests?account=initech`)).status, 404);
    });

    it('what a request made: a video submission names its task (whose own record opens once it ended), an asset call its group', async () => {
      const submitted = await fetch(`${gw.url}/v1/videos`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ACME_KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'demo-video', prompt: 'A lighthouse at dusk', seconds: '4' }),
      });
      assert.equal(submitted.status, 200, await submitted.clone().text());
      const task = String(((await submitted.json()) as { id: string }).id);
      const submission = submitted.headers.get('x-request-id') ?? '';
      const first = await detailOf(ada, submission);
      assert.equal((first['made'] as { kind: string; id: string }).kind, 'video');
      assert.equal((first['made'] as { id: string }).id, task);
      // The task's own record (its end: the charge for what it made) is written under the task's id.
      const ended = await until('the task to end and its record to be linked', async () => {
        const d = await detailOf(ada, submission);
        return (d['made'] as { record: boolean }).record ? d : undefined;
      }, { timeoutMs: 20_000, intervalMs: 50 });
      assert.deepEqual(ended['made'], { kind: 'video', id: task, record: true });
      assert.equal((await detailOf(ada, task))['request_id'], task);
      assert.equal((await get(ivan, `/requests/${submission}`)).status, 404, "another account's submission is a missing one");

      const made = await fetch(`${gw.url}/v1/videogen/asset/CreateAssetGroup`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ACME_KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({ Name: 'request-detail' }),
      });
      assert.equal(made.status, 200, await made.clone().text());
      const group = String(((await made.json()) as { Result: { Id: string } }).Result.Id);
      const call = await detailOf(ada, made.headers.get('x-request-id') ?? '');
      assert.deepEqual(call['made'], { kind: 'asset_group', id: group, record: false });
      // A request that made nothing says so.
      assert.equal((await detailOf(ada, failover))['made'], null);
    });

    it('prices: each account sees its groups, the multiplier applied, and the flat-priced calls', async () => {
      const acme = (await get(ada, '/prices')).json;
      const ivans = (await get(ivan, '/prices')).json;
      type G = { name: string; multiplier: string; models: { model: string; price: Record<string, string> | null }[]; calls: { operation: string; per_call: string }[] };
      const [pro] = acme['data'] as G[];
      const [cheap] = ivans['data'] as G[];
      assert.deepEqual((acme['data'] as G[]).map((g) => g.name), ['pro']);
      assert.deepEqual((ivans['data'] as G[]).map((g) => g.name), ['cheap']);
      assert.equal(pro?.multiplier, '1');
      assert.equal(cheap?.multiplier, '0.5');
      assert.equal(pro?.models.find((m) => m.model === 'gpt-4o')?.price?.['input_per_million'], '2.5');
      assert.deepEqual(cheap?.models.map((m) => [m.model, m.price?.['input_per_million'], m.price?.['output_per_million']]), [['gpt-4o', '1.25', '5']]);
      assert.deepEqual(cheap?.calls, [{ operation: 'CreateAsset', per_call: '0.005' }]);
      const all = (await get(operator, '/prices')).json;
      assert.deepEqual((all['data'] as G[]).map((g) => g.name).sort(), ['cheap', 'pro']);
    });
  });
}
