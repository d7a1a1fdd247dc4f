// Signing in and out of the console, a password set from a one-time link, and the session as the pages read it
// (the user, the CSRF token, the groups keys may be made in).

import { sessionCookie, sessionToken } from '../../core/console/cookie.js';
import { consoleJson } from '../../core/console/console-answer.js';
import { sessionOf } from '../../core/console/session-slot.js';
import type { RequestContext } from '../../core/pipeline/context.js';
import type { GatewayServices, RelayResult } from '../../core/pipeline/plugin.js';
import { keyGroupsOf } from './account-groups.js';
import { requiredText } from './required-text.js';
import { limitsJson } from '../../core/limits/daily-tokens.js';

type Signed = { readonly name: string; readonly account: string | null };

/** POST /console/api/session: a name and password, or the operator's admin token. */
export async function signIn(ctx: RequestContext, services: GatewayServices): Promise<RelayResult> {
  const signIn = services.consoleSignIn;
  const body = ctx.request.head;
  // Where it signs in from, for the user's own list of their sessions.
  const agent = ctx.headers['user-agent'];
  const client = { address: ctx.clientAddress, userAgent: typeof agent === 'string' ? agent : undefined };
  const signed =
    typeof body['admin_token'] === 'string'
      ? await signIn.withAdminToken(body['admin_token'], client)
      : await signIn.withPassword(requiredText(body['name'], 'name'), requiredText(body['password'], 'password'), client);
  const maxAgeS = Math.floor((signed.expiresAt - Date.now()) / 1000);
  return consoleJson(200, { user: describeUser(signed.user), csrf: signed.csrf }, { 'set-cookie': sessionCookie(ctx.headers, signed.token, maxAgeS) });
}

/** POST /console/api/password: a one-time link's token and the new password. */
export async function setPassword(ctx: RequestContext, services: GatewayServices): Promise<RelayResult> {
  const body = ctx.request.head;
  const user = await services.consoleSignIn.setPassword(requiredText(body['token'], 'token'), requiredText(body['password'], 'password'), ctx.clientAddress);
  return consoleJson(200, { user: describeUser(user) });
}

/** GET /console/api/session */
export async function showSession(ctx: RequestContext, services: GatewayServices): Promise<RelayResult> {
  const session = sessionOf(ctx);
  return consoleJson(200, { user: describeUser(session.user), csrf: session.csrf, groups: await groupsOf(services, session.user), currency: services.config.pricing.currency });
}

/** DELETE /console/api/session */
export async function signOut(ctx: RequestContext, services: GatewayServices): Promise<RelayResult> {
  await services.consoleSignIn.signOut(sessionToken(ctx.headers));
  return consoleJson(200, { signed_out: true }, { 'set-cookie': sessionCookie(ctx.headers, '', 0) });
}

/** The groups this user may create keys in, with what each allows: an account's (account-groups.ts), or every group for the operator. */
async function groupsOf(services: GatewayServices, user: Signed): Promise<Record<string, unknown>[]> {
  const { config } = services;
  const names = user.account === null ? [...config.groups.keys()] : await keyGroupsOf(services, user.account);
  return names.flatMap((name) => {
    const group = config.groups.get(name);
    return group === undefined ? [] : [{ name, models: group.models, limits: limitsJson(group.limits) }];
  });
}

function describeUser(user: Signed): Record<string, unknown> {
  return { name: user.name, account: user.account, operator: user.account === null };
}
