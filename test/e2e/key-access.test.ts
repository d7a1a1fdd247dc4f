// What a run-time key may do (issue 25): an expiry, enabled or disabled, a model allow-list within its group's and
// an IP allow-list, set through the admin API (PATCH /admin/keys/{id}) and the CLI (keys update), each enforced by
// auth on chat, messages, responses and images in the route's own error shape: 401 for an expired or disabled key,
// 403 for a model or an address not allowed. Nothing refused reaches an upstream. Bad values are a 400 naming the
// field and change nothing; an edit by another key's name or a missing id is a 404.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { postRoute } from '../helpers/chat-requests.js';
import { runCli } from '../helpers/cli-process.js';
import { FakeAnthropic } from '../helpers/fake-anthropic.js';
import { FakeOpenAI } from '../helpers/fake-openai.js';
import { FakeOpenAIImages } from '../helpers/fake-openai-images.js';
import { FakeResponses } from '../helpers/fake-responses.js';
import { startGatewayUnderTest, type GatewayUnderTest } from '../helpers/gateway-under-test.js';
import { until } from '../helpers/poll.js';

const ADMIN = 'access-admin-token-0123456789';

const ROUTES: readonly [string, Record<string, unknown>][] = [
  ['/v1/chat/completions', { model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] }],
  ['/v1/messages', { model: 'claude-sonnet-4-5', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] }],
  ['/v1/responses', { model: 'gpt-5', input: 'hi' }],
  ['/v1/images/generations', { model: 'gpt-image-1', prompt: 'a lighthouse' }],
];

describe('key access: expiry, enabled, model and IP allow-lists', () => {
  const chat = new FakeOpenAI('chat');
  const responses = new FakeResponses('responses');
  const images = new FakeOpenAIImages('images');
  const claude = new FakeAnthropic('claude');
  let gw: GatewayUnderTest;
  const upstreamCalls = (): number => chat.requests.length + responses.requests.length + images.requests.length + claude.requests.length;

  before(async () => {
    for (const fake of [chat, responses, images, claude]) await fake.start();
    gw = await startGatewayUnderTest(
      `server: { port: 0, host: 127.0.0.1, admin_token: ${ADMIN} }
store: { url: "sqlite:./gateway.db" }
channels:
  - { name: chat, type: openai, base_url: "${chat.url}", keys: [sk-up-chat], models: ["gpt-4o", "gpt-4o-mini"], models_refresh_ms: 0 }
  - { name: responses, type: openai, base_url: "${responses.url}", keys: [sk-up-resp], models: ["gpt-5"], models_refresh_ms: 0 }
  - { name: images, type: openai, base_url: "${images.url}", keys: [sk-up-img], models: ["gpt-image-1"], models_refresh_ms: 0 }
  - { name: claude, type: anthropic, base_url: "${claude.url}", keys: [sk-ant-up], models: ["claude-*"], models_refresh_ms: 0 }
groups:
  teams: { models: ["gpt-*", "claude-*"] }
pricing: { unpriced: free }
`,
    );
  });
  after(async () => {
    await gw.stop();
    for (const fake of [chat, responses, images, claude]) await fake.close();
  });

  const admin = async (method: string, path: string, body?: unknown): Promise<{ status: number; json: Record<string, unknown> }> => {
    const res = await fetch(`${gw.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, json: (await res.json()) as Record<string, unknown> };
  };

  const post = (path: string, key: string, body: Record<string, unknown>): Promise<Response> => postRoute(gw.url, path, key, body);

  /** Each route's answer to `key`: the status and the error in the route's shape (type for Anthropic, code else). */
  async function everyRoute(key: string): Promise<string[]> {
    const out: string[] = [];
    for (const [path, body] of ROUTES) {
      const res = await post(path, key, body);
      const json = (await res.json()) as { type?: string; error?: { type?: string; code?: string; message?: string } };
      if (res.status < 300) out.push(`${res.status}`);
      else if (path.startsWith('/v1/messages')) {
        assert.equal(json.type, 'error', JSON.stringify(json));
        out.push(`${res.status} ${json.error?.type}`);
      } else out.push(`${res.status} ${json.error?.code}`);
    }
    return out;
  }

  let key = '';
  let id = '';

  it('a new key serves every route; its settings are listed', async () => {
    const created = await admin('POST', '/admin/keys', { name: 'guarded', group: 'teams' });
    assert.equal(created.status, 201);
    key = String(created.json['key']);
    id = String(created.json['id']);
    assert.deepEqual([created.json['enabled'], created.json['expires_at'], created.json['models'], created.json['ips']], [true, null, null, null]);
    assert.deepEqual(await everyRoute(key), ['200', '200', '200', '200']);
  });

  it('expired: 401 on every route, nothing sent upstream; a later expiry serves again', async () => {
    const edited = await admin('PATCH', `/admin/keys/${id}`, { expires_at: new Date(Date.now() - 1000).toISOString() });
    assert.equal(edited.status, 200, JSON.stringify(edited.json));
    const calls = upstreamCalls();
    assert.deepEqual(await everyRoute(key), ['401 invalid_api_key', '401 authentication_error', '401 invalid_api_key', '401 invalid_api_key']);
    const res = await post('/v1/chat/completions', key, ROUTES[0]?.[1] as Record<string, unknown>);
    assert.match(((await res.json()) as { error: { message: string } }).error.message, /expired at \d{4}-/);
    assert.equal(upstreamCalls(), calls);
    await admin('PATCH', `/admin/keys/${id}`, { expires_at: new Date(Date.now() + 3_600_000).toISOString() });
    assert.deepEqual(await everyRoute(key), ['200', '200', '200', '200']);
    await admin('PATCH', `/admin/keys/guarded`, { expires_at: null });
  });

  it('disabled: 401 on every route; enabled again, served', async () => {
    assert.equal((await admin('PATCH', `/admin/keys/${id}`, { enabled: false })).json['enabled'], false);
    const calls = upstreamCalls();
    assert.deepEqual(await everyRoute(key), ['401 invalid_api_key', '401 authentication_error', '401 invalid_api_key', '401 invalid_api_key']);
    const res = await post('/v1/chat/completions', key, ROUTES[0]?.[1] as Record<string, unknown>);
    assert.match(((await res.json()) as { error: { message: string } }).error.message, /disabled/);
    assert.equal(upstreamCalls(), calls);
    await admin('PATCH', `/admin/keys/${id}`, { enabled: true });
    assert.deepEqual(await everyRoute(key), ['200', '200', '200', '200']);
  });

  it('a model allow-list: 403 for the others, on every route', async () => {
    const edited = await admin('PATCH', `/admin/keys/${id}`, { models: ['gpt-4o', 'claude-*'] });
    assert.deepEqual(edited.json['models'], ['gpt-4o', 'claude-*']);
    const calls = upstreamCalls();
    // gpt-4o and claude-* allowed; gpt-5 (responses) and gpt-image-1 (images) not.
    assert.deepEqual(await everyRoute(key), ['200', '200', '403 model_not_allowed', '403 model_not_allowed']);
    assert.equal(upstreamCalls(), calls + 2);
    const mini = await post('/v1/chat/completions', key, { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });
    assert.equal(mini.status, 403);
    assert.match(((await mini.json()) as { error: { message: string } }).error.message, /"guarded" does not have access to model "gpt-4o-mini"/);
    // The model list shows what the key may call, no more.
    const list = (await (await fetch(`${gw.url}/v1/models`, { headers: { authorization: `Bearer ${key}` } })).json()) as { data: { id: string }[] };
    const ids = list.data.map((m) => m.id);
    assert.ok(ids.includes('gpt-4o') && ids.every((m) => m === 'gpt-4o' || m.startsWith('claude-')), JSON.stringify(ids));
    assert.equal((await fetch(`${gw.url}/v1/models/gpt-5`, { headers: { authorization: `Bearer ${key}` } })).status, 404);
    await admin('PATCH', `/admin/keys/${id}`, { models: null });
    assert.deepEqual(await everyRoute(key), ['200', '200', '200', '200']);
    const all = (await (await fetch(`${gw.url}/v1/models`, { headers: { authorization: `Bearer ${key}` } })).json()) as { data: { id: string }[] };
    assert.ok(all.data.some((m) => m.id === 'gpt-5'));
  });

  it('an IP allow-list: 403 from elsewhere, on every route, before the body is read; served from an allowed address', async () => {
    await admin('PATCH', `/admin/keys/${id}`, { ips: ['203.0.113.0/24', '2001:db8::/32'] });
    const calls = upstreamCalls();
    assert.deepEqual(await everyRoute(key), ['403 ip_not_allowed', '403 permission_error', '403 ip_not_allowed', '403 ip_not_allowed']);
    assert.equal(upstreamCalls(), calls);
    // The test talks from 127.0.0.1.
    await admin('PATCH', `/admin/keys/${id}`, { ips: ['127.0.0.0/8'] });
    assert.deepEqual(await everyRoute(key), ['200', '200', '200', '200']);
    await admin('PATCH', `/admin/keys/${id}`, { ips: null });
  });

  it('bad edits: 400 naming the field, nothing changed; an unknown key is 404', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ expires_at: 'tomorrow' }, 'expires_at'],
      [{ enabled: 'no' }, 'enabled'],
      [{ models: ['o3'] }, 'models'], // not within the group's gpt-*, claude-*
      [{ models: ['*'] }, 'models'], // a glob wider than the group's
      [{ models: [] }, 'models'],
      [{ ips: ['10.0.0.300/8'] }, 'ips'],
      [{ ips: ['10.0.0.0/33'] }, 'ips'],
      [{ group: 'teams' }, 'group'],
      [{ limits: { rpm: 0 } }, 'limits.rpm'],
      [{ limits: { rps: null } }, 'limits.rps'],
      [{ expires_at: '2027-02-30' }, 'expires_at'], // no such day
      [{ expires_at: '2027-01-31T00:00:00' }, 'expires_at'], // no offset: whose midnight?
    ];
    for (const [body, param] of cases) {
      const res = await admin('PATCH', `/admin/keys/${id}`, body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal((res.json['error'] as { param: string }).param, param, JSON.stringify(body));
    }
    const listed = await admin('GET', '/admin/keys');
    const now = (listed.json['data'] as Record<string, unknown>[]).find((k) => k['id'] === id) as Record<string, unknown>;
    assert.deepEqual([now['enabled'], now['expires_at'], now['models'], now['ips'], now['limits']], [true, null, null, null, undefined]);
    assert.equal((await admin('PATCH', '/admin/keys/no-such-key', { enabled: false })).status, 404);
    const typo = await admin('POST', '/admin/keys', { name: 'typo', group: 'teams', expire_at: '2027-01-01' });
    assert.deepEqual([typo.status, (typo.json['error'] as { param: string }).param], [400, 'expire_at'], 'a misspelled field is not ignored');
  });

  it('limits: an edit replaces the limits it names, null clears one, the others stay', async () => {
    await admin('PATCH', `/admin/keys/${id}`, { limits: { rpm: 100, tpm: 50_000, concurrency: 4 } });
    assert.deepEqual((await admin('PATCH', `/admin/keys/${id}`, { limits: { rpm: 5 } })).json['limits'], { rpm: 5, tpm: 50_000, concurrency: 4 });
    assert.deepEqual((await admin('PATCH', `/admin/keys/${id}`, { limits: { tpm: null } })).json['limits'], { rpm: 5, concurrency: 4 });
    assert.equal((await admin('PATCH', `/admin/keys/${id}`, { limits: null })).json['limits'], undefined);
    assert.equal((await admin('PATCH', `/admin/keys/${id}`, { expires_at: '2999-12-31' })).json['expires_at'], '2999-12-31T00:00:00.000Z');
    await admin('PATCH', `/admin/keys/${id}`, { expires_at: null });
  });

  it('the CLI: keys update sets and clears; the running gateway applies it', async () => {
    const disabled = await runCli(['keys', 'update', 'guarded', '--disable', '--models', 'gpt-4o', '--ips', '127.0.0.1', '--expires', '2999-01-01T00:00:00Z', '--config', gw.configPath]);
    assert.equal(disabled.code, 0, disabled.stderr);
    const shown = JSON.parse(disabled.stdout) as Record<string, unknown>;
    assert.deepEqual([shown['enabled'], shown['models'], shown['ips'], shown['expires_at']], [false, ['gpt-4o'], ['127.0.0.1'], '2999-01-01T00:00:00.000Z']);
    // The CLI is another process: this gateway sees the edit when its key cache (5 s) expires.
    await until(
      "the gateway applies the CLI's edit",
      async () => ((await post('/v1/chat/completions', key, ROUTES[0]?.[1] as Record<string, unknown>)).status === 401 ? true : undefined),
      { timeoutMs: 10_000, intervalMs: 50 },
    );
    const enabled = await runCli(['keys', 'update', id, '--enable', '--models', 'group', '--ips', 'any', '--expires', 'never', '--config', gw.configPath]);
    assert.equal(enabled.code, 0, enabled.stderr);
    assert.deepEqual(
      (['enabled', 'models', 'ips', 'expires_at'] as const).map((f) => (JSON.parse(enabled.stdout) as Record<string, unknown>)[f]),
      [true, null, null, null],
    );
    const bad = await runCli(['keys', 'update', 'guarded', '--ips', 'not-an-address', '--config', gw.configPath]);
    assert.notEqual(bad.code, 0);
    assert.match(bad.stderr, /ips must be a list/);
    const both = await runCli(['keys', 'update', 'guarded', '--enable', '--disable', '--config', gw.configPath]);
    assert.notEqual(both.code, 0);
    assert.match(both.stderr, /contradict/);
  });

  it('a revoked key cannot be edited (a 400 that says so), and stays refused', async () => {
    const made = await admin('POST', '/admin/keys', { name: 'gone', group: 'teams' });
    await admin('DELETE', '/admin/keys/gone');
    const edit = await admin('PATCH', '/admin/keys/gone', { enabled: true });
    assert.equal(edit.status, 400);
    assert.match((edit.json['error'] as { message: string }).message, /revoked/);
    assert.equal((await post('/v1/chat/completions', String(made.json['key']), ROUTES[0]?.[1] as Record<string, unknown>)).status, 401);
  });

  it('X-Forwarded-For is believed only from server.trusted_proxies', async () => {
    const made = await admin('POST', '/admin/keys', { name: 'proxied', group: 'teams', ips: ['203.0.113.0/24'] });
    const proxiedKey = String(made.json['key']);
    const viaProxy = (url: string): Promise<Response> =>
      fetch(`${url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${proxiedKey}`, 'content-type': 'application/json', 'x-forwarded-for': '203.0.113.5' },
        body: JSON.stringify(ROUTES[0]?.[1]),
      });
    // This gateway trusts no proxy: the header is the client's own say, and the peer (127.0.0.1) is refused.
    assert.equal((await viaProxy(gw.url)).status, 403);
    const behind = await startGatewayUnderTest(
      `server: { port: 0, host: 127.0.0.1, trusted_proxies: ["127.0.0.1"] }
store: { url: "sqlite:${gw.configPath.replace(/gateway\.yaml$/, 'gateway.db')}" }
channels:
  - { name: chat, type: openai, base_url: "${chat.url}", keys: [sk-up-chat], models: ["gpt-4o"], models_refresh_ms: 0 }
groups:
  teams: { models: ["gpt-*", "claude-*"] }
pricing: { unpriced: free }
`,
    );
    try {
      const res = await viaProxy(behind.url);
      assert.equal(res.status, 200, await res.text());
    } finally {
      await behind.stop();
    }
  });
});
