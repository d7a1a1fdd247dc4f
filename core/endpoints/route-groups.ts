// The route groups whose middleware runs before any body byte, whatever route of theirs a feature adds: the admin
// API (the operator's token) and the console's API (a session). Their chains cannot be rewritten in gateway.yaml,
// so a route added to a group keeps the group's check.

import { createAdminFormat } from '../formats/admin/index.js';
import type { BodyFamily, BodyReads, ChainStep, Endpoint, HttpMethod } from './registry.js';
import type { RouteHandler } from '../pipeline/plugin.js';

/** The admin API's middleware: the operator's token (auth, credential admin_token) in the head phase. */
const ADMIN: readonly ChainStep[] = [{ use: 'auth', with: { credential: 'admin_token' } }];

/** A route of the admin API: the admin token before the body, a JSON body of the control family, OpenAI's errors. */
export function adminRoute(method: HttpMethod, path: string, handler: RouteHandler, reads?: BodyReads): Endpoint {
  return { method, path, createFormat: createAdminFormat, chain: ADMIN, configurable: false, body: 'control', handler, ...(reads === undefined ? {} : { reads }) };
}

/** Who may call a console route (plugins/console-session): anyone (`page`, `open`), a signed-in user, the operator. */
export type ConsoleAccess = 'page' | 'open' | 'user' | 'operator';

/**
 * A route of the console (its API or its pages): the session, its CSRF token for a change and the operator, as
 * `access` asks, checked before the body by console-session. Routes open to anyone take a body of a few KB (`open`).
 */
export function consoleRoute(method: HttpMethod, path: string, handler: RouteHandler, access: ConsoleAccess, reads?: BodyReads): Endpoint {
  const body: BodyFamily = access === 'page' || access === 'open' ? 'open' : 'control';
  const chain: readonly ChainStep[] = [{ use: 'console-session', with: access === 'page' ? { access } : { access, schema: consoleSchemaName(method, path) } }];
  return { method, path, createFormat: createAdminFormat, chain, configurable: false, body, handler, ...(reads === undefined ? {} : { reads }) };
}

/** What a key's create or edit reads as names (the admin API's and the console's). */
export const KEY_READS: BodyReads = { names: ['name', 'group', 'account', 'max_spend', 'max_spend.amount', 'max_spend.period', 'max_spend.timezone', 'expires_at', 'models.*', 'ips.*'] };
/** What a credit reads as names and text (the admin API's and the console's). */
export const CREDIT_READS: BodyReads = { names: ['amount', 'idempotency_key'], texts: ['note'] };

/**
 * A console API route's request schema name: its method and its path below /console/api/, a `{name}` segment by its
 * name and `.` as `-` (`PATCH /console/api/keys/{id}` -> `patch-keys-id`, `GET /console/api/usage.csv` ->
 * `get-usage-csv`).
 */
export function consoleSchemaName(method: string, path: string): string {
  const segments = path.replace(/^\/console\/api\//, '').split('/');
  return [method.toLowerCase(), ...segments.map((s) => s.replace(/^\{(.+)\}$/, '$1').replaceAll('.', '-'))].join('-');
}
