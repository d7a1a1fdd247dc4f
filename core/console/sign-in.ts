// Signing in to the console: a name and password checked against the store, or the operator's admin token; a
// session made server-side (the cookie carries a random token, the store its digest) with its CSRF token; logout;
// one-time links that set a password. Failed sign-ins are limited per address and per name through the gateway's
// Limiter (shared by the fleet with Redis): each failure takes one from both buckets, a sign-in finding either empty
// is refused before its password is checked. The admin API's token guesses take from the same address bucket
// (limitAdminToken), so the token is no cheaper to guess there than here.

import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { GatewayError } from '../errors.js';
import type { LimitCheck, Limiter, Ticket } from '../limits/limiter.js';
import { isIP } from 'node:net';
import type { ConsoleSession, ConsoleStore, ConsoleUser } from '../store/console-store.js';
import { hashPassword, MAX_PASSWORD_CHARS, MIN_PASSWORD_CHARS, verifyPassword, type PasswordCost } from './password.js';

/**
 * Wrong passwords (or admin tokens) allowed per address: ten at once, then one every 6 s as the bucket refills (the
 * eleventh in a row is refused).
 */
const FAILURES_PER_MINUTE = 10;
/**
 * Wrong passwords allowed per name, from all addresses together: ten times an address's, so that one address (held
 * to FAILURES_PER_MINUTE, refilled ten times slower than this) can never empty it and lock the user out everywhere,
 * as OWASP warns an account lockout lets anyone do; it still bounds a guess at one name spread over many addresses.
 */
export const NAME_FAILURES_PER_MINUTE = 100;
/** Sign-in attempts per address per minute, right or wrong: each costs a scrypt. */
const ATTEMPTS_PER_MINUTE = 30;
/** Password and token checks at once, per process (scrypt runs on libuv's small thread pool, shared with fs and dns). */
const MAX_CHECKS_IN_FLIGHT = 8;
/** How long a session lasts. */
export const SESSION_TTL_MS = 12 * 3_600_000;
/** A session's last use is written at most this often (each console call reads the session; few need to write). */
const SEEN_EVERY_MS = 60_000;
/** The user agent kept with a session, cut to this (it is only shown to its own user). */
const MAX_AGENT_CHARS = 256;
/** How long a password link can be used. */
export const LINK_TTL_MS = 72 * 3_600_000;

/** The operator's session user when signed in with the admin token (made at its first sign-in). */
const OPERATOR_ID = 'operator:admin-token';
/** Its name, which no other console user may take. */
export const OPERATOR_NAME = 'admin-token';

/** Where a sign-in comes from: the limits' address, and what the user's session list shows. */
export interface SignInClient {
  readonly address: string;
  readonly userAgent?: string | undefined;
}

/** A session a cookie opened, as the console's routes see it. */
export interface OpenSession {
  readonly user: ConsoleUser;
  readonly csrf: string;
  /** The session's public id (its user's list names it so). */
  readonly id: string;
}

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
  /** Wrong passwords per name per minute (NAME_FAILURES_PER_MINUTE); smaller in tests, where each failure costs a scrypt. */
  readonly nameFailuresPerMinute?: number;
  /**
   * scrypt's cost for the passwords set from now on (and the decoy); PASSWORD_COST without. Tests that sign in by the
   * hundred set a small one: the limits and answers they check do not depend on it, and a check is as slow as the
   * cost its hash was made with.
   */
  readonly passwordCost?: PasswordCost;
}

const digest = (token: string): string => createHash('sha256').update(token).digest('hex');
const secret = (): string => randomBytes(32).toString('base64url');

export class ConsoleSignIn {
  readonly #options: ConsoleSignInOptions;
  readonly #now: () => number;
  /** Made at the first sign-in: a wrong name costs the same scrypt as a wrong password (no timing tells which names exist). */
  #decoy: Promise<string> | null = null;
  /** Password and token checks running now. */
  #checking = 0;

  constructor(options: ConsoleSignInOptions) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
  }

  /** Signs a user in; 401 for a wrong name or password (the same answer), 429 after too many failures. */
  async withPassword(name: string, password: string, client: SignInClient | string): Promise<SignedIn> {
    const { address } = clientOf(client);
    const ticket = await this.#admit([bucket(`name:${name.slice(0, 64).toLowerCase()}`, this.#options.nameFailuresPerMinute ?? NAME_FAILURES_PER_MINUTE), ...addressBuckets(address)]);
    let accepted = false;
    try {
      const user = name.length <= 64 ? await this.#options.store.findUser({ name }) : undefined;
      const ok = await this.#checkPassword(password, user?.passwordHash ?? null);
      // A disabled user's right password counts as a failure too: nothing tells it was right.
      accepted = ok && user !== undefined && !user.disabled;
      if (!accepted || user === undefined) throw new GatewayError('GW_ERR_CONSOLE_SIGN_IN', 'Wrong name or password.');
      return await this.#open(user, clientOf(client));
    } finally {
      await this.#finish(ticket, accepted);
    }
  }

  /** The operator signs in with server.admin_token (no stored user); limited per address only (a guess of a long secret per name would let anyone lock it). */
  async withAdminToken(token: string, client: SignInClient | string): Promise<SignedIn> {
    const { address } = clientOf(client);
    const ticket = await this.#admit(addressBuckets(address));
    let accepted = false;
    try {
      const expected = this.#options.adminToken();
      accepted = expected !== null && carriesSecret(token, expected);
      if (!accepted) throw new GatewayError('GW_ERR_CONSOLE_SIGN_IN', 'Wrong admin token.');
      let operator = await this.#options.store.findUser({ id: OPERATOR_ID });
      if (operator === undefined) {
        try {
          operator = await this.#options.store.createUser({ id: OPERATOR_ID, name: OPERATOR_NAME, account: null, passwordHash: null, createdAt: this.#now() });
        } catch (err) {
          // Two first sign-ins at once: the other made it.
          operator = await this.#options.store.findUser({ id: OPERATOR_ID });
          if (operator === undefined) throw err;
        }
      }
      if (operator.disabled) throw new GatewayError('GW_ERR_CONSOLE_SIGN_IN', 'Wrong admin token.');
      return await this.#open(operator, clientOf(client));
    } finally {
      await this.#finish(ticket, accepted);
    }
  }

  /**
   * An admin API call's token, `right` or not, counted against its address's failure bucket, the one sign-ins use:
   * once ten wrong ones (admin tokens or passwords) emptied it, 429 whatever the token, until it refills (one every
   * 6 s). A right token gives its attempt back. No attempts bucket and no scrypt here: scripts call the admin API
   * often, and comparing a token costs nothing.
   */
  async limitAdminToken(right: boolean, address: string): Promise<void> {
    const admission = await this.#options.limiter.admit([failureBucket(address)], 1);
    if (!admission.admitted) {
      const retryAfter = Math.max(1, Math.ceil(admission.retryAfterMs / 1000));
      throw new GatewayError('GW_ERR_RATE_LIMITED', `Too many wrong admin tokens from this address; try again in ${retryAfter} s.`, { retryAfter });
    }
    await this.#options.limiter.finish(admission.ticket, right ? 0 : 1);
    if (!right) throw new GatewayError('GW_ERR_ADMIN_UNAUTHORIZED', 'A valid admin token is required (Authorization: Bearer <admin_token>).');
  }

  /** Ends every session opened with the admin token (it changed: a leaked one must open nothing more). */
  async endAdminTokenSessions(): Promise<void> {
    await this.#options.store.endSessions({ userId: OPERATOR_ID }, this.#now());
  }

  /** Takes one attempt from each bucket, or refuses (429) when any is empty; at most MAX_CHECKS_IN_FLIGHT checks at once (503 beyond). */
  async #admit(checks: readonly LimitCheck[]): Promise<Ticket> {
    const admission = await this.#options.limiter.admit(checks, 1);
    if (!admission.admitted) {
      throw new GatewayError('GW_ERR_RATE_LIMITED', 'Too many sign-in attempts; try again in a minute.', { retryAfter: Math.max(1, Math.ceil(admission.retryAfterMs / 1000)) });
    }
    if (this.#checking >= MAX_CHECKS_IN_FLIGHT) {
      await this.#options.limiter.finish(admission.ticket, 0);
      throw new GatewayError('GW_ERR_INTAKE_BUSY', 'Too many sign-ins at once; retry shortly.', { retryAfter: 1 });
    }
    this.#checking++;
    return admission.ticket;
  }

  /** A success gives the attempt back to its failure buckets (never to the all-attempts one); a failure keeps it. */
  async #finish(ticket: Ticket, accepted: boolean): Promise<void> {
    this.#checking--;
    await this.#options.limiter.finish(ticket, accepted ? 0 : 1);
  }

  /** scrypt against the stored hash, or against a decoy when there is none (the same time either way). */
  async #checkPassword(password: string, stored: string | null): Promise<boolean> {
    if (password.length > MAX_PASSWORD_CHARS) return false;
    if (stored !== null) return verifyPassword(password, stored);
    await verifyPassword(password, await (this.#decoy ??= hashPassword(randomUUID(), this.#options.passwordCost)));
    return false;
  }

  /** The session a cookie's token opens, while it lasts; its last use is written when a minute old. */
  async session(token: string): Promise<OpenSession | undefined> {
    if (token === '' || token.length > 100) return undefined;
    const now = this.#now();
    const found = await this.#options.store.findSession(digest(token), now);
    if (found === undefined) return undefined;
    if (now - found.session.lastSeenAt >= SEEN_EVERY_MS) await this.#options.store.touchSession(found.session.tokenHash, now);
    return { user: found.user, csrf: found.session.csrf, id: found.session.id };
  }

  /** A user's live sessions, newest first. */
  sessionsOf(userId: string): Promise<ConsoleSession[]> {
    return this.#options.store.listSessions(userId, this.#now());
  }

  /** Ends one of the user's own sessions by its id; false when the user has no such live session. */
  async endSession(userId: string, id: string): Promise<boolean> {
    return (await this.#options.store.endSessions({ userId, id }, this.#now())) > 0;
  }

  /** Disables or enables a user; disabling ends every session of theirs (enabling again revives none). */
  async setDisabled(userId: string, disabled: boolean): Promise<void> {
    await this.#options.store.setUserDisabled(userId, disabled);
    if (disabled) await this.#options.store.endSessions({ userId }, this.#now());
  }

  /**
   * A signed-in user changes their own password: the current one is checked as a sign-in checks it (limited per name
   * and address, a wrong one counted as a failure: a session left open is no way to guess it), then every other
   * session of theirs ends; the one that changed it (`keepToken`, its cookie's token) stays. Answers how many ended.
   */
  async changePassword(user: ConsoleUser, current: string, next: string, keepToken: string, address: string): Promise<number> {
    if (user.passwordHash === null) {
      throw new GatewayError('GW_ERR_REQUEST_INVALID_FIELD', 'This user has no password to change (signed in with the admin token).', { param: 'current_password' });
    }
    if (next.length < MIN_PASSWORD_CHARS || next.length > MAX_PASSWORD_CHARS) {
      throw new GatewayError('GW_ERR_REQUEST_INVALID_FIELD', `password must be ${MIN_PASSWORD_CHARS} to ${MAX_PASSWORD_CHARS} characters.`, { param: 'password' });
    }
    const ticket = await this.#admit([bucket(`name:${user.name.toLowerCase()}`, this.#options.nameFailuresPerMinute ?? NAME_FAILURES_PER_MINUTE), ...addressBuckets(address)]);
    let accepted = false;
    try {
      // The hash read now, not the session's copy: a change made meanwhile from another session counts.
      const stored = (await this.#options.store.findUser({ id: user.id }))?.passwordHash ?? null;
      accepted = await this.#checkPassword(current, stored);
      if (!accepted) throw new GatewayError('GW_ERR_CONSOLE_PASSWORD_WRONG', 'The current password is wrong.', { param: 'current_password' });
      await this.#options.store.setPassword(user.id, await hashPassword(next, this.#options.passwordCost), this.#now());
      return await this.#options.store.endSessions({ userId: user.id, keep: digest(keepToken) }, this.#now());
    } finally {
      await this.#finish(ticket, accepted);
    }
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

  /**
   * Sets the password of a link's user (the link is then used up); every session of the user ends. Anyone may call
   * it, so it is limited as a sign-in is (per address, and the checks in flight), and a link is looked up before any
   * scrypt runs: a made-up link costs a read.
   */
  async setPassword(linkToken: string, password: string, address: string): Promise<ConsoleUser> {
    if (password.length < MIN_PASSWORD_CHARS || password.length > MAX_PASSWORD_CHARS) {
      throw new GatewayError('GW_ERR_REQUEST_INVALID_FIELD', `password must be ${MIN_PASSWORD_CHARS} to ${MAX_PASSWORD_CHARS} characters.`, { param: 'password' });
    }
    const ticket = await this.#admit(addressBuckets(address));
    let accepted = false;
    try {
      const invalid = new GatewayError('GW_ERR_CONSOLE_LINK_INVALID', 'This link is unknown, used or expired; ask for a new one.');
      const tokenHash = digest(linkToken);
      if (linkToken.length > 100 || (await this.#options.store.findLink(tokenHash, this.#now())) === undefined) throw invalid;
      // Hashed before the link is used up: a failure here leaves the link usable.
      const hash = await hashPassword(password, this.#options.passwordCost);
      const now = this.#now();
      const userId = await this.#options.store.useLink(tokenHash, now);
      const user = userId === undefined ? undefined : await this.#options.store.findUser({ id: userId });
      if (user === undefined) throw invalid;
      await this.#options.store.setPassword(user.id, hash, this.#now());
      // Set: whatever happens next, this was no failed attempt.
      accepted = true;
      await this.#options.store.endSessions({ userId: user.id }, now);
      return user;
    } finally {
      await this.#finish(ticket, accepted);
    }
  }

  async #open(user: ConsoleUser, client: SignInClient): Promise<SignedIn> {
    const token = secret();
    const csrf = secret();
    const now = this.#now();
    // What can open nothing any more goes with each sign-in (they are limited, so this runs at a bounded rate): the
    // tables hold only live sessions and links, with no job of their own.
    await this.#options.store.pruneExpired(now);
    await this.#options.store.createSession({
      tokenHash: digest(token),
      userId: user.id,
      csrf,
      createdAt: now,
      expiresAt: now + SESSION_TTL_MS,
      address: client.address === '' ? null : client.address,
      userAgent: client.userAgent === undefined || client.userAgent === '' ? null : client.userAgent.slice(0, MAX_AGENT_CHARS),
    });
    return { token, csrf, user, expiresAt: now + SESSION_TTL_MS };
  }
}

/** A bare address is a client without a user agent (the CLI's and the tests' older calls). */
function clientOf(client: SignInClient | string): SignInClient {
  return typeof client === 'string' ? { address: client } : client;
}

/** A failure bucket: tpm, not rpm, because its tokens can be given back (a success) and a request's count cannot. */
function bucket(subject: string, perMinute = FAILURES_PER_MINUTE): LimitCheck {
  return { subject: `console-sign-in:${subject}`, scope: 'key', label: 'console sign-ins', tpm: perMinute };
}

/** IPv6 clients are counted by /64, what one host is usually given. */
export function addressKey(address: string): string {
  return isIP(address) === 6 ? prefix64(address) : address;
}

/** An address's failures: wrong passwords, made-up links and wrong admin tokens (console and admin API alike). */
function failureBucket(address: string): LimitCheck {
  return bucket(`address:${addressKey(address)}`);
}

/** An address's buckets: its failures, and all its attempts (successes too, never given back: each costs a scrypt). */
function addressBuckets(address: string): LimitCheck[] {
  const key = addressKey(address);
  return [failureBucket(address), { subject: `console-sign-in-all:${key}`, scope: 'key', label: 'console sign-ins', rpm: ATTEMPTS_PER_MINUTE }];
}

/** The first four groups of an IPv6 address, expanded (`2001:db8:0:1::/64`). */
function prefix64(address: string): string {
  const [head = '', tail = ''] = address.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === '' ? [] : tail.split(':');
  const groups = address.includes('::') ? [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right] : left;
  return `${groups.slice(0, 4).map((g) => g.toLowerCase().replace(/^0+(?=.)/, '')).join(':')}::/64`;
}

/** Constant-time equality of two secrets of any length (their digests are compared). */
function carriesSecret(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}
