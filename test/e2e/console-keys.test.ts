// /console/api/keys over HTTP (issue 25): an account's user lists, creates (the key shown once), edits and revokes
// their account's tokens; another account's user reaching one by id gets the 404 of a missing key, and changes
// nothing; a user's limits stay within the group's; a revoked token gets 401; the operator sees every key.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { postChat } from '../helpers/chat-requests.js';
import { consoleAccountUser, consoleSignIn, creditAccount, type ConsoleSession } from '../helpers/console-session.js';
import { FakeOpenAI } from '../helpers/fake-openai.js';
import { startGatewayUnderTest, type GatewayUnderTest } from '../helpers/gateway-under-test.js';

const ADMIN = 'console-keys-admin-token-0123456789';

describe('console keys', () => {
  const upstream = new FakeOpenAI('up');
  let gw: GatewayUnderTest;
  const sessions: Record<string, { cookie: string; csrf: string }> = {};

  async function call(who: string, method: string, path: string, body?: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
    const s = sessions[who] as { cookie: string; csrf: string };
    const res = await fetch(`${gw.url}${path}`, {
      method,
      headers: { cookie: s.cookie, 'x-csrf-token': s.csrf, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, json: (await res.json()) as Record<string, unknown> };
  }

  async function signIn(who: string, body: Record<string, unknown>): Promise<void> {
    sessions[who] = await consoleSignIn(gw.url, body);
  }

  before(async () => {
    await upstream.start();
    gw = await startGatewayUnderTest(`server: { port: 0, host: 127.0.0.1, admin_token: ${ADMIN} }
store: { url: "sqlite:./gateway.db" }
pricing:
  models:
    "gpt-4o": { input: 2.50, output: 10.00, cache_read: 1.25 }
groups:
  pro: { models: ["*"], limits: { rpm: 100 } }
  cheap: { models: ["*"], price_multiplier: 0.1 }
accounts: [{ name: acme, groups: [pro] }, { name: globex, groups: [pro] }, { name: initech }]
channels:
  - { name: up, type: openai, base_url: "${upstream.url}", keys: [sk-up], models: ["gpt-*"], models_refresh_ms: 0 }
`);
    await signIn('operator', { admin_token: ADMIN });
    for (const [user, account] of [['ada', 'acme'], ['gus', 'globex']] as const) {
      sessions[user] = await consoleAccountUser(gw.url, sessions['operator'] as ConsoleSession, account, user, `${user} has a password`);
      await creditAccount(gw.url, ADMIN, account, '5.00');
    }
  });
  after(async () => {
    await gw.stop();
    await upstream.close();
  });

  let adaKey = '';
  let adaId = '';

  it('a user creates a token for their account (shown once) and lists only their account\'s', async () => {
    const made = await call('ada', 'POST', '/console/api/keys', { name: 'ada-laptop', group: 'pro', account: 'globex', max_spend: '1.00' });
    assert.equal(made.status, 201, JSON.stringify(made.json));
    adaKey = String(made.json['key']);
    adaId = String(made.json['id']);
    assert.equal(made.json['account'], 'acme', 'a user cannot make a key for another account');
    assert.deepEqual([made.json['spend'], made.json['max_spend_left']], ['0', '1']);
    assert.equal((await postChat(gw.url, { model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] }, { key: adaKey })).status, 200);
    assert.equal((await call('gus', 'POST', '/console/api/keys', { name: 'gus-ci', group: 'pro' })).status, 201);
    await gw.usage();
    const adaList = await call('ada', 'GET', '/console/api/keys?account=globex');
    const listed = adaList.json['data'] as { name: string; key?: string; spend: string; hash?: string }[];
    assert.deepEqual(listed.map((k) => k.name), ['ada-laptop'], 'their own account whatever they ask');
    assert.equal(listed[0]?.key, undefined, 'the key is never shown again');
    assert.notEqual(listed[0]?.spend, '0', 'the request was charged to the key');
    assert.deepEqual(((await call('gus', 'GET', '/console/api/keys')).json['data'] as { name: string }[]).map((k) => k.name), ['gus-ci']);
    assert.deepEqual(((await call('operator', 'GET', '/console/api/keys')).json['data'] as { name: string }[]).map((k) => k.name).sort(), ['ada-laptop', 'gus-ci']);
    assert.deepEqual(((await call('operator', 'GET', '/console/api/keys?account=globex')).json['data'] as { name: string }[]).map((k) => k.name), ['gus-ci']);
  });

  it('a user creates keys only in their account\'s groups, within the group\'s limits, and no field sneaks past the checks', async () => {
    const cheap = await call('ada', 'POST', '/console/api/keys', { name: 'ada-cheap', group: 'cheap' });
    assert.deepEqual([cheap.status, (cheap.json['error'] as { param: string; message: string }).param], [400, 'group']);
    assert.match((cheap.json['error'] as { message: string }).message, /your account's groups: pro\.$/, 'only its own groups are named');
    const over = await call('ada', 'POST', '/console/api/keys', { name: 'ada-fast', group: 'pro', limits: { rpm: 1000 } });
    assert.deepEqual([over.status, (over.json['error'] as { param: string }).param], [400, 'limits.rpm']);
    // A body whose "__proto__" carries limits: a field like any other, refused, never the checked object's prototype.
    const sneaky = await fetch(`${gw.url}/console/api/keys`, {
      method: 'POST',
      headers: { cookie: sessions['ada']?.cookie ?? '', 'x-csrf-token': sessions['ada']?.csrf ?? '', 'content-type': 'application/json' },
      body: '{"name":"ada-sneaky","group":"pro","__proto__":{"limits":{"rpm":1000000}}}',
    });
    assert.equal(sneaky.status, 400);
    assert.equal(((await sneaky.json()) as { error: { param: string } }).error.param, '__proto__');
    const names = ((await call('operator', 'GET', '/console/api/keys')).json['data'] as { name: string }[]).map((k) => k.name);
    assert.ok(!names.includes('ada-cheap') && !names.includes('ada-fast') && !names.includes('ada-sneaky'), names.join(' '));
    assert.equal((await call('operator', 'GET', '/console/api/keys?account=nowhere')).status, 404);
  });

  it('another account\'s user reaching a key by id gets a missing key\'s 404, and changes nothing', async () => {
    const missing = await call('gus', 'PATCH', '/console/api/keys/key_doesnotexist0000', { enabled: false });
    assert.equal(missing.status, 404);
    for (const [method, body] of [['PATCH', { enabled: false }], ['DELETE', undefined]] as const) {
      const res = await call('gus', method, `/console/api/keys/${adaId}`, body);
      assert.equal(res.status, 404, method);
      assert.deepEqual(Object.keys(res.json['error'] as object).sort(), Object.keys(missing.json['error'] as object).sort());
      assert.equal((res.json['error'] as { message: string }).message.replace(adaId, 'ID'), (missing.json['error'] as { message: string }).message.replace('key_doesnotexist0000', 'ID'));
    }
    assert.equal((await postChat(gw.url, { model: 'gpt-4o', messages: [{ role: 'user', content: 'still mine' }] }, { key: adaKey })).status, 200);
    const mine = ((await call('ada', 'GET', '/console/api/keys')).json['data'] as { id: string; enabled: boolean; revoked_at: unknown }[]).find((k) => k.id === adaId);
    assert.deepEqual([mine?.enabled, mine?.revoked_at], [true, null]);
  });

  it('a user\'s limits stay within the group\'s; edits apply at once; a revoked token gets 401', async () => {
    const over = await call('ada', 'PATCH', `/console/api/keys/${adaId}`, { limits: { rpm: 101 } });
    assert.deepEqual([over.status, (over.json['error'] as { param: string }).param], [400, 'limits.rpm']);
    const within = await call('ada', 'PATCH', `/console/api/keys/${adaId}`, { limits: { rpm: 50 }, name: 'ada-desktop' });
    assert.deepEqual([within.status, within.json['name'], within.json['limits']], [200, 'ada-desktop', { rpm: 50 }]);
    const off = await call('ada', 'PATCH', `/console/api/keys/${adaId}`, { enabled: false });
    assert.equal(off.json['enabled'], false);
    assert.equal((await postChat(gw.url, { model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] }, { key: adaKey })).status, 401);
    await call('ada', 'PATCH', `/console/api/keys/${adaId}`, { enabled: true });
    const revoked = await call('ada', 'DELETE', `/console/api/keys/${adaId}`);
    assert.equal(revoked.status, 200);
    assert.notEqual(revoked.json['revoked_at'], null);
    assert.equal((await postChat(gw.url, { model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] }, { key: adaKey })).status, 401);
  });
});
