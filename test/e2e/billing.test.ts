// Money over real HTTP on one instance (SQLite): a metered key pays the exact price of its usage times its group's
// multiplier, from its account's balance, through the ledger; without balance it gets 402 in its caller's shape and
// nothing reaches the upstream; max_spend refuses while the account still has money; unmetered keys pay nothing
// but their cost is recorded; failed requests cost nothing and a failover is charged once; the audit holds.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { MAX_USAGE_COUNT } from '../../core/ir/usage.js';
import { auditBooks } from '../../core/money/audit.js';
import { formatMoney, parseMoney } from '../../core/money/decimal.js';
import { postChat } from '../helpers/chat-requests.js';
import { runCli, cliEnv } from '../helpers/cli-process.js';
import { DEFAULT_USAGE, FakeOpenAI } from '../helpers/fake-openai.js';
import { TEST_KEY, startGatewayUnderTest, type GatewayUnderTest } from '../helpers/gateway-under-test.js';
import { MemoryLimiter } from '../../core/limits/memory-limiter.js';
import { series } from '../helpers/metric-series.js';
import { until } from '../helpers/poll.js';

const ADMIN = 'test-admin-token-0123456789';
const METERED = 'sk-metered-0123456789abcdef';
const CAPPED = 'sk-capped-0123456789abcdefg';

// gpt-4o: 2.50 in, 10.00 out, 1.25 cache reads, per 1M tokens. The fake reports 31 prompt tokens (12 cached) and 7
// completion tokens: 19 x 2.5 + 12 x 1.25 + 7 x 10 = 132.5 per 1M = 132,500 nano-units.
const COST = 132_500n;

function config(primary: string, backup: string): string {
  return `server:
  port: 0
  host: 127.0.0.1
  admin_token: ${ADMIN}
store:
  url: sqlite:./gateway.db
pricing:
  models:
    "gpt-4o": { input: 2.50, output: 10.00, cache_read: 1.25 }
groups:
  pro: { models: ["*"] }
  half: { models: ["*"], price_multiplier: 0.5 }
accounts:
  - name: acme
keys:
  - { name: metered, key: ${METERED}, group: pro, account: acme }
  - { name: capped, key: ${CAPPED}, group: half, account: acme, max_spend: "0.0001" }
  - { name: free, key: ${TEST_KEY}, group: pro }
channels:
  - { name: primary, type: openai, base_url: "${primary}", keys: [sk-up-1], models: ["gpt-*"], priority: 10, cooldown_ms: 0 }
  - { name: backup, type: openai, base_url: "${backup}", keys: [sk-up-2], models: ["gpt-*"], cooldown_ms: 0 }
`;
}

describe('billing on one instance', () => {
  const primary = new FakeOpenAI('primary');
  const backup = new FakeOpenAI('backup');
  let gw: GatewayUnderTest;
  const admin = (path: string, body?: unknown): Promise<Response> =>
    fetch(`${gw.url}${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  /** The balance once every usage record (and so every charge) so far is written. */
  const balance = async (): Promise<string> => {
    await gw.usage();
    return ((await (await admin('/admin/accounts/acme')).json()) as { balance: string }).balance;
  };
  const chat = (key: string, extra: Record<string, unknown> = {}): Promise<Response> =>
    postChat(gw.url, { model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }], max_tokens: 10, ...extra }, { key });
  const calls = (): number => primary.requests.length + backup.requests.length;

  /** The limiter's clock runs with the real one, moved ahead by the test where a minute must pass. */
  let skew = 0;
  const limiter = new MemoryLimiter({ now: () => Date.now() + skew });

  before(async () => {
    await primary.start();
    await backup.start();
    gw = await startGatewayUnderTest(config(primary.url, backup.url), { limiter });
  });
  after(async () => {
    await gw.stop();
    await primary.close();
    await backup.close();
  });

  it('refuses a metered key without balance with 402 in its caller\'s shape, and calls no upstream', async () => {
    assert.equal(await balance(), '0');
    const openai = await chat(METERED);
    assert.equal(openai.status, 402);
    assert.equal(openai.headers.get('x-should-retry'), 'false');
    const body = (await openai.json()) as { error: { type: string; code: string; message: string } };
    assert.equal(body.error.type, 'insufficient_quota');
    assert.equal(body.error.code, 'insufficient_balance');
    assert.match(body.error.message, /account "acme"/);
    const anthropic = await fetch(`${gw.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': METERED, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }),
    });
    assert.equal(anthropic.status, 402);
    assert.equal(anthropic.headers.get('x-should-retry'), 'false');
    assert.deepEqual(((await anthropic.json()) as { type: string; error: { type: string } }).error.type, 'billing_error');
    assert.equal(calls(), 0);
  });

  it('the official SDKs surface a 402 without retrying it, and nothing reaches the upstream', async () => {
    const refusals = async (): Promise<number> => {
      const text = await (await fetch(`${gw.url}/metrics`)).text();
      return Object.entries(series(text, 'gateway_requests_total'))
        .filter(([labels]) => labels.includes('status="402"'))
        .reduce((sum, [, n]) => sum + n, 0);
    };
    const before = await refusals();
    const openai = new OpenAI({ apiKey: METERED, baseURL: `${gw.url}/v1`, maxRetries: 3 });
    await assert.rejects(openai.chat.completions.create({ model: 'gpt-4o', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }), (err: unknown) => {
      assert.ok(err instanceof OpenAI.APIError);
      assert.equal(err.status, 402);
      assert.equal(err.code, 'insufficient_balance');
      return true;
    });
    const anthropic = new Anthropic({ apiKey: METERED, baseURL: gw.url, maxRetries: 3 });
    await assert.rejects(anthropic.messages.create({ model: 'gpt-4o', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }), (err: unknown) => {
      assert.ok(err instanceof Anthropic.APIError);
      assert.equal(err.status, 402);
      return true;
    });
    assert.equal((await refusals()) - before, 2, 'one request each: no retry');
    assert.equal(calls(), 0);
  });

  it('credits through the admin API once per idempotency key', async () => {
    const first = await admin('/admin/accounts/acme/credit', { amount: '1.00', note: 'top-up', idempotency_key: 'invoice-1' });
    assert.equal(first.status, 201);
    const again = await admin('/admin/accounts/acme/credit', { amount: '1.00', note: 'top-up', idempotency_key: 'invoice-1' });
    assert.equal(again.status, 200);
    assert.equal(((await again.json()) as { applied: boolean }).applied, false);
    assert.equal(await balance(), '1');
    const bad = await admin('/admin/accounts/acme/credit', { amount: '0.0000000001', idempotency_key: 'x' });
    assert.equal(bad.status, 400);
    assert.equal((await admin('/admin/accounts/nobody/credit', { amount: '1', idempotency_key: 'y' })).status, 404);
  });

  it('creates an account once when several ask at the same time: the others get 400, as for a name taken before', async () => {
    const answers = await Promise.all(Array.from({ length: 8 }, () => admin('/admin/accounts', { name: 'racing', description: 'one of eight' })));
    const statuses = answers.map((r) => r.status).sort();
    assert.deepEqual(statuses, [201, 400, 400, 400, 400, 400, 400, 400]);
    for (const r of answers.filter((a) => a.status === 400)) {
      const body = (await r.json()) as { error: { param: string; message: string } };
      assert.equal(body.error.param, 'name');
      assert.match(body.error.message, /already exists/);
    }
  });

  it('charges a metered key exactly its usage at its prices, streamed or not, and records the cost', async () => {
    const before = parseMoney(await balance());
    assert.equal((await chat(METERED)).status, 200);
    const stream = await chat(METERED, { stream: true });
    assert.equal(stream.status, 200);
    await stream.text();
    const records = (await gw.usage()).filter((r) => r.keyName === 'metered' && r.status === 200);
    assert.equal(records.length, 2);
    for (const r of records) {
      assert.equal(r.promptTokens, DEFAULT_USAGE.prompt);
      assert.equal(r.cost, COST);
      assert.equal(r.account, 'acme');
      assert.match(r.priceVersion ?? '', /^[0-9a-f]{16}$/);
    }
    assert.equal(parseMoney(await balance()), before - 2n * COST);
  });

  it('records an unmetered key\'s cost without charging anyone', async () => {
    const before = await balance();
    assert.equal((await chat(TEST_KEY)).status, 200);
    const [record] = (await gw.usage()).filter((r) => r.keyName === 'free');
    assert.equal(record?.cost, COST);
    assert.equal(record?.account, undefined);
    assert.equal(await balance(), before);
  });

  it('refuses max_spend with 402 while the account still has money, at the group\'s multiplier', async () => {
    // Half price: 66,250 per request; the cap of 100,000 takes one, and the next reservation does not fit.
    assert.equal((await chat(CAPPED)).status, 200);
    const refused = await chat(CAPPED);
    assert.equal(refused.status, 402);
    assert.equal(((await refused.json()) as { error: { code: string } }).error.code, 'max_spend_reached');
    const [record] = (await gw.usage()).filter((r) => r.keyName === 'capped' && r.status === 200);
    assert.equal(record?.cost, COST / 2n);
    assert.ok(parseMoney(await balance()) > 0n);
  });

  it('charges nothing for an upstream 4xx, and once for a request that failed over from a 500', async () => {
    const before = parseMoney(await balance());
    primary.reply = () => ({ kind: 'status', status: 400, body: { error: { message: 'bad', type: 'invalid_request_error', param: null, code: null } } });
    assert.equal((await chat(METERED)).status, 400);
    primary.reply = () => ({ kind: 'status', status: 500 });
    const backupBefore = backup.requests.length;
    assert.equal((await chat(METERED)).status, 200);
    assert.equal(backup.requests.length, backupBefore + 1, 'served by the backup');
    primary.reply = (req) => (req.body['stream'] === true ? { kind: 'stream' } : { kind: 'completion' });
    const failed = (await gw.usage()).find((r) => r.keyName === 'metered' && r.status === 400);
    assert.equal(parseMoney(await balance()), before - COST, 'one charge, for the attempt that served');
    assert.equal(failed?.cost, 0n);
  });

  it('bills a stream cut before its usage by what was delivered: the upstream breaking, or the client leaving', async () => {
    const pieces = Array.from({ length: 40 }, (_, i) => `w${i} `);
    primary.reply = () => ({ kind: 'stream', pieces, breakAfter: 10 });
    const broken = await chat(METERED, { stream: true });
    assert.equal(broken.status, 200);
    await broken.text();
    primary.reply = () => ({ kind: 'stream', pieces, delayMs: 30 });
    const abort = new AbortController();
    const left = await postChat(gw.url, { model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }], max_tokens: 50, stream: true }, { key: METERED, signal: abort.signal });
    const reader = (left.body as ReadableStream<Uint8Array>).getReader();
    let text = '';
    while ((text.match(/^data: /gm) ?? []).length < 5) text += new TextDecoder().decode((await reader.read()).value);
    abort.abort();
    await reader.cancel().catch(() => undefined);
    primary.reply = (req) => (req.body['stream'] === true ? { kind: 'stream' } : { kind: 'completion' });
    await until('the aborted record', async () => ((await gw.usage()).some((r) => r.keyName === 'metered' && r.aborted) ? true : undefined), { timeoutMs: 5000, intervalMs: 20 });
    const records = (await gw.usage()).filter((r) => r.keyName === 'metered' && r.usageEstimated === true);
    assert.equal(records.length, 2, 'both cut streams are billed by estimate');
    for (const r of records) {
      // The upstream never reported usage: the input is estimated from the body, the output from the frames sent.
      assert.ok(r.promptTokens > 0);
      assert.ok(r.completionTokens >= 5 && r.completionTokens < 40, `output ${r.completionTokens} tokens for a cut stream`);
      assert.equal(r.cost, (BigInt(r.promptTokens) * 2_500_000_000n + BigInt(r.completionTokens) * 10_000_000_000n + 999_999n) / 1_000_000n);
      assert.equal(r.account, 'acme');
    }
    assert.deepEqual((await auditBooks(gw.gateway.runtime.deps.store)).problems, [], 'the charge is the record\'s cost');
  });

  it('an upstream that reports no usage: a stream is billed by the frames delivered, a whole answer by its bytes, both marked estimated', async () => {
    const pieces = Array.from({ length: 12 }, (_, i) => `u${i} `);
    primary.reply = (req) => (req.body['stream'] === true ? { kind: 'stream', pieces, withoutUsage: true } : { kind: 'completion', withoutUsage: true });
    const streamed = await chat(METERED, { stream: true, user: 'no-usage-stream' });
    assert.equal(streamed.status, 200);
    await streamed.text();
    const whole = await chat(METERED, { user: 'no-usage-whole' });
    assert.equal(whole.status, 200);
    const answer = (await whole.json()) as Record<string, unknown>;
    assert.equal(answer['usage'], undefined, 'the client is told what the upstream said: nothing');
    primary.reply = (req) => (req.body['stream'] === true ? { kind: 'stream' } : { kind: 'completion' });
    const records = (await gw.usage()).filter((r) => r.keyName === 'metered' && r.usageEstimated === true && !r.aborted && r.errorCode === null);
    const stream = records.find((r) => r.stream);
    const json = records.find((r) => !r.stream);
    assert.ok(stream !== undefined && json !== undefined, 'both billed by estimate');
    // The stream: the role chunk, 12 deltas and the finish chunk reached the client; max_tokens is 10: 10 tokens.
    assert.equal(stream.completionTokens, 10, 'never more output than the request allowed');
    // The whole answer: its ~400 bytes are ~100 tokens, never more than max_tokens.
    assert.equal(json.completionTokens, 10);
    for (const r of [stream, json]) {
      assert.ok(r.promptTokens > 0, 'the input estimated from the body');
      assert.equal(r.cost, (BigInt(r.promptTokens) * 2_500_000_000n + BigInt(r.completionTokens) * 10_000_000_000n + 999_999n) / 1_000_000n);
    }
    assert.deepEqual((await auditBooks(gw.gateway.runtime.deps.store)).problems, []);
  });

  it('an upstream reporting an absurd count is recorded and billed at the bound, and records behind it are written', async () => {
    primary.reply = () => ({ kind: 'completion', usage: { prompt: 2 ** 40, completion: 7 } });
    const absurd = await chat(METERED, { user: 'absurd-usage' });
    assert.equal(absurd.status, 200);
    primary.reply = (req) => (req.body['stream'] === true ? { kind: 'stream' } : { kind: 'completion' });
    const absurdCost = (BigInt(MAX_USAGE_COUNT) * 2_500_000_000n + 7n * 10_000_000_000n + 999_999n) / 1_000_000n;
    // Its overrun came off the balance at once: the account is below zero and admits nothing until credited again.
    assert.equal((await chat(METERED, { user: 'overdrawn' })).status, 402);
    assert.equal((await admin('/admin/accounts/acme/credit', { amount: formatMoney(absurdCost), idempotency_key: 'absurd-refill' })).status, 201);
    assert.equal((await chat(METERED, { user: 'after-absurd' })).status, 200);
    const records = await gw.usage();
    const bounded = records.find((r) => r.keyName === 'metered' && r.promptTokens === MAX_USAGE_COUNT);
    assert.ok(bounded !== undefined, 'the count is bounded before it is priced and recorded');
    assert.equal(bounded.cost, absurdCost);
    assert.deepEqual((await auditBooks(gw.gateway.runtime.deps.store)).problems, []);
  });

  it('translated (a Messages client on a chat upstream that reports no usage): estimated as well, not the zeros its shape carries', async () => {
    primary.reply = (req) => (req.body['stream'] === true ? { kind: 'stream', pieces: ['a ', 'b ', 'c '], withoutUsage: true } : { kind: 'completion', text: 'x'.repeat(400), withoutUsage: true });
    const messages = (stream: boolean): Promise<Response> =>
      fetch(`${gw.url}/v1/messages`, {
        method: 'POST',
        headers: { 'x-api-key': METERED, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'gpt-4o', max_tokens: 50, stream, metadata: { user_id: `translated-${stream}` }, messages: [{ role: 'user', content: 'hi' }] }),
      });
    const streamed = await messages(true);
    assert.equal(streamed.status, 200);
    assert.match(await streamed.text(), /"output_tokens":0/, 'the client is told the zeros its shape needs');
    const whole = await messages(false);
    assert.equal(whole.status, 200);
    await whole.text();
    primary.reply = (req) => (req.body['stream'] === true ? { kind: 'stream' } : { kind: 'completion' });
    const records = (await gw.usage()).filter((r) => r.keyName === 'metered' && r.route === '/v1/messages' && r.status === 200);
    assert.equal(records.length, 2);
    for (const r of records) {
      assert.equal(r.usageEstimated, true, `${r.stream ? 'stream' : 'whole answer'} estimated`);
      assert.ok(r.promptTokens > 0 && r.completionTokens > 0 && r.completionTokens <= 50, `${r.promptTokens} in, ${r.completionTokens} out`);
      assert.ok((r.cost ?? 0n) > 0n);
    }
    assert.deepEqual((await auditBooks(gw.gateway.runtime.deps.store)).problems, []);
  });

  it('bills a stream cut after its final usage as the upstream reported it, not by estimate', async () => {
    // 20 pieces: the role chunk, 20 deltas, the finish chunk, the usage chunk (index 22), then [DONE], which the
    // upstream never sends: it breaks after the usage. 22 frames reach the client, more than the 7 tokens reported.
    primary.reply = () => ({ kind: 'stream', pieces: Array.from({ length: 20 }, (_, i) => `p${i} `), breakAfter: 23 });
    const res = await chat(METERED, { stream: true, user: 'cut-after-usage' });
    assert.equal(res.status, 200);
    await res.text();
    primary.reply = (req) => (req.body['stream'] === true ? { kind: 'stream' } : { kind: 'completion' });
    const record = (await gw.usage()).find((r) => r.keyName === 'metered' && r.errorCode === 'GW_ERR_UPSTREAM_STREAM_BROKEN' && r.usageEstimated === false);
    assert.ok(record !== undefined, 'a broken stream billed as reported');
    assert.equal(record.completionTokens, DEFAULT_USAGE.completion);
    assert.equal(record.cost, COST);
  });

  it('refuses a metered key a model without a price (403 model_not_priced); an unmetered key may use it', async () => {
    const refused = await chat(METERED, { model: 'gpt-4o-mini' });
    assert.equal(refused.status, 403);
    assert.equal(((await refused.json()) as { error: { code: string } }).error.code, 'model_not_priced');
    assert.equal((await chat(TEST_KEY, { model: 'gpt-4o-mini' })).status, 200);
  });

  it('tells a key its own money: /v1/me, and the legacy billing routes front-ends read', async () => {
    await gw.usage();
    const get = async (key: string, path: string): Promise<Record<string, unknown>> => {
      const res = await fetch(`${gw.url}${path}`, { headers: { authorization: `Bearer ${key}` } });
      assert.equal(res.status, 200, path);
      return (await res.json()) as Record<string, unknown>;
    };
    const balanceNow = await balance();
    const records = await gw.usage();
    const spent = (name: string): bigint => records.filter((r) => r.keyName === name).reduce((sum, r) => sum + (r.cost ?? 0n), 0n);
    const metered = await get(METERED, '/v1/me');
    assert.deepEqual(metered, {
      object: 'me',
      key: { name: 'metered', group: 'pro' },
      account: 'acme',
      currency: 'USD',
      balance: balanceNow,
      spend: formatMoney(spent('metered')),
      max_spend: null,
      max_spend_left: null,
      max_spend_period: null,
      account_max_spend: null,
      tokens_per_day: null,
    });
    const capped = await get(CAPPED, '/v1/me');
    assert.equal(capped['max_spend'], '0.0001');
    assert.equal(capped['max_spend_left'], formatMoney(100_000n - spent('capped')));
    const free = await get(TEST_KEY, '/v1/me');
    assert.deepEqual([free['account'], free['balance'], free['spend']], [null, null, formatMoney(spent('free'))]);

    const sub = await get(METERED, '/v1/dashboard/billing/subscription');
    const accountSpent = records.filter((r) => r.account === 'acme').reduce((sum, r) => sum + (r.cost ?? 0n), 0n);
    assert.equal(sub['object'], 'billing_subscription');
    assert.equal(sub['hard_limit_usd'], Number(parseMoney(balanceNow) + accountSpent) / 1e9, 'the balance plus all that was spent');
    const dayText = (offset: number): string => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
    const usage = await get(METERED, `/v1/dashboard/billing/usage?start_date=${dayText(-30)}&end_date=${dayText(1)}`);
    assert.equal(usage['total_usage'], (Number(accountSpent) / 1e9) * 100, 'cents');
    const none = await get(METERED, '/v1/dashboard/billing/usage?start_date=2000-01-01&end_date=2000-01-02');
    assert.equal(none['total_usage'], 0);
    for (const query of ['start_date=yesterday&end_date=2000-01-02', 'start_date=2024-02-31&end_date=2024-03-05', 'start_date=2000-01-01&end_date=2001-01-01', 'end_date=2000-01-02']) {
      const bad = await fetch(`${gw.url}/v1/dashboard/billing/usage?${query}`, { headers: { authorization: `Bearer ${METERED}` } });
      assert.equal(bad.status, 400, query);
    }
    assert.equal((await fetch(`${gw.url}/v1/me`)).status, 401);
  });

  it('a key reaches no account by name: the admin money routes refuse keys, /v1/me ignores what the request names', async () => {
    const before = await balance();
    for (const [method, path, body] of [
      ['GET', '/admin/accounts', undefined],
      ['GET', '/admin/accounts/acme', undefined],
      ['POST', '/admin/accounts', { name: 'mine' }],
      ['POST', '/admin/accounts/acme/credit', { amount: '100', idempotency_key: 'steal' }],
    ] as const) {
      for (const key of [METERED, TEST_KEY, 'sk-unknown-0123456789abcdef']) {
        const res = await fetch(`${gw.url}${path}`, {
          method,
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
        assert.equal(res.status, 401, `${method} ${path} with a key`);
        assert.equal(((await res.json()) as { error: { code: string } }).error.code, 'invalid_admin_token');
      }
      // Wrong admin tokens are limited per address (ten, then one every 6 s): a minute passes.
      skew += 60_000;
    }
    assert.equal(await balance(), before, 'nothing credited');
    assert.equal((await admin('/admin/accounts/mine')).status, 404, 'nothing created');
    // The free key asks about acme by every name a request could carry: it still sees only itself.
    const res = await fetch(`${gw.url}/v1/me?account=acme&key=metered`, { headers: { authorization: `Bearer ${TEST_KEY}`, 'x-account': 'acme' } });
    const me = (await res.json()) as Record<string, unknown>;
    assert.deepEqual([me['account'], me['balance'], (me['key'] as { name: string }).name], [null, null, 'free']);
    const usage = await fetch(`${gw.url}/v1/dashboard/billing/usage?start_date=2000-01-01&end_date=2000-02-01&account=acme`, { headers: { authorization: 'Bearer sk-unknown-0123456789abcdef' } });
    assert.equal(usage.status, 401);
  });

  it('keeps the books: every balance from its ledger, every charge from its record (audit and the CLI)', async () => {
    await gw.usage();
    const report = await auditBooks(gw.gateway.runtime.deps.store);
    assert.deepEqual(report.problems, []);
    assert.ok(report.pricedRecords >= 6);
    const cli = await runCli(['accounts', 'audit', '--config', gw.configPath], cliEnv());
    assert.equal(cli.code, 0, cli.stderr);
    assert.match(cli.stdout, /^ok: 2 accounts, \d+ priced usage records, 0 problems/);
  });
});

describe('billing with pricing.unpriced: free', () => {
  const upstream = new FakeOpenAI('free');
  let gw: GatewayUnderTest;
  before(async () => {
    await upstream.start();
    gw = await startGatewayUnderTest(
      config(upstream.url, upstream.url).replace('pricing:\n', 'pricing:\n  unpriced: free\n'),
    );
  });
  after(async () => {
    await gw.stop();
    await upstream.close();
  });

  it('serves a metered key a model without a price, free, even without balance, and records a cost of 0', async () => {
    const res = await postChat(gw.url, { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }, { key: METERED });
    assert.equal(res.status, 200);
    await res.text();
    const [record] = await gw.usage();
    assert.equal(record?.cost, 0n);
    assert.equal(record?.account, 'acme');
    assert.equal((await gw.gateway.runtime.deps.store.ledger.getAccount('acme'))?.balance, 0n);
    // A priced model still needs balance.
    assert.equal((await postChat(gw.url, { model: 'gpt-4o', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] }, { key: METERED })).status, 402);
  });
});
