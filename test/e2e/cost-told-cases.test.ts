// Where the price is told and where it is not: a key without an account sees the cost recorded for it; a free model
// says 0; an answer the upstream refused says 0; an answer without usage says its estimate, as charged; a group with
// show_cost false, the free count_tokens route and the gateway's own refusals say nothing; a stream whose client did
// not ask for usage carries no cost; server.overhead_header false leaves x-gateway-overhead-ms out.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import OpenAI from 'openai';
import { formatMoney } from '../../core/money/decimal.js';
import { FakeAnthropic, anthropicChannel } from '../helpers/fake-anthropic.js';
import { FakeOpenAI, defaultReply } from '../helpers/fake-openai.js';
import { startGatewayUnderTest, type GatewayUnderTest } from '../helpers/gateway-under-test.js';

const ADMIN = 'test-admin-token-0123456789';
const METERED = 'sk-cost-metered-0123456789ab';
const UNMETERED = 'sk-cost-unmetered-0123456789';
const HIDDEN = 'sk-cost-hidden-0123456789abc';
const BROKE = 'sk-cost-broke-0123456789abcd';

const claude = new FakeAnthropic('claude');
const gpt = new FakeOpenAI('gpt');
let gw: GatewayUnderTest;

function config(server = ''): string {
  return `server: { port: 0, host: 127.0.0.1, admin_token: ${ADMIN}${server} }
store: { url: "sqlite:./gateway.db" }
pricing:
  unpriced: free
  models:
    "claude-*": { input: 3, output: 15 }
    "gpt-4o": { input: 2.50, output: 10.00, cache_read: 1.25 }
groups:
  pro: { models: ["*"] }
  quiet: { models: ["*"], show_cost: false }
accounts:
  - name: acme
  - name: broke
keys:
  - { name: metered, key: ${METERED}, group: pro, account: acme }
  - { name: unmetered, key: ${UNMETERED}, group: pro }
  - { name: hidden, key: ${HIDDEN}, group: quiet, account: acme }
  - { name: broke, key: ${BROKE}, group: pro, account: broke }
channels:
${anthropicChannel('claude', claude.url)}  - { name: gpt, type: openai, base_url: "${gpt.url}", keys: [sk-oai-0123456789], models: ["gpt-4o*"], formats: [openai-chat] }
`;
}

before(async () => {
  await Promise.all([claude.start(), gpt.start()]);
  gw = await startGatewayUnderTest(config());
  const credit = await fetch(`${gw.url}/admin/accounts/acme/credit`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ amount: '10', idempotency_key: 'start' }),
  });
  assert.equal(credit.status, 201);
});

after(async () => {
  await gw.stop();
  await Promise.all([claude.close(), gpt.close()]);
});

function chat(key: string, body: Record<string, unknown>): Promise<Response> {
  return fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(Object.assign({ model: 'gpt-4o', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] }, body)),
  });
}

/** The usage record of the answer `res` (read whole first). */
async function recordOf(res: Response): Promise<{ cost: bigint | null; usageEstimated: boolean; account: string | null }> {
  await res.arrayBuffer();
  const id = res.headers.get('x-request-id');
  const record = (await gw.usage()).find((r) => r.requestId === id);
  assert.ok(record !== undefined, `no record of ${id}`);
  return { cost: record.cost ?? null, usageEstimated: record.usageEstimated === true, account: record.account ?? null };
}

describe('the price told, case by case', () => {
  it('a key without an account is told the cost recorded for it, and nothing is charged', async () => {
    const before = (await gw.gateway.runtime.deps.store.ledger.getAccount('acme'))?.balance;
    const res = await chat(UNMETERED, {});
    assert.equal(res.status, 200);
    const record = await recordOf(res);
    assert.ok((record.cost ?? 0n) > 0n);
    assert.equal(res.headers.get('x-gateway-cost'), formatMoney(record.cost ?? -1n));
    assert.equal(record.account, null);
    assert.equal((await gw.gateway.runtime.deps.store.ledger.getAccount('acme'))?.balance, before);
  });

  it('a model without a price, served free (pricing.unpriced: free), says 0', async () => {
    const res = await chat(METERED, { model: 'gpt-4o-mini' });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('x-gateway-cost'), '0');
    assert.equal((await recordOf(res)).cost, 0n);
  });

  it('an answer the upstream refused says 0: nothing is charged for it', async () => {
    gpt.reply = () => ({ kind: 'status', status: 400 });
    try {
      const res = await chat(METERED, {});
      assert.equal(res.status, 400);
      assert.equal(res.headers.get('x-gateway-cost'), '0');
      assert.equal((await recordOf(res)).cost, 0n);
    } finally {
      gpt.reply = defaultReply;
    }
  });

  it('an answer without usage says the estimate it is charged', async () => {
    gpt.reply = () => ({ kind: 'completion', withoutUsage: true, text: 'an answer whose upstream counted nothing' });
    try {
      const res = await chat(METERED, {});
      assert.equal(res.status, 200);
      const record = await recordOf(res);
      assert.equal(record.usageEstimated, true);
      assert.ok((record.cost ?? 0n) > 0n);
      assert.equal(res.headers.get('x-gateway-cost'), formatMoney(record.cost ?? -1n));
    } finally {
      gpt.reply = defaultReply;
    }
  });

  it('a group with show_cost false is told nothing, in a header or a stream, and is charged all the same', async () => {
    const whole = await chat(HIDDEN, {});
    assert.equal(whole.headers.get('x-gateway-cost'), null);
    assert.ok(((await recordOf(whole)).cost ?? 0n) > 0n);
    const stream = await chat(HIDDEN, { stream: true, stream_options: { include_usage: true } });
    const text = await stream.clone().text();
    assert.match(text, /"usage":\{"prompt_tokens"/);
    assert.doesNotMatch(text, /"cost"/);
    assert.ok(((await recordOf(stream)).cost ?? 0n) > 0n);
    assert.notEqual(whole.headers.get('x-gateway-overhead-ms'), null, 'the gateway\'s time is no price');
  });

  it('a stream whose client did not ask for usage carries no cost (nor the usage chunk), and is charged', async () => {
    const res = await chat(METERED, { stream: true });
    const text = await res.clone().text();
    // The upstream was asked for usage (`"usage":null` on its other chunks, as OpenAI's); its usage chunk is dropped.
    assert.doesNotMatch(text, /"usage":\{|"cost"/);
    assert.match(text, /data: \[DONE\]/);
    assert.ok(((await recordOf(res)).cost ?? 0n) > 0n);
    assert.notEqual(res.headers.get('x-gateway-overhead-ms'), null);
  });

  it('the free count_tokens route says no price; the gateway\'s own refusal says neither price nor overhead', async () => {
    const counted = await fetch(`${gw.url}/v1/messages/count_tokens`, {
      method: 'POST',
      headers: { 'x-api-key': METERED, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'claude-cost-test', messages: [{ role: 'user', content: 'hi' }] }),
    });
    assert.equal(counted.status, 200, await counted.clone().text());
    assert.equal(counted.headers.get('x-gateway-cost'), null);
    assert.notEqual(counted.headers.get('x-gateway-overhead-ms'), null);
    await counted.arrayBuffer();
    const refused = await chat(BROKE, {});
    assert.equal(refused.status, 402);
    assert.equal(refused.headers.get('x-gateway-cost'), null);
    assert.equal(refused.headers.get('x-gateway-overhead-ms'), null);
    await refused.arrayBuffer();
  });

  it('the SDK reads the header; server.overhead_header false leaves x-gateway-overhead-ms out, the price stays', async () => {
    const { response } = await new OpenAI({ apiKey: METERED, baseURL: `${gw.url}/v1`, maxRetries: 0 }).chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] }).withResponse();
    assert.notEqual(response.headers.get('x-gateway-overhead-ms'), null);
    await gw.writeConfig(config(', overhead_header: false'));
    assert.equal(await gw.gateway.reload(), true);
    const res = await chat(METERED, {});
    assert.equal(res.headers.get('x-gateway-overhead-ms'), null);
    assert.equal(res.headers.get('x-gateway-cost'), formatMoney((await recordOf(res)).cost ?? -1n));
  });
});
