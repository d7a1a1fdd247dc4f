// The console session the console route group's middleware found (plugins/console-session), handed to the route's
// handler through a context slot.

import { GatewayError } from '../errors.js';
import type { RequestContext } from '../pipeline/context.js';
import { slot, type Slot } from '../slot.js';
import type { ConsoleUser } from '../store/console-store.js';

export interface SignedSession {
  readonly user: ConsoleUser;
  readonly csrf: string;
  /** The session's public id: what its user's session list names it by. */
  readonly id: string;
}

export const CONSOLE_SESSION: Slot<SignedSession> = slot('console.session');

/** The request's session; a route of the group that reads it has the middleware before it, so none is a 401. */
export function sessionOf(ctx: RequestContext): SignedSession {
  const session = ctx.get(CONSOLE_SESSION);
  if (session === undefined) throw new GatewayError('GW_ERR_CONSOLE_SIGNED_OUT', 'Sign in to the console first.');
  return session;
}
