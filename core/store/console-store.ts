// The console's people and their sign-ins: users (the operator's, and each account's), server-side sessions (the
// cookie holds a random token; the store holds its digest, so a copy of the table opens no session), and one-time
// links an operator hands a user to set a password. Times are epoch ms.

export interface ConsoleUser {
  readonly id: string;
  /** What the user signs in with; unique. */
  readonly name: string;
  /** The account whose data the user sees; null for an operator (every account). */
  readonly account: string | null;
  /** scrypt (core/console/password.ts); null until set through a link. */
  readonly passwordHash: string | null;
  readonly createdAt: number;
  readonly disabled: boolean;
}

export interface ConsoleSession {
  readonly tokenHash: string;
  readonly userId: string;
  /** What every state-changing call must carry in x-csrf-token. */
  readonly csrf: string;
  readonly createdAt: number;
  readonly expiresAt: number;
  /** What the user's session list names it by (the token's digest is never shown). */
  readonly id: string;
  /** The address and user agent it signed in from (null when unknown: a session from before they were kept). */
  readonly address: string | null;
  readonly userAgent: string | null;
  /** When it last opened a console call (kept to the minute: touchSession). */
  readonly lastSeenAt: number;
}

/** A session as sign-in makes it: the store names it (a random id) unless told, and it was last seen when made. */
export type NewConsoleSession = Omit<ConsoleSession, 'id' | 'address' | 'userAgent' | 'lastSeenAt'> & {
  readonly id?: string;
  readonly address?: string | null;
  readonly userAgent?: string | null;
};

/** createUser() found the name taken. */
export class ConsoleUserExists extends Error {
  constructor(readonly userName: string, options?: ErrorOptions) {
    super(`console user "${userName}" already exists`, options);
  }
}

/** Which sessions endSessions ends. */
export type SessionsToEnd =
  | { readonly tokenHash: string }
  | { readonly userId: string; readonly id: string }
  | { readonly userId: string; readonly keep?: string };

export interface ConsoleStore {
  createUser(user: Omit<ConsoleUser, 'disabled'>): Promise<ConsoleUser>;
  findUser(by: { readonly id: string } | { readonly name: string }): Promise<ConsoleUser | undefined>;
  /** An account's users, by name. */
  listUsers(account: string | null): Promise<ConsoleUser[]>;
  /** Sets the password and uses up the user's unused links (at `at`): none of them sets it again. */
  setPassword(userId: string, passwordHash: string, at: number): Promise<void>;
  setUserDisabled(userId: string, disabled: boolean): Promise<void>;
  createSession(session: NewConsoleSession): Promise<void>;
  /** The session and its user, while it has neither ended nor expired (at `now`) and the user is enabled. */
  findSession(tokenHash: string, now: number): Promise<{ readonly session: ConsoleSession; readonly user: ConsoleUser } | undefined>;
  /**
   * Ends one session (logout, or `id` within its user's: the user's own list), or every session of a user (`userId`:
   * a password set, a user disabled), but the one `keep` names (a password changed keeps the session that changed
   * it). Answers how many ended.
   */
  endSessions(by: SessionsToEnd, at: number): Promise<number>;
  /** A user's live sessions (neither ended nor expired at `now`), the newest first. */
  listSessions(userId: string, now: number): Promise<ConsoleSession[]>;
  /** Marks a session used at `at`. */
  touchSession(tokenHash: string, at: number): Promise<void>;
  /** Makes a link, and uses up the user's earlier unused ones (the newest link is the only one that works). */
  createLink(link: { readonly tokenHash: string; readonly userId: string; readonly createdAt: number; readonly expiresAt: number }): Promise<void>;
  /** The user a link would set the password of, without using it: undefined when unknown, used or expired. */
  findLink(tokenHash: string, now: number): Promise<string | undefined>;
  /** Uses a link once: its user's id, or undefined when it is unknown, used or expired (at `at`). */
  useLink(tokenHash: string, at: number): Promise<string | undefined>;
  /** Deletes the sessions and links that can no longer open anything (ended, used or expired before `now`). */
  pruneExpired(now: number): Promise<void>;
}
