// console (terminal): the web console, its pages (static-files.ts) and its API under /console/api. A session comes
// from signing in (a password, or the operator's admin token) and lives server-side (core/console/sign-in.ts); its
// cookie authenticates every call after, and every call that changes something also carries the session's CSRF
// token in x-csrf-token. Bodies are JSON (a cross-site form cannot send that content type without the browser
// asking first, which the gateway never allows). A user reaches their own account only; the operator's routes
// answer a user as missing ones. All of that is checked in the head phase, from the headers: a caller without a
// session (or, for a change, its CSRF token) is refused before any byte of its body is read. The routes open to
// anyone (sign-in, a password link, the pages) are the registry's `open` family, whose bodies are capped at a few KB.

import { createHash, timingSafeEqual } from 'node:crypto';
import {
  GatewayError,
  createConsoleUser,
  redactConfig,
  type GatewayServices,
  type Plugin,
  type PluginFactory,
  type RelayResult,
  type RequestContext,
} from '../../core/index.js';
import { keyGroupsOf } from './account-groups.js';
import { accountsAnswer } from './accounts.js';
import { assetGroupsPage, bindAssetGroup } from './asset-groups.js';
import { channelsAnswer } from './channels.js';
import { sessionCookie, sessionToken } from './cookie.js';
import { dashboard } from './dashboard.js';
import { keysAnswer } from './keys.js';
import { ledgerPage } from './ledger.js';
import type { ConsoleOptions } from './options.gen.js';
import { RequestSchemas } from './request-schemas.js';
import { PAGE_HEADERS, StaticFiles } from './static-files.js';
import { usageCsv, usagePage } from './usage.js';
import { videoContent, videoTasksPage } from './videos.js';

type Signed = { readonly name: string; readonly account: string | null };
type Session = NonNullable<Awaited<ReturnType<GatewayServices['consoleSignIn']['session']>>>;

export const consolePlugin: PluginFactory<ConsoleOptions> = {
  name: 'console',
  create(_options, services): Plugin {
    const files = new StaticFiles();
    const requests = new RequestSchemas();
    // The session the head phase found, for the relay (per request, gone with its context).
    const sessions = new WeakMap<RequestContext, Session>();
    return {
      name: 'console',
      head: (ctx) => admit(ctx, services, sessions),
      relay: (ctx) => answer(ctx, services, files, requests, sessions),
    };
  },
};

/**
 * The head phase: a JSON content type for a change, then, but on the open routes, the session, its CSRF token for a
 * change, and the operator for the operator's routes. A refusal here leaves the body unread.
 */
function admit(ctx: RequestContext, services: GatewayServices, sessions: WeakMap<RequestContext, Session>): Promise<void> | undefined {
  const method = ctx.method ?? 'POST';
  if (method !== 'GET' && method !== 'HEAD') requireJson(ctx);
  if (ctx.bodyFamily === 'open') return undefined;
  return services.consoleSignIn.session(sessionToken(ctx)).then((session) => {
    if (session === undefined) throw new GatewayError('GW_ERR_CONSOLE_SIGNED_OUT', 'Sign in to the console first.');
    // Every change carries the session's CSRF token: a request another site makes the browser send cannot know it.
    if (method !== 'GET' && !sameSecret(ctx.headers['x-csrf-token'], session.csrf)) {
      throw new GatewayError('GW_ERR_CONSOLE_CSRF', 'This request lacks the session\'s CSRF token (x-csrf-token).');
    }
    // Once the caller is known: the operator's routes answer an account's user as missing, before what was sent is read.
    if (isOperatorRoute(ctx.path ?? ctx.route)) operatorOnly(session.user);
    sessions.set(ctx, session);
  });
}

async function answer(
  ctx: RequestContext,
  services: GatewayServices,
  files: StaticFiles,
  requests: RequestSchemas,
  sessions: WeakMap<RequestContext, Session>,
): Promise<RelayResult> {
  const signIn = services.consoleSignIn;
  const path = ctx.path ?? ctx.route;
  const method = ctx.method ?? 'POST';
  if (method === 'GET' && !path.startsWith('/console/api/')) return files.answer(ctx.params?.['file'] ?? 'index.html');
  if (path === '/console/api/session' && method === 'POST') {
    requests.check(ctx);
    const body = ctx.request.head;
    const signed =
      typeof body['admin_token'] === 'string'
        ? await signIn.withAdminToken(body['admin_token'], ctx.clientAddress)
        : await signIn.withPassword(text(body['name'], 'name'), text(body['password'], 'password'), ctx.clientAddress);
    const maxAgeS = Math.floor((signed.expiresAt - Date.now()) / 1000);
    return json(200, { user: describeUser(signed.user), csrf: signed.csrf }, { 'set-cookie': sessionCookie(ctx, signed.token, maxAgeS) });
  }
  if (path === '/console/api/password' && method === 'POST') {
    requests.check(ctx);
    const body = ctx.request.head;
    const user = await signIn.setPassword(text(body['token'], 'token'), text(body['password'], 'password'), ctx.clientAddress);
    return json(200, { user: describeUser(user) });
  }
  const session = sessions.get(ctx);
  // Only an open route reaches this without one (the head phase refused the rest); none of those is below.
  if (session === undefined) throw new GatewayError('GW_ERR_CONSOLE_SIGNED_OUT', 'Sign in to the console first.');
  const token = sessionToken(ctx);
  const user = session.user;
  requests.check(ctx);
  const query = new URLSearchParams(ctx.query);
  if (path === '/console/api/session' && method === 'GET') {
    return json(200, { user: describeUser(user), csrf: session.csrf, groups: await groupsOf(services, user) });
  }
  if (path === '/console/api/session' && method === 'DELETE') {
    await signIn.signOut(token);
    return json(200, { signed_out: true }, { 'set-cookie': sessionCookie(ctx, '', 0) });
  }
  if (path === '/console/api/dashboard' && method === 'GET') return json(200, await dashboard(services, await scopeOf(services, user, query), query));
  if (path === '/console/api/usage' && method === 'GET') return json(200, await usagePage(services, await scopeOf(services, user, query), query));
  if (path === '/console/api/usage.csv' && method === 'GET') return usageCsv(services, await scopeOf(services, user, query), query);
  if (path === '/console/api/ledger' && method === 'GET') {
    const account = await scopeOf(services, user, query);
    if (account === null) throw new GatewayError('GW_ERR_REQUEST_MISSING_FIELD', 'Name the account whose ledger to read (?account=NAME).', { param: 'account' });
    return json(200, await ledgerPage(services, account, query));
  }
  if (path === '/console/api/keys' || path.startsWith('/console/api/keys/')) {
    const answered = await keysAnswer(ctx, services, user);
    return json(answered.status, answered.body);
  }
  if (path === '/console/api/asset-groups' && method === 'GET') return json(200, await assetGroupsPage(ctx, services, await scopeOf(services, user, query), query));
  if (path === '/console/api/videos' && method === 'GET') {
    const scope = await scopeOf(services, user, query);
    // The task store lists one account's tasks at a time (accountTasks(null) is the unmetered keys'), so the
    // operator names the account, as for the ledger.
    if (scope === null) throw new GatewayError('GW_ERR_REQUEST_MISSING_FIELD', 'Name the account whose video tasks to list (?account=NAME).', { param: 'account' });
    return json(200, await videoTasksPage(services, scope, query));
  }
  // A user's own account's tasks only; the operator's, any (no ?account= here: the id names the task).
  if (ctx.route === 'GET /console/api/videos/{id}/content') return videoContent(ctx, services, user.account);
  // The rest is the operator's (isOperatorRoute, checked above).
  if (ctx.route === '/console/api/asset-groups/{id}/bind') return json(200, await bindAssetGroup(ctx, services));
  const account = ctx.params?.['name'];
  if (ctx.route === '/console/api/accounts/{name}/users' && account !== undefined) {
    if ((await services.store.ledger.getAccount(account)) === undefined) throw new GatewayError('GW_ERR_ROUTE_NOT_FOUND', `No account named "${account}".`);
    const made = await createConsoleUser(services.store.console, signIn, text(ctx.request.head['name'], 'name'), account);
    return json(201, made);
  }
  if (path === '/console/api/accounts' || path.startsWith('/console/api/accounts/')) {
    const answered = await accountsAnswer(ctx, services);
    return json(answered.status, answered.body);
  }
  if (path === '/console/api/channels' && method === 'GET') return json(200, await channelsAnswer(services));
  if (path === '/console/api/instances' && method === 'GET') return json(200, await instancesAnswer(services));
  if (path === '/console/api/config' && method === 'GET') {
    const source = services.control.source?.() ?? null;
    return json(200, { path: source?.file ?? null, yaml: source === null ? null : redactConfig(source.text) });
  }
  if (path === '/console/api/config/reload' && method === 'POST') {
    const reload = services.control.reload;
    if (reload === null) throw new GatewayError('GW_ERR_ROUTE_NOT_FOUND', 'This gateway was not started from a config file: there is nothing to reload.');
    const reloaded = await reload();
    const message = reloaded
      ? 'Reloaded: this instance now runs the file as it is (the others reload on their own watch or SIGHUP).'
      : 'The file was rejected; the previous config stays in force. The log names the problems.';
    return json(200, { reloaded, message });
  }
  throw new GatewayError('GW_ERR_ROUTE_NOT_FOUND', `No console API at ${method} ${path}.`);
}

/** Whose records a read covers: a user's own account, whatever they ask; the operator's ?account= (checked), or all. */
async function scopeOf(services: GatewayServices, user: Signed, query: URLSearchParams): Promise<string | null> {
  if (user.account !== null) return user.account;
  const asked = query.get('account');
  if (asked === null || asked === '') return null;
  if ((await services.store.ledger.getAccount(asked)) === undefined) throw new GatewayError('GW_ERR_ROUTE_NOT_FOUND', `No account named "${asked}".`);
  return asked;
}

/** The groups this user may create keys in, with what each allows: an account's (account-groups.ts), or every group for the operator. */
async function groupsOf(services: GatewayServices, user: Signed): Promise<Record<string, unknown>[]> {
  const { config } = services;
  const names = user.account === null ? [...config.groups.keys()] : await keyGroupsOf(services, user.account);
  return names.flatMap((name) => {
    const group = config.groups.get(name);
    return group === undefined ? [] : [{ name, models: group.models, limits: group.limits }];
  });
}

async function instancesAnswer(services: GatewayServices): Promise<Record<string, unknown>> {
  try {
    return { object: 'list', data: await services.instances.list() };
  } catch (err) {
    throw new GatewayError('GW_ERR_SHARED_STATE_UNAVAILABLE', 'Redis, where the instances register, does not answer right now; retry shortly.', { cause: err, retryAfter: 1 });
  }
}

/** The operator's routes: every one after the video tasks' in answer() (an asset group's binding included). */
function isOperatorRoute(path: string): boolean {
  return /^\/console\/api\/(accounts|channels|instances|config)(\/|$)/.test(path) || /^\/console\/api\/asset-groups\/[^/]+\/bind$/.test(path);
}

/** Operators only; an account's user is told the route does not exist (it learns nothing of the operator's API). */
function operatorOnly(user: { readonly account: string | null }): void {
  if (user.account !== null) throw new GatewayError('GW_ERR_ROUTE_NOT_FOUND', 'No such console API.');
}

/** The header equals the secret, compared in constant time (through their digests: any lengths). */
function sameSecret(header: string | string[] | undefined, secret: string): boolean {
  if (typeof header !== 'string') return false;
  return timingSafeEqual(createHash('sha256').update(header).digest(), createHash('sha256').update(secret).digest());
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

function describeUser(user: Signed): Record<string, unknown> {
  return { name: user.name, account: user.account, operator: user.account === null };
}

function json(status: number, value: unknown, headers: Readonly<Record<string, string>> = {}): RelayResult {
  return {
    kind: 'body',
    status,
    // Sessions and CSRF tokens are in these answers: never cached anywhere.
    headers: Object.assign({ 'content-type': 'application/json', 'cache-control': 'no-store' }, PAGE_HEADERS, headers),
    body: Buffer.from(JSON.stringify(value)),
  };
}

export default consolePlugin;
