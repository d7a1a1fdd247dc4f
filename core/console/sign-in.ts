// Signing in to the console: a name and password checked against the store, or the operator's admin token; a
// session made server-side (the cookie carries a random token, the store its digest) with its CSRF token; logout;
// one-time links that set a password. Failed sign-ins are limited per name and per address through the gateway's
// Limiter (shared by the fleet with Redis): each failure takes one of FAILURES_PER_MINUTE from both buckets, a
// sign-in finding either empty is refused before its password is checked.

import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { GatewayError } from '../errors.js';
import type { LimitCheck, Limiter } from '../limits/limiter.js';
import type { ConsoleStore, ConsoleUser } from '../store/console-store.js';
import { hashPassword, MAX_PASSWORD_CHARS, MIN_PASSWORD_CHARS, verifyPassword } from './password.js';

/** Wrong passwords allowed per name and per address in any minute (the next is refused until the bucket refills). */
const FAILURES_PER_MINUTE = 10;
/** How long a session lasts. */
export const SESSION_TTL_MS = 12 * 3_600_000;
/** How long a password link can be used. */
export const LINK_TTL_MS = 72 * 3_600_000;

/** The operator's session user when signed in with the admin token (not stored). */
const OPERATOR_ID = 'operator:admin-token';

export interface SignedIn {
  /** The cookie's value: shown to the browser once, stored only as its digest. */
  readonly token: string;
  readonly csrf: string;
  readonly user: ConsoleUser;
  readonly expiresAt: number;
}

export interface ConsoleSignInOptions {
  readonly store: ConsoleStore;
  readonly limiter: Limiter;
  /** The admin token of the running config (null: signing in with it is off). */
  readonly adminToken: () => string | null;
  readonly now?: () => number;
}

const digest = (token: string): string => createHash('sha256').update(token).digest('hex');
const secret = (): string => randomBytes(32).toString('base64url');

export class ConsoleSignIn {
  readonly #options: ConsoleSignInOptions;
  readonly #now: () => number;
  /** Made at the first sign-in: a wrong name costs the same scrypt as a wrong password (no timing tells which names exist). */
  #decoy: Promise<string> | null = null;

  constructor(options: ConsoleSignInOptions) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
  }

  /** Signs a user in; 401 for a wrong name or password (the same answer), 429 after too many failures. */
  async withPassword(name: string, password: string, address: string): Promise<SignedIn> {
    const checks = failureChecks(`name:${name.toLowerCase()}`, `address:${address}`);
    const admission = await this.#options.limiter.admit(checks, 1);
    if (!admission.admitted) {
      throw new GatewayError('GW_ERR_RATE_LIMITED', 'Too many failed sign-ins; try again in a minute.', { retryAfter: Math.max(1, Math.ceil(admission.retryAfterMs / 1000)) });
    }
    const user = name.length <= 64 ? await this.#options.store.findUser({ name }) : undefined;
    const ok =
      password.length <= MAX_PASSWORD_CHARS &&
      (user?.passwordHash === null || user === undefined ? (await verifyPassword(password, await (this.#decoy ??= hashPassword(randomUUID()))), false) : await verifyPassword(password, user.passwordHash));
    // A success gives its token back; a failure keeps it taken.
    await this.#options.limiter.finish(admission.ticket, ok ? 0 : 1);
    if (!ok || user === undefined || user.disabled) throw new GatewayError('GW_ERR_CONSOLE_SIGN_IN', 'Wrong name or password.');
    return this.#open(user);
  }

  /** The operator signs in with server.admin_token (no stored user). */
  async withAdminToken(token: string, address: string): Promise<SignedIn> {
    const checks = failureChecks('name:admin-token', `address:${address}`);
    const admission = await this.#options.limiter.admit(checks, 1);
    if (!admission.admitted) {
      throw new GatewayError('GW_ERR_RATE_LIMITED', 'Too many failed sign-ins; try again in a minute.', { retryAfter: Math.max(1, Math.ceil(admission.retryAfterMs / 1000)) });
    }
    const expected = this.#options.adminToken();
    const ok = expected !== null && token.length === expected.length && timingSafeEqual(Buffer.from(token), Buffer.from(expected));
    await this.#options.limiter.finish(admission.ticket, ok ? 0 : 1);
    if (!ok) throw new GatewayError('GW_ERR_CONSOLE_SIGN_IN', 'Wrong admin token.');
    let operator = await this.#options.store.findUser({ id: OPERATOR_ID });
    operator ??= await this.#options.store.createUser({ id: OPERATOR_ID, name: 'admin-token', account: null, passwordHash: null, createdAt: this.#now() });
    return this.#open(operator);
  }

  /** The session a cookie's token opens, while it lasts. */
  async session(token: string): Promise<{ readonly user: ConsoleUser; readonly csrf: string } | undefined> {
    if (token === '' || token.length > 100) return undefined;
    const found = await this.#options.store.findSession(digest(token), this.#now());
    return found === undefined ? undefined : { user: found.user, csrf: found.session.csrf };
  }

  async signOut(token: string): Promise<void> {
    await this.#options.store.endSessions({ tokenHash: digest(token) }, this.#now());
  }

  /** A one-time link's token for `userId` to set a password with (shown to the operator once). */
  async link(userId: string): Promise<{ readonly token: string; readonly expiresAt: number }> {
    const token = secret();
    const now = this.#now();
    await this.#options.store.createLink({ tokenHash: digest(token), userId, createdAt: now, expiresAt: now + LINK_TTL_MS });
    return { token, expiresAt: now + LINK_TTL_MS };
  }

  /** Sets the password of a link's user (the link is then used up); every session of the user ends. */
  async setPassword(linkToken: string, password: string): Promise<ConsoleUser> {
    if (password.length < MIN_PASSWORD_CHARS || password.length > MAX_PASSWORD_CHARS) {
      throw new GatewayError('GW_ERR_REQUEST_INVALID_FIELD', `password must be ${MIN_PASSWORD_CHARS} to ${MAX_PASSWORD_CHARS} characters.`, { param: 'password' });
    }
    const now = this.#now();
    const userId = linkToken.length <= 100 ? await this.#options.store.useLink(digest(linkToken), now) : undefined;
    const user = userId === undefined ? undefined : await this.#options.store.findUser({ id: userId });
    if (user === undefined) throw new GatewayError('GW_ERR_CONSOLE_LINK_INVALID', 'This link is unknown, used or expired; ask for a new one.');
    await this.#options.store.setPassword(user.id, await hashPassword(password));
    await this.#options.store.endSessions({ userId: user.id }, now);
    return user;
  }

  async #open(user: ConsoleUser): Promise<SignedIn> {
    const token = secret();
    const csrf = secret();
    const now = this.#now();
    await this.#options.store.createSession({ tokenHash: digest(token), userId: user.id, csrf, createdAt: now, expiresAt: now + SESSION_TTL_MS });
    return { token, csrf, user, expiresAt: now + SESSION_TTL_MS };
  }
}

/** The two buckets a failed sign-in takes from: its name's and its address's. */
function failureChecks(name: string, address: string): LimitCheck[] {
  // tpm, not rpm: its tokens can be given back (a success), and a request's count cannot.
  return [
    { subject: `console-sign-in:${name}`, scope: 'key', label: 'console sign-ins', tpm: FAILURES_PER_MINUTE },
    { subject: `console-sign-in:${address}`, scope: 'key', label: 'console sign-ins', tpm: FAILURES_PER_MINUTE },
  ];
}
