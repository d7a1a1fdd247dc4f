// The console's sign-in API over HTTP (issue 25): the operator signs in with the admin token, makes an account's
// user and its one-time link; the user sets a password through it and signs in; the session lives in an HttpOnly,
// SameSite=Strict cookie and ends at logout; every change needs the session's CSRF token and a JSON body; an
// account's user cannot reach the operator's API; the 11th wrong password in a minute is refused; the CLI makes an
// operator user. Bodies and errors in the OpenAI-like shape of the admin API.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { runCli } from '../helpers/cli-process.js';
import { FakeOpenAI } from '../helpers/fake-openai.js';
import { channel, configWith, startGatewayUnderTest, type GatewayUnderTest } from '../helpers/gateway-under-test.js';

const ADMIN_TOKEN = 'test-admin-token-0123456789';

describe('console API: sign-in, sessions, CSRF', () => {
  let upstream: FakeOpenAI;
  let gw: GatewayUnderTest;

  before(async () => {
    upstream = await new FakeOpenAI('up').start();
    gw = await startGatewayUnderTest(configWith(channel('a', upstream.url)));
  });
  after(async () => {
    await gw.stop();
    await upstream.close();
  });

  interface Answer {
    readonly status: number;
    readonly json: Record<string, unknown>;
    readonly cookie: string | null;
  }

  async function call(method: string, path: string, options: { body?: unknown; cookie?: string; csrf?: string; contentType?: string } = {}): Promise<Answer> {
    const headers: Record<string, string> = {};
    if (options.body !== undefined || method !== 'GET') headers['content-type'] = options.contentType ?? 'application/json';
    if (options.cookie !== undefined) headers['cookie'] = options.cookie;
    if (options.csrf !== undefined) headers['x-csrf-token'] = options.csrf;
    const res = await fetch(`${gw.url}${path}`, { method, headers, ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }) });
    return { status: res.status, json: (await res.json()) as Record<string, unknown>, cookie: res.headers.get('set-cookie') };
  }

  /** The `name=value` part of a Set-Cookie, as a browser sends it back. */
  const cookieOf = (setCookie: string | null): string => (setCookie ?? '').split(';')[0] as string;
  const code = (a: Answer): unknown => (a.json['error'] as { code?: unknown } | undefined)?.code;

  let operator = { cookie: '', csrf: '' };
  let link = '';

  it('the operator signs in with the admin token: an HttpOnly, SameSite=Strict session cookie and a CSRF token', async () => {
    const wrong = await call('POST', '/console/api/session', { body: { admin_token: 'not-the-token-0123456789' } });
    assert.deepEqual([wrong.status, code(wrong)], [401, 'sign_in_failed']);
    const signed = await call('POST', '/console/api/session', { body: { admin_token: ADMIN_TOKEN } });
    assert.equal(signed.status, 200);
    assert.match(signed.cookie ?? '', /^gw_console=[A-Za-z0-9_-]{43}; Path=\/console; HttpOnly; SameSite=Strict; Max-Age=43(199|200)$/);
    assert.deepEqual(signed.json['user'], { name: 'admin-token', account: null, operator: true });
    operator = { cookie: cookieOf(signed.cookie), csrf: String(signed.json['csrf']) };
    const session = await call('GET', '/console/api/session', { cookie: operator.cookie });
    assert.deepEqual([session.status, session.json['csrf']], [200, operator.csrf]);
    assert.equal((await call('GET', '/console/api/session')).status, 401, 'no cookie, no session');
  });

  it('the operator makes an account\'s user: a one-time link; without the CSRF token or a JSON body, refused', async () => {
    assert.equal((await fetch(`${gw.url}/admin/accounts`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'acme' }) })).status, 201);
    const noCsrf = await call('POST', '/console/api/accounts/acme/users', { body: { name: 'ada' }, cookie: operator.cookie });
    assert.deepEqual([noCsrf.status, code(noCsrf)], [403, 'csrf_token_invalid']);
    const wrongCsrf = await call('POST', '/console/api/accounts/acme/users', { body: { name: 'ada' }, cookie: operator.cookie, csrf: `${operator.csrf}x` });
    assert.equal(wrongCsrf.status, 403);
    const form = await call('POST', '/console/api/accounts/acme/users', { body: { name: 'ada' }, cookie: operator.cookie, csrf: operator.csrf, contentType: 'application/x-www-form-urlencoded' });
    assert.equal(form.status, 400, 'a cross-site form cannot post here');
    const made = await call('POST', '/console/api/accounts/acme/users', { body: { name: 'ada' }, cookie: operator.cookie, csrf: operator.csrf });
    assert.equal(made.status, 201, JSON.stringify(made.json));
    assert.deepEqual(made.json['user'], { name: 'ada', account: 'acme', operator: false });
    link = String(made.json['link']);
    assert.match(link, /^\/console\/#\/password\/[A-Za-z0-9_-]{43}$/);
    const again = await call('POST', '/console/api/accounts/acme/users', { body: { name: 'ada' }, cookie: operator.cookie, csrf: operator.csrf });
    // Asked again for the same account's user: a new link (a password reset), not a second user.
    assert.deepEqual([again.status, (again.json['user'] as { account: string }).account], [201, 'acme']);
    assert.notEqual(again.json['link'], link);
    // The newer link ends the first: only the last one sent sets the password.
    const first = await call('POST', '/console/api/password', { body: { token: link.split('/').pop(), password: 'a password from the old link' } });
    assert.deepEqual([first.status, code(first)], [400, 'link_invalid']);
    link = String(again.json['link']);
    const nowhere = await call('POST', '/console/api/accounts/nowhere/users', { body: { name: 'bob' }, cookie: operator.cookie, csrf: operator.csrf });
    assert.equal(nowhere.status, 404);
    const reserved = await call('POST', '/console/api/accounts/acme/users', { body: { name: 'Admin-Token' }, cookie: operator.cookie, csrf: operator.csrf });
    assert.deepEqual([reserved.status, (reserved.json['error'] as { message: string }).message], [400, '"Admin-Token" is reserved.']);
    // Two session cookies (one planted by a sibling subdomain): neither is trusted.
    assert.equal((await call('GET', '/console/api/session', { cookie: `${operator.cookie}; gw_console=planted` })).status, 401);
  });

  it('the user sets a password through the link (once), signs in, sees their account; the operator\'s API is not theirs', async () => {
    const token = link.split('/').pop() as string;
    const set = await call('POST', '/console/api/password', { body: { token, password: 'ada chose this password' } });
    assert.deepEqual([set.status, set.json['user']], [200, { name: 'ada', account: 'acme', operator: false }]);
    const reused = await call('POST', '/console/api/password', { body: { token, password: 'another password here' } });
    assert.deepEqual([reused.status, code(reused)], [400, 'link_invalid']);
    const signed = await call('POST', '/console/api/session', { body: { name: 'ada', password: 'ada chose this password' } });
    assert.equal(signed.status, 200);
    const ada = { cookie: cookieOf(signed.cookie), csrf: String(signed.json['csrf']) };
    assert.deepEqual((await call('GET', '/console/api/session', { cookie: ada.cookie })).json['user'], { name: 'ada', account: 'acme', operator: false });
    const reach = await call('POST', '/console/api/accounts/acme/users', { body: { name: 'mallory' }, cookie: ada.cookie, csrf: ada.csrf });
    assert.deepEqual([reach.status, code(reach)], [403, 'operator_only']);

    // Logout ends the session: its cookie opens nothing after, and the answer clears it.
    const noCsrf = await call('DELETE', '/console/api/session', { cookie: ada.cookie });
    assert.equal(noCsrf.status, 403, 'logout needs the CSRF token too');
    const out = await call('DELETE', '/console/api/session', { cookie: ada.cookie, csrf: ada.csrf });
    assert.equal(out.status, 200);
    assert.match(out.cookie ?? '', /^gw_console=; .*Max-Age=0/);
    const after = await call('GET', '/console/api/session', { cookie: ada.cookie });
    assert.deepEqual([after.status, code(after)], [401, 'not_signed_in']);
  });

  it('gateway admin create-user makes an operator, who sets a password through its link and signs in', async () => {
    const made = await runCli(['admin', 'create-user', 'olga', '--config', gw.configPath]);
    assert.equal(made.code, 0, made.stderr);
    const token = String((JSON.parse(made.stdout) as { link: string }).link.split('/').pop());
    assert.equal((await call('POST', '/console/api/password', { body: { token, password: 'olga runs this gateway' } })).status, 200);
    const signed = await call('POST', '/console/api/session', { body: { name: 'olga', password: 'olga runs this gateway' } });
    assert.deepEqual([signed.status, signed.json['user']], [200, { name: 'olga', account: null, operator: true }]);
  });
  it('wrong passwords in a row from one address: the 11th failure is refused with 429, and then even the right one', async () => {
    // This address has failed before in this file (the wrong admin token), and its bucket refills one every 6 s:
    // whichever attempt it is, a 429 comes before the 11th wrong guess, and a right password then gets it too.
    const statuses: number[] = [];
    for (let i = 0; i < 11 && !statuses.includes(429); i++) {
      statuses.push((await call('POST', '/console/api/session', { body: { name: 'ada', password: `guess number ${i}` } })).status);
    }
    assert.equal(statuses.at(-1), 429, statuses.join(' '));
    assert.ok(statuses.slice(0, -1).every((st) => st === 401), statuses.join(' '));
    const locked = await call('POST', '/console/api/session', { body: { name: 'ada', password: 'ada chose this password' } });
    assert.equal(locked.status, 429);
  });

});
