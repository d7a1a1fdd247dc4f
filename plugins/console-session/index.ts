// console-session: the console route group's middleware, before any byte of the body. A session comes from signing
// in (a password, or the operator's admin token) and lives server-side (core/console/sign-in.ts); its cookie
// authenticates every call after, and every call that changes something also carries the session's CSRF token in
// x-csrf-token. Bodies are JSON (a cross-site form cannot send that content type without the browser asking first,
// which the gateway never allows). A user reaches their own account only; the operator's routes (`access:
// operator`) refuse a user with a 403 (operator_only). The session goes to the handler through a context slot
// (core/console/session-slot.ts). Once the body is read, it is checked against the route's request schema.
// Routes open to anyone (`access: open`: sign-in, a password link) and the pages (`access: page`) have no session;
// their bodies are capped at a few KB (the registry's `open` family).

import { createHash, timingSafeEqual } from 'node:crypto';
import { sessionToken } from '../../core/console/cookie.js';
import { CONSOLE_SESSION } from '../../core/console/session-slot.js';
import { GatewayError } from '../../core/errors.js';
import type { RequestContext } from '../../core/pipeline/context.js';
import type { GatewayServices, Plugin, PluginFactory } from '../../core/pipeline/plugin.js';
import type { ConsoleSessionOptions } from './options.gen.js';
import { RequestSchemas } from './request-schemas.js';

const USES = ['consoleSignIn'] as const;
type Uses = (typeof USES)[number];
/** What this plugin uses of the gateway's services (its factory's `uses`). */
export type Services = Pick<GatewayServices, Uses>;

export const consoleSessionPlugin: PluginFactory<ConsoleSessionOptions, Uses> = {
  name: 'console-session',
  uses: USES,
  create(options, services): Plugin {
    const access = options.access ?? 'user';
    if (access === 'page') return { name: 'console-session' };
    const head = (ctx: RequestContext): Promise<void> | undefined => admit(ctx, services, access);
    // The session is checked whatever the route declares; its request schema, when it names one.
    const schema = options.schema;
    if (schema === undefined) return { name: 'console-session', head };
    const requests = new RequestSchemas();
    return { name: 'console-session', head, request: (ctx) => requests.check(ctx, schema) };
  },
};

/**
 * A JSON content type for a change, then, but on the open routes, the session, its CSRF token for a change, and the
 * operator for the operator's routes. A refusal here leaves the body unread.
 */
function admit(ctx: RequestContext, services: Services, access: 'open' | 'user' | 'operator'): Promise<void> | undefined {
  if (!ctx.safe) requireJson(ctx);
  if (access === 'open') return undefined;
  return services.consoleSignIn.session(sessionToken(ctx.headers)).then((session) => {
    if (session === undefined) throw new GatewayError('GW_ERR_CONSOLE_SIGNED_OUT', 'Sign in to the console first.');
    // Every change carries the session's CSRF token: a request another site makes the browser send cannot know it.
    if (!ctx.safe && !sameSecret(ctx.headers['x-csrf-token'], session.csrf)) {
      throw new GatewayError('GW_ERR_CONSOLE_CSRF', 'This request lacks the session\'s CSRF token (x-csrf-token).');
    }
    // Operators only. A 403, not a 404: the console's script names every route anyway, and a user told "not found"
    // for a page the operator sees would think it broken.
    if (access === 'operator' && session.user.account !== null) throw new GatewayError('GW_ERR_CONSOLE_OPERATOR_ONLY', 'Only the operator may do this.');
    ctx.set(CONSOLE_SESSION, session);
  });
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
