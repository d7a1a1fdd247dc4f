// Charges are exact in every API, native and translated, streamed and not, cache reads and writes priced as such:
// each record's cost is the price times its tokens, and the account's balance drops by exactly their sum.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { auditBooks } from '../../core/money/audit.js';
import { parseMoney } from '../../core/money/decimal.js';
import { DEFAULT_ANTHROPIC_USAGE, FakeAnthropic } from '../helpers/fake-anthropic.js';
import { DEFAULT_USAGE, FakeOpenAI } from '../helpers/fake-openai.js';
import { startGatewayUnderTest, type GatewayUnderTest } from '../helpers/gateway-under-test.js';

const ADMIN = 'test-admin-token-0123456789';
const KEY = 'sk-formats-0123456789abcdef';

// claude-*: 3 in, 15 out, 0.30 cache reads, 3.75 cache writes per 1M. The fake reports 21 input, 640 cache reads,
// 128 cache writes, 9 output: 21 x 3 + 640 x 0.3 + 128 x 3.75 + 9 x 15 = 870 per 1M, in any API the client speaks.
const CLAUDE_COST = 870_000n;
// gpt-4o: 2.50 in, 10 out, 1.25 cache reads: 19 x 2.5 + 12 x 1.25 + 7 x 10 = 132.5 per 1M.
const GPT_COST = 132_500n;

describe('billing in every API', () => {
  const claude = new FakeAnthropic();
  const gpt = new FakeOpenAI('gpt');
  let gw: GatewayUnderTest;

  before(async () => {
    await claude.start();
    await gpt.start();
    gw = await startGatewayUnderTest(`server: { port: 0, host: 127.0.0.1, admin_token: ${ADMIN} }
store: { url: "sqlite:./gateway.db" }
pricing:
  models:
    "claude-*": { input: 3, output: 15, cache_read: 0.30, cache_write: 3.75 }
    "gpt-4o": { input: 2.50, output: 10.00, cache_read: 1.25 }
groups:
  pro: { models: ["*"] }
accounts:
  - name: acme
keys:
  - { name: metered, key: ${KEY}, group: pro, account: acme }
channels:
  - { name: claude, type: anthropic, base_url: "${claude.url}", keys: [sk-ant], models: ["claude-*"] }
  - { name: gpt, type: openai, base_url: "${gpt.url}", keys: [sk-oai], models: ["gpt-*"] }
`);
    const credit = await fetch(`${gw.url}/admin/accounts/acme/credit`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ amount: '10', idempotency_key: 'start' }),
    });
    assert.equal(credit.status, 201);
  });
  after(async () => {
    await gw.stop();
    await claude.close();
    await gpt.close();
  });

  it('charges each request its price in Messages, Chat and Responses, native and translated, streamed or not', async () => {
    const messages = (model: string, stream: boolean): Promise<Response> =>
      fetch(`${gw.url}/v1/messages`, {
        method: 'POST',
        headers: { 'x-api-key': KEY, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
        body: JSON.stringify({ model, max_tokens: 64, stream, messages: [{ role: 'user', content: 'hi' }] }),
      });
    const chat = (model: string, stream: boolean): Promise<Response> =>
      fetch(`${gw.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model, max_tokens: 64, stream, ...(stream ? { stream_options: { include_usage: true } } : {}), messages: [{ role: 'user', content: 'hi' }] }),
      });
    const responses = (model: string, stream: boolean): Promise<Response> =>
      fetch(`${gw.url}/v1/responses`, {
        method: 'POST',
        headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model, max_output_tokens: 64, stream, input: 'hi' }),
      });
    const cases: [string, () => Promise<Response>, bigint][] = [];
    for (const stream of [false, true]) {
      cases.push([`messages, native${stream ? ', stream' : ''}`, () => messages('claude-sonnet-4-5', stream), CLAUDE_COST]);
      cases.push([`chat on an Anthropic channel${stream ? ', stream' : ''}`, () => chat('claude-sonnet-4-5', stream), CLAUDE_COST]);
      cases.push([`responses on an Anthropic channel${stream ? ', stream' : ''}`, () => responses('claude-sonnet-4-5', stream), CLAUDE_COST]);
      cases.push([`chat, native${stream ? ', stream' : ''}`, () => chat('gpt-4o', stream), GPT_COST]);
      cases.push([`messages on a Chat channel${stream ? ', stream' : ''}`, () => messages('gpt-4o', stream), GPT_COST]);
    }
    let expected = 0n;
    for (const [what, send] of cases) {
      const res = await send();
      assert.equal(res.status, 200, `${what}: ${await res.clone().text()}`);
      await res.text();
    }
    const records = await gw.usage();
    assert.equal(records.length, cases.length);
    for (const [i, [what, , cost]] of cases.entries()) {
      const record = records[cases.length - 1 - i];
      assert.equal(record?.cost, cost, `${what}: ${record?.promptTokens} in (${record?.cachedTokens} read, ${record?.cacheWriteTokens} written), ${record?.completionTokens} out`);
      expected += cost;
    }
    // The prices above were worked out from the fakes' usage.
    assert.deepEqual([DEFAULT_ANTHROPIC_USAGE.input, DEFAULT_ANTHROPIC_USAGE.cacheRead, DEFAULT_ANTHROPIC_USAGE.cacheWrite, DEFAULT_ANTHROPIC_USAGE.output], [21, 640, 128, 9]);
    assert.deepEqual([DEFAULT_USAGE.prompt, DEFAULT_USAGE.cached, DEFAULT_USAGE.completion], [31, 12, 7]);
    const account = await gw.gateway.runtime.deps.store.ledger.getAccount('acme');
    assert.equal(account?.balance, parseMoney('10') - expected, 'the balance drops by exactly the sum of the costs');
    assert.deepEqual((await auditBooks(gw.gateway.runtime.deps.store)).problems, []);
  });
});
