// A JSON body with a field the gateway reads given twice is a 400 on every JSON route (issue 40): JSON.parse keeps the
// last `model`, `store` or `max_tokens`, an upstream may keep the first, so the gateway routed, limited and priced
// another request than the one served. Over HTTP against fake upstreams: small bodies (parsed whole), large ones (read
// as a skeleton), a key spelled with an escape, the admin API and the asset library; repeated keys deeper in message
// content still go upstream byte for byte.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { FakeAnthropic } from '../helpers/fake-anthropic.js';
import { FakeOpenAI } from '../helpers/fake-openai.js';
import { startGatewayUnderTest, TEST_KEY, type GatewayUnderTest } from '../helpers/gateway-under-test.js';

const ADMIN = 'test-admin-token-0123456789';

describe('repeated keys among the fields the gateway reads', () => {
  const openai = new FakeOpenAI('openai');
  const claude = new FakeAnthropic('claude');
  let gw: GatewayUnderTest;
  const upstreamCalls = (): number => openai.requests.length + claude.requests.length;

  before(async () => {
    await Promise.all([openai.start(), claude.start()]);
    gw = await startGatewayUnderTest(`server: { port: 0, host: 127.0.0.1, admin_token: ${ADMIN} }
store: { url: "sqlite:./gateway.db" }
channels:
  - { name: openai, type: openai, base_url: "${openai.url}", keys: [sk-up-openai], models: ["gpt-*"], models_refresh_ms: 0 }
  - { name: claude, type: anthropic, base_url: "${claude.url}", keys: [sk-up-claude], models: ["claude-*"], models_refresh_ms: 0 }
  - { name: demo, type: mock, models: ["demo-*"], assets: true }
groups:
  pro: { models: ["*"] }
pricing: { unpriced: free }
keys:
  - { name: tester, key: ${TEST_KEY}, group: pro }
`);
  });

  after(async () => {
    await gw?.stop();
    await Promise.all([openai.close(), claude.close()]);
  });

  async function post(path: string, body: string, headers: Record<string, string> = {}): Promise<{ status: number; json: Record<string, unknown> }> {
    const res = await fetch(`${gw.url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json', ...headers },
      body,
    });
    const text = await res.text();
    return { status: res.status, json: JSON.parse(text) as Record<string, unknown> };
  }

  const MESSAGES = '"messages":[{"role":"user","content":"hi"}]';
  const LONG = `"messages":[${Array.from({ length: 40 }, () => `{"role":"user","content":"${'lorem ipsum '.repeat(40)}"}`).join(',')}]`;

  it('refuses a repeated model, stream, store or output cap in the API\'s shape, before any upstream call', async () => {
    const before = upstreamCalls();
    const cases: [string, string, 'openai' | 'anthropic'][] = [
      ['/v1/chat/completions', `{"model":"gpt-4o",${MESSAGES},"model":"gpt-4o-mini"}`, 'openai'],
      ['/v1/chat/completions', `{"model":"gpt-4o",${MESSAGES},"max_tokens":1,"max_tokens":100000}`, 'openai'],
      ['/v1/chat/completions', `{"model":"gpt-4o",${LONG},"model":"gpt-4o-mini"}`, 'openai'],
      ['/v1/chat/completions', `{"model":"gpt-4o",${MESSAGES},"mod\\u0065l":"gpt-4o-mini"}`, 'openai'],
      ['/v1/responses', `{"model":"gpt-4o","input":"hi","store":false,"store":true}`, 'openai'],
      ['/v1/responses', `{"model":"gpt-4o","input":"hi","stream":false,"stream":true}`, 'openai'],
      ['/v1/messages', `{"model":"claude-x","max_tokens":1,${MESSAGES},"max_tokens":100000}`, 'anthropic'],
      ['/v1/messages', `{"model":"claude-x","max_tokens":16,${LONG},"model":"claude-y"}`, 'anthropic'],
    ];
    const wrong: string[] = [];
    for (const [path, body, shape] of cases) {
      const answer = await post(path, body, shape === 'anthropic' ? { 'anthropic-version': '2023-06-01' } : {});
      const error = answer.json['error'] as Record<string, unknown> | undefined;
      const inShape = shape === 'anthropic' ? answer.json['type'] === 'error' && error?.['type'] === 'invalid_request_error' : error?.['type'] === 'invalid_request_error';
      if (answer.status !== 400 || !inShape || !String(error?.['message']).includes('more than once')) wrong.push(`${path} ${body.slice(0, 80)}: ${answer.status} ${JSON.stringify(answer.json)}`);
    }
    assert.deepEqual(wrong, []);
    assert.equal(upstreamCalls(), before);
  });

  it('passes repeated keys deeper down, in message content, upstream as sent', async () => {
    const body = `{"model":"gpt-4o","messages":[{"role":"user","content":"hi","name":"a","name":"b"}],"metadata":{"k":"1"}}`;
    const answer = await post('/v1/chat/completions', body);
    assert.equal(answer.status, 200, JSON.stringify(answer.json));
    assert.equal(openai.requests.at(-1)?.raw.toString(), body);
  });

  it('refuses any repeated field of the admin API and of the asset library, changing nothing', async () => {
    const admin = await fetch(`${gw.url}/admin/accounts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
      body: '{"name":"first","name":"second"}',
    });
    assert.equal(admin.status, 400, await admin.text());
    const accounts = await fetch(`${gw.url}/admin/accounts`, { headers: { authorization: `Bearer ${ADMIN}` } });
    assert.deepEqual(((await accounts.json()) as { data: { name: string }[] }).data.map((a) => a.name).filter((n) => n === 'first' || n === 'second'), []);
    const asset = await post('/v1/videogen/asset/CreateAssetGroup', '{"Name":"one","Name":"two"}');
    assert.equal(asset.status, 400, JSON.stringify(asset.json));
    assert.equal(((asset.json['ResponseMetadata'] as Record<string, unknown>)['Error'] as Record<string, unknown>)['Code'] !== undefined, true);
    const groups = await post('/v1/videogen/asset/ListAssetGroups', '{}');
    assert.equal((groups.json['Result'] as { TotalCount: number }).TotalCount, 0);
  });
});
