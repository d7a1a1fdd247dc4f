// Console sessions for tests over HTTP: sign in (the cookie as a browser sends it back, and the CSRF token), make an
// account's user through the operator's link and set its password, credit an account through the admin API.

import assert from 'node:assert/strict';

export interface ConsoleSession {
  /** `gw_console=<token>`, as a browser sends the cookie back. */
  readonly cookie: string;
  readonly csrf: string;
}

/** Signs in with `{name, password}` or `{admin_token}`; fails the test unless it is a 200. */
export async function consoleSignIn(url: string, body: Record<string, unknown>): Promise<ConsoleSession> {
  const res = await fetch(`${url}/console/api/session`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  assert.equal(res.status, 200);
  return { cookie: (res.headers.get('set-cookie') ?? '').split(';')[0] as string, csrf: String(((await res.json()) as { csrf: string }).csrf) };
}

/** The operator makes `name` a user of `account`; the user sets `password` through the link, then signs in. */
export async function consoleAccountUser(url: string, operator: ConsoleSession, account: string, name: string, password: string): Promise<ConsoleSession> {
  const made = await fetch(`${url}/console/api/accounts/${account}/users`, {
    method: 'POST',
    headers: { cookie: operator.cookie, 'x-csrf-token': operator.csrf, 'content-type': 'application/json' },
    body: JSON.stringify({ name }),
  });
  const token = String(((await made.json()) as { link: string }).link.split('/').pop());
  await fetch(`${url}/console/api/password`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token, password }) });
  return consoleSignIn(url, { name, password });
}

/** Credits `account` with `amount` through the admin API, once (the idempotency key names the account). */
export async function creditAccount(url: string, adminToken: string, account: string, amount: string): Promise<void> {
  await fetch(`${url}/admin/accounts/${account}/credit`, {
    method: 'POST',
    headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ amount, idempotency_key: `start-${account}` }),
  });
}
