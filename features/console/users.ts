// The console's users and their sessions: the operator lists an account's users, disables one (their sessions end at
// once) or enables them again (a new password link is POST .../users, accounts.ts); a signed-in user changes their
// own password (the current one required; their other sessions end) and sees and ends their own sessions. A session
// is named by its public id, never by its cookie's token; another user's id is a missing one.

import { sessionToken } from '../../core/console/cookie.js';
import { consoleJson } from '../../core/console/console-answer.js';
import { sessionOf } from '../../core/console/session-slot.js';
import { GatewayError } from '../../core/errors.js';
import type { RequestContext } from '../../core/pipeline/context.js';
import type { GatewayServices, RelayResult } from '../../core/pipeline/plugin.js';
import type { ConsoleUser } from '../../core/store/console-store.js';
import { requiredText } from './required-text.js';

const iso = (ms: number): string => new Date(ms).toISOString();

/** The account the path names, or its 404. */
async function accountOf(ctx: RequestContext, services: GatewayServices): Promise<string> {
  const account = ctx.params?.['name'] ?? '';
  if ((await services.store.ledger.getAccount(account)) === undefined) throw new GatewayError('GW_ERR_ROUTE_NOT_FOUND', `No account named "${account}".`);
  return account;
}

async function describeAccountUser(services: GatewayServices, user: ConsoleUser): Promise<Record<string, unknown>> {
  const sessions = await services.consoleSignIn.sessionsOf(user.id);
  const lastSeen = sessions.reduce((latest, s) => Math.max(latest, s.lastSeenAt), 0);
  return {
    name: user.name,
    account: user.account,
    created_at: iso(user.createdAt),
    disabled: user.disabled,
    password_set: user.passwordHash !== null,
    sessions: sessions.length,
    last_seen_at: sessions.length === 0 ? null : iso(lastSeen),
  };
}

/** GET /console/api/accounts/{name}/users (operator) */
export async function listAccountUsers(ctx: RequestContext, services: GatewayServices): Promise<RelayResult> {
  const account = await accountOf(ctx, services);
  const users = await services.store.console.listUsers(account);
  return consoleJson(200, { object: 'list', data: await Promise.all(users.map((u) => describeAccountUser(services, u))) });
}

/** PATCH /console/api/accounts/{name}/users/{user} (operator): disabled. A user of another account is a missing one. */
export async function updateAccountUser(ctx: RequestContext, services: GatewayServices): Promise<RelayResult> {
  const account = await accountOf(ctx, services);
  const name = ctx.params?.['user'] ?? '';
  const disabled = ctx.request.head['disabled'];
  if (typeof disabled !== 'boolean') throw new GatewayError('GW_ERR_REQUEST_INVALID_FIELD', 'disabled must be true or false.', { param: 'disabled' });
  const found = await services.store.console.findUser({ name });
  if (found === undefined || found.account !== account) throw new GatewayError('GW_ERR_ROUTE_NOT_FOUND', `No user named "${name}" in account "${account}".`);
  await services.consoleSignIn.setDisabled(found.id, disabled);
  return consoleJson(200, await describeAccountUser(services, Object.assign({}, found, { disabled })));
}

/** POST /console/api/password/change: the signed-in user's own password; this session stays, the others end. */
export async function changeOwnPassword(ctx: RequestContext, services: GatewayServices): Promise<RelayResult> {
  const { user } = sessionOf(ctx);
  const body = ctx.request.head;
  const current = typeof body['current_password'] === 'string' ? body['current_password'] : '';
  const next = requiredText(body['password'], 'password');
  const ended = await services.consoleSignIn.changePassword(user, current, next, sessionToken(ctx.headers), ctx.clientAddress);
  return consoleJson(200, { changed: true, sessions_ended: ended });
}

/** GET /console/api/sessions: the signed-in user's own open sessions. */
export async function listOwnSessions(ctx: RequestContext, services: GatewayServices): Promise<RelayResult> {
  const { user, id } = sessionOf(ctx);
  const sessions = await services.consoleSignIn.sessionsOf(user.id);
  return consoleJson(200, {
    object: 'list',
    data: sessions.map((s) => ({
      id: s.id,
      current: s.id === id,
      created_at: iso(s.createdAt),
      last_seen_at: iso(s.lastSeenAt),
      expires_at: iso(s.expiresAt),
      address: s.address,
      user_agent: s.userAgent,
    })),
  });
}

/** DELETE /console/api/sessions/{id}: ends one of the user's own sessions (the current one too: a sign-out). */
export async function endOwnSession(ctx: RequestContext, services: GatewayServices): Promise<RelayResult> {
  const { user } = sessionOf(ctx);
  const id = ctx.params?.['id'] ?? '';
  if (!(await services.consoleSignIn.endSession(user.id, id))) throw new GatewayError('GW_ERR_ROUTE_NOT_FOUND', `No session with id "${id}".`);
  return consoleJson(200, { id, ended: true });
}
