// Making console users: an account's (by the operator, in the console) or an operator (gateway admin create-user).
// A new user has no password: the answer carries a one-time link to set it, shown once. Asked again for an existing
// user of the same account, it makes a new link (a password reset).

import { randomUUID } from 'node:crypto';
import { GatewayError } from '../errors.js';
import { ConsoleUserExists, type ConsoleStore } from '../store/console-store.js';
import { OPERATOR_NAME, type ConsoleSignIn } from './sign-in.js';

const NAME = /^[A-Za-z0-9][A-Za-z0-9_.@-]{0,63}$/;

export interface MadeUser {
  readonly user: { readonly name: string; readonly account: string | null; readonly operator: boolean };
  /** The console page that sets the password, with the link's token (relative to the gateway's URL). */
  readonly link: string;
  readonly link_expires_at: string;
}

export async function createConsoleUser(store: ConsoleStore, signIn: ConsoleSignIn, name: string, account: string | null): Promise<MadeUser> {
  if (!NAME.test(name)) throw new GatewayError('GW_ERR_REQUEST_INVALID_FIELD', 'name must be 1-64 letters, digits, "_", ".", "@" or "-".', { param: 'name' });
  // The admin token's operator has that name (its sign-ins and its limits); nobody else may.
  if (name.toLowerCase() === OPERATOR_NAME) throw new GatewayError('GW_ERR_REQUEST_INVALID_FIELD', `"${name}" is reserved.`, { param: 'name' });
  let id: string;
  try {
    id = (await store.createUser({ id: `cu_${randomUUID().replaceAll('-', '')}`, name, account, passwordHash: null, createdAt: Date.now() })).id;
  } catch (err) {
    if (!(err instanceof ConsoleUserExists)) throw err;
    // A user of this very account who needs a new password (forgotten, or the first link expired) gets a new link;
    // the password it sets ends their other sessions.
    const existing = await store.findUser({ name });
    if (existing === undefined || existing.account !== account) {
      throw new GatewayError('GW_ERR_REQUEST_INVALID_FIELD', `A console user named "${name}" already exists.`, { param: 'name' });
    }
    id = existing.id;
  }
  const link = await signIn.link(id);
  return {
    user: { name, account, operator: account === null },
    link: `/console/#/password/${link.token}`,
    link_expires_at: new Date(link.expiresAt).toISOString(),
  };
}
