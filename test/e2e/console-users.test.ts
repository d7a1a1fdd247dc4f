// The console's users and sessions over HTTP (issue 44): the operator lists an account's users, disables one (their
// sessions end at once, their sign-in is refused) and enables them again, and sends a new password link; a user
// changes their own password (the current one required; their other sessions end, this one stays), lists their
// sessions with where they signed in from, and ends another one. Isolation: an account's user is refused the
// operator's user routes (403); the operator cannot reach a user through another account (404); a user ending
// another user's session by its id gets a 404 and ends nothing. Also: a key's expiry in the past is refused (400), and
// the usage filters take a model prefix and a status code (the page and the CSV alike).

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { postChat } from '../helpers/chat-requests.js';
import { consoleAccountUser, consoleSignIn, creditAccount, type ConsoleSession } from '../helpers/console-session.js';
import { FakeOpenAI } from '../helpers/fake-openai.js';
import { startGatewayUnderTest, type GatewayUnderTest } from '../helpers/gateway-under-test.js';

const ADMIN = 'console-users-admin-token-0123456789';

interface Answer {
  readonly status: number;
  readonly json: Record<string, unknown>;
  readonly text: string;
}

describe('console users and sessions', () => {
  const upstream = new FakeOpenAI('up');
  const flaky = new FakeOpenAI('flaky');
  let gw: GatewayUnderTest;
  const sessions: Record<string, ConsoleSession> = {};

  async function call(who: ConsoleSession | string, method: string, path: string, body?: unknown, agent?: string): Promise<Answer> {
    const s = typeof who === 'string' ? (sessions[who] as ConsoleSession) : who;
    const headers: Record<string, string> = { cookie: s.cookie, 'x-csrf-token': s.csrf, 'content-type': 'application/json' };
    if (agent !== undefined) headers['user-agent'] = agent;
    const res = await fetch(`${gw.url}${path}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    const text = await res.text();
    return { status: res.status, text, json: res.headers.get('content-type')?.startsWith('application/json') === true ? (JSON.parse(text) as Record<string, unknown>) : {} };
  }
  const code = (a: Answer): unknown => (a.json['error'] as { code?: unknown } | undefined)?.code;
  const param = (a: Answer): unknown => (a.json['error'] as { param?: unknown } | undefined)?.param;

  async function signIn(name: string, password: string, agent: string): Promise<ConsoleSession> {
    const res = await fetch(`${gw.url}/console/api/session`, { method: 'POST', headers: { 'content-type': 'application/json', 'user-agent': agent }, body: JSON.stringify({ name, password }) });
    assert.equal(res.status, 200);
    return { cookie: (res.headers.get('set-cookie') ?? '').split(';')[0] as string, csrf: String(((await res.json()) as { csrf: string }).csrf) };
  }

  before(async () => {
    await upstream.start();
    await flaky.start();
    flaky.reply = () => ({ kind: 'status', status: 503 });
    gw = await startGatewayUnderTest(`server: { port: 0, host: 127.0.0.1, admin_token: ${ADMIN} }
store: { url: "sqlite:./gateway.db" }
pricing:
  models:
    "gpt-*": { input: 2.50, output: 10.00 }
groups:
  pro: { models: ["*"] }
accounts: [{ name: acme, groups: [pro] }, { name: globex, groups: [pro] }]
channels:
  - { name: up, type: openai, base_url: "${upstream.url}", keys: [sk-up-0000000000], models: ["gpt-4o", "gpt-4o-mini"], models_refresh_ms: 0 }
  - { name: flaky, type: openai, base_url: "${flaky.url}", keys: [sk-flaky-00000000], models: ["gpt-flaky"], models_refresh_ms: 0, cooldown_ms: 60000 }
`);
    sessions['operator'] = await consoleSignIn(gw.url, { admin_token: ADMIN });
    sessions['ada'] = await consoleAccountUser(gw.url, sessions['operator'] as ConsoleSession, 'acme', 'ada', 'ada has a long password');
    sessions['bob'] = await consoleAccountUser(gw.url, sessions['operator'] as ConsoleSession, 'acme', 'bob', 'bob has a long password');
    sessions['gus'] = await consoleAccountUser(gw.url, sessions['operator'] as ConsoleSession, 'globex', 'gus', 'gus has a long password');
  });
  after(async () => {
    await gw.stop();
    await upstream.close();
    await flaky.close();
  });

  it('the operator lists an account\'s users; a user of the account is refused (403), and so is their reach into another', async () => {
    const listed = await call('operator', 'GET', '/console/api/accounts/acme/users');
    assert.equal(listed.status, 200, listed.text);
    const data = listed.json['data'] as Record<string, unknown>[];
    assert.deepEqual(data.map((u) => [u['name'], u['account'], u['disabled'], u['password_set'], u['sessions']]), [['ada', 'acme', false, true, 1], ['bob', 'acme', false, true, 1]]);
    assert.match(String(data[0]?.['last_seen_at']), /^\d{4}-\d{2}-\d{2}T/);
    assert.doesNotMatch(listed.text, /scrypt|password_hash/, 'no hash in the answer');
    for (const [method, path, body] of [
      ['GET', '/console/api/accounts/acme/users', undefined],
      ['GET', '/console/api/accounts/globex/users', undefined],
      ['PATCH', '/console/api/accounts/globex/users/gus', { disabled: true }],
      ['PATCH', '/console/api/accounts/acme/users/bob', { disabled: true }],
      ['POST', '/console/api/accounts/acme/users', { name: 'bob' }],
    ] as const) {
      const refused = await call('ada', method, path, body);
      assert.deepEqual([refused.status, code(refused)], [403, 'operator_only'], `${method} ${path}`);
    }
    assert.equal((await call('gus', 'GET', '/console/api/session')).status, 200, 'gus was not disabled by ada');
    assert.equal((await call('bob', 'GET', '/console/api/session')).status, 200, 'nor bob');
    // The operator names the user within its own account: gus through acme's path is no user of acme.
    const crossed = await call('operator', 'PATCH', '/console/api/accounts/acme/users/gus', { disabled: true });
    assert.deepEqual([crossed.status, code(crossed)], [404, 'unknown_url']);
    assert.equal((await call('gus', 'GET', '/console/api/session')).status, 200);
    assert.equal((await call('operator', 'GET', '/console/api/accounts/nowhere/users')).status, 404);
    const bad = await call('operator', 'PATCH', '/console/api/accounts/acme/users/bob', { disabled: 'yes' });
    assert.deepEqual([bad.status, param(bad)], [400, 'disabled']);
  });

  it('disabling a user ends their sessions and refuses their sign-in; enabled again, they sign in; a new link resets the password', async () => {
    const disabled = await call('operator', 'PATCH', '/console/api/accounts/acme/users/bob', { disabled: true });
    assert.deepEqual([disabled.status, disabled.json['disabled'], disabled.json['sessions']], [200, true, 0]);
    assert.deepEqual([(await call('bob', 'GET', '/console/api/session')).status], [401], 'the session ended');
    const refused = await fetch(`${gw.url}/console/api/session`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'bob', password: 'bob has a long password' }) });
    assert.equal(refused.status, 401);
    const enabled = await call('operator', 'PATCH', '/console/api/accounts/acme/users/bob', { disabled: false });
    assert.deepEqual([enabled.status, enabled.json['disabled']], [200, false]);
    assert.equal((await call('bob', 'GET', '/console/api/session')).status, 401, 'enabling revives no ended session');
    sessions['bob'] = await signIn('bob', 'bob has a long password', 'bob-browser');
    // A new password link for an existing user: the same route that made them.
    const link = await call('operator', 'POST', '/console/api/accounts/acme/users', { name: 'bob' });
    assert.equal(link.status, 201);
    const token = String(link.json['link']).split('/').pop() ?? '';
    const set = await fetch(`${gw.url}/console/api/password`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token, password: 'bob got a new password' }) });
    assert.equal(set.status, 200);
    assert.equal((await call('bob', 'GET', '/console/api/session')).status, 401, 'a password set by link ends every session');
    sessions['bob'] = await signIn('bob', 'bob got a new password', 'bob-browser');
  });

  it('a user sees their own sessions with address and user agent, changes their password and ends another session', async () => {
    const laptop = await signIn('ada', 'ada has a long password', 'ada-laptop-browser');
    const phone = await signIn('ada', 'ada has a long password', 'ada-phone-browser');
    const listed = await call(laptop, 'GET', '/console/api/sessions');
    assert.equal(listed.status, 200, listed.text);
    const mine = listed.json['data'] as { id: string; current: boolean; address: string; user_agent: string | null }[];
    assert.equal(mine.length, 3);
    assert.deepEqual(mine.filter((s) => s.current).map((s) => s.user_agent), ['ada-laptop-browser']);
    assert.ok(mine.every((s) => s.address === '127.0.0.1'), JSON.stringify(mine));
    assert.ok(!listed.text.includes(laptop.cookie.split('=')[1] ?? 'x'), 'no session token in the answer');

    // Another user's session by its id: missing, and it stays.
    const gusId = ((await call('gus', 'GET', '/console/api/sessions')).json['data'] as { id: string }[])[0]?.id ?? '';
    const foreign = await call(laptop, 'DELETE', `/console/api/sessions/${gusId}`);
    assert.deepEqual([foreign.status, code(foreign)], [404, 'unknown_url']);
    assert.equal((await call('gus', 'GET', '/console/api/session')).status, 200);

    // Ends the phone's session: its cookie opens nothing more; the laptop's stays.
    const phoneId = mine.find((s) => s.user_agent === 'ada-phone-browser')?.id ?? '';
    assert.equal((await call(laptop, 'DELETE', `/console/api/sessions/${phoneId}`)).status, 200);
    assert.equal((await call(phone, 'GET', '/console/api/session')).status, 401);
    assert.equal((await call(laptop, 'GET', '/console/api/session')).status, 200);

    // A wrong current password changes nothing; the right one ends every other session (the first sign-in's) and keeps this one.
    const wrong = await call(laptop, 'POST', '/console/api/password/change', { current_password: 'not my password', password: 'ada has a newer password' });
    assert.deepEqual([wrong.status, code(wrong), param(wrong)], [400, 'current_password_wrong', 'current_password']);
    const short = await call(laptop, 'POST', '/console/api/password/change', { current_password: 'ada has a long password', password: 'short' });
    assert.equal(short.status, 400);
    const changed = await call(laptop, 'POST', '/console/api/password/change', { current_password: 'ada has a long password', password: 'ada has a newer password' });
    assert.deepEqual([changed.status, changed.json], [200, { changed: true, sessions_ended: 1 }]);
    assert.equal((await call('ada', 'GET', '/console/api/session')).status, 401, 'the other session ended');
    assert.equal((await call(laptop, 'GET', '/console/api/session')).status, 200, 'this one stays');
    const old = await fetch(`${gw.url}/console/api/session`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'ada', password: 'ada has a long password' }) });
    assert.equal(old.status, 401, 'the old password is gone');
    sessions['ada'] = await signIn('ada', 'ada has a newer password', 'ada-laptop-browser');
    assert.equal((await call(sessions['operator'] as ConsoleSession, 'POST', '/console/api/password/change', { current_password: 'x', password: 'a password of ten' })).status, 400, 'the admin token has no password');
  });

  it('a key cannot be made or edited to expire in the past (400); in the future it can', async () => {
    const past = await call('ada', 'POST', '/console/api/keys', { name: 'ada-dead', group: 'pro', expires_at: '2020-01-01' });
    assert.deepEqual([past.status, param(past)], [400, 'expires_at']);
    const made = await call('ada', 'POST', '/console/api/keys', { name: 'ada-key', group: 'pro', expires_at: '2099-01-01' });
    assert.equal(made.status, 201, made.text);
    const edited = await call('ada', 'PATCH', `/console/api/keys/${String(made.json['id'])}`, { expires_at: new Date(Date.now() - 60_000).toISOString() });
    assert.deepEqual([edited.status, param(edited)], [400, 'expires_at']);
    sessions['ada-key'] = { cookie: String(made.json['key']), csrf: '' };
  });

  it('the usage log and its CSV filter by a model prefix and by a status code', async () => {
    await creditAccount(gw.url, ADMIN, 'acme', '5.00');
    const key = sessions['ada-key']?.cookie ?? '';
    for (const model of ['gpt-4o', 'gpt-4o-mini', 'gpt-flaky']) await postChat(gw.url, { model, messages: [{ role: 'user', content: 'hi' }] }, { key });
    await gw.usage();
    const models = async (query: string): Promise<string[]> => ((await call('ada', 'GET', `/console/api/usage?${query}`)).json['data'] as { model: string }[]).map((r) => r.model).sort();
    assert.deepEqual(await models('model=gpt-4o'), ['gpt-4o', 'gpt-4o-mini']);
    assert.deepEqual(await models('model=gpt-4o-'), ['gpt-4o-mini']);
    assert.deepEqual(await models('model=GPT'), [], 'case counts');
    assert.deepEqual(await models('status=503'), ['gpt-flaky']);
    assert.deepEqual(await models('status=200&model=gpt'), ['gpt-4o', 'gpt-4o-mini']);
    const totals = (await call('ada', 'GET', '/console/api/usage?model=gpt-4o')).json['totals'] as { requests: number };
    assert.equal(totals.requests, 2);
    const csv = await fetch(`${gw.url}/console/api/usage.csv?model=gpt-4o&status=200`, { headers: { cookie: sessions['ada']?.cookie ?? '' } });
    const lines = (await csv.text()).trimEnd().split('\r\n');
    assert.equal(lines.length, 3, lines.join('\n'));
    assert.equal((await call('ada', 'GET', '/console/api/usage?status=42')).status, 400);
  });
});
