// console (terminal): the web console's API under /console/api. A session comes from signing in (a password, or
// the operator's admin token) and lives server-side (core/console/sign-in.ts); its cookie authenticates every call
// after, and every call that changes something also carries the session's CSRF token in x-csrf-token. Bodies are
// JSON (a cross-site form cannot send that content type without the browser asking first, which the gateway
// never allows).

import { GatewayError, createConsoleUser, type GatewayServices, type Plugin, type PluginFactory, type RelayResult, type RequestContext } from '../../core/index.js';
import { sessionCookie, sessionToken } from './cookie.js';
import { dashboard } from './dashboard.js';
import { keysAnswer } from './keys.js';
import type { ConsoleOptions } from './options.gen.js';

export const consolePlugin: PluginFactory<ConsoleOptions> = {
  name: 'console',
  create(_options, services): Plugin {
    return { name: 'console', relay: (ctx) => answer(ctx, services) };
  },
};

async function answer(ctx: RequestContext, services: GatewayServices): Promise<RelayResult> {
  const signIn = services.consoleSignIn;
  const path = ctx.path ?? ctx.route;
  const method = ctx.method ?? 'POST';
  if (method !== 'GET') requireJson(ctx);
  if (path === '/console/api/session' && method === 'POST') {
    const body = ctx.request.head;
    const signed =
      typeof body['admin_token'] === 'string'
        ? await signIn.withAdminToken(body['admin_token'], ctx.clientAddress)
        : await signIn.withPassword(text(body['name'], 'name'), text(body['password'], 'password'), ctx.clientAddress);
    const maxAgeS = Math.floor((signed.expiresAt - Date.now()) / 1000);
    return json(200, { user: describeUser(signed.user), csrf: signed.csrf }, { 'set-cookie': sessionCookie(ctx, signed.token, maxAgeS) });
  }
  if (path === '/console/api/password' && method === 'POST') {
    const body = ctx.request.head;
    const user = await signIn.setPassword(text(body['token'], 'token'), text(body['password'], 'password'));
    return json(200, { user: describeUser(user) });
  }
  const token = sessionToken(ctx);
  const session = await signIn.session(token);
  if (session === undefined) throw new GatewayError('GW_ERR_CONSOLE_SIGNED_OUT', 'Sign in to the console first.');
  // Every change carries the session's CSRF token: a request another site makes the browser send cannot know it.
  if (method !== 'GET' && ctx.headers['x-csrf-token'] !== session.csrf) {
    throw new GatewayError('GW_ERR_CONSOLE_CSRF', 'This request lacks the session\'s CSRF token (x-csrf-token).');
  }
  if (path === '/console/api/session' && method === 'GET') return json(200, { user: describeUser(session.user), csrf: session.csrf });
  if (path === '/console/api/session' && method === 'DELETE') {
    await signIn.signOut(token);
    return json(200, { signed_out: true }, { 'set-cookie': sessionCookie(ctx, '', 0) });
  }
  if (path === '/console/api/dashboard' && method === 'GET') {
    const query = new URLSearchParams(ctx.query);
    // A user sees their own account, whatever they ask; an operator the one asked for, or all.
    const scope = session.user.account ?? query.get('account');
    if (session.user.account === null && scope !== null && (await services.store.ledger.getAccount(scope)) === undefined) {
      throw new GatewayError('GW_ERR_ROUTE_NOT_FOUND', `No account named "${scope}".`);
    }
    return json(200, await dashboard(services, scope, query));
  }
  if (path === '/console/api/keys' || path.startsWith('/console/api/keys/')) {
    const answered = await keysAnswer(ctx, services, session.user);
    return json(answered.status, answered.body);
  }
  const account = ctx.params?.['name'];
  if (account !== undefined && path.endsWith('/users') && method === 'POST') {
    operatorOnly(session.user);
    if ((await services.store.ledger.getAccount(account)) === undefined) throw new GatewayError('GW_ERR_ROUTE_NOT_FOUND', `No account named "${account}".`);
    const made = await createConsoleUser(services.store.console, signIn, text(ctx.request.head['name'], 'name'), account);
    return json(201, made);
  }
  throw new GatewayError('GW_ERR_ROUTE_NOT_FOUND', `No console API at ${method} ${path}.`);
}

/** Operators only; an account's user is told the route does not exist (it learns nothing of the operator's API). */
function operatorOnly(user: { readonly account: string | null }): void {
  if (user.account !== null) throw new GatewayError('GW_ERR_ROUTE_NOT_FOUND', 'No such console API.');
}

function requireJson(ctx: RequestContext): void {
  const type = ctx.headers['content-type'];
  if (typeof type !== 'string' || !/^application\/json\b/i.test(type)) {
    throw new GatewayError('GW_ERR_REQUEST_INVALID_FIELD', 'The console API takes JSON bodies (content-type: application/json).');
  }
}

function text(value: unknown, field: string): string {
  if (typeof value !== 'string' || value === '') throw new GatewayError('GW_ERR_REQUEST_INVALID_FIELD', `${field} is required.`, { param: field });
  return value;
}

function describeUser(user: { readonly name: string; readonly account: string | null }): Record<string, unknown> {
  return { name: user.name, account: user.account, operator: user.account === null };
}

function json(status: number, value: unknown, headers: Readonly<Record<string, string>> = {}): RelayResult {
  return {
    kind: 'body',
    status,
    // Sessions and CSRF tokens are in these answers: never cached anywhere.
    headers: Object.assign({ 'content-type': 'application/json', 'cache-control': 'no-store' }, headers),
    body: Buffer.from(JSON.stringify(value)),
  };
}

export default consolePlugin;
