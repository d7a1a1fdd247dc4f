// ConsoleStore over Kysely: the same queries on SQLite and PostgreSQL.

import { randomBytes } from 'node:crypto';
import type { Kysely, Selectable } from 'kysely';
import { ConsoleUserExists, type ConsoleSession, type ConsoleStore, type ConsoleUser, type NewConsoleSession, type SessionsToEnd } from './console-store.js';
import { decodeInteger } from './row-codec.js';
import type { ConsoleSessionsTable, ConsoleUsersTable, Database } from './schema.js';
import { isUniqueViolation } from './unique-violation.js';

function decodeUser(row: Selectable<ConsoleUsersTable>): ConsoleUser {
  return {
    id: row.id,
    name: row.name,
    account: row.account,
    passwordHash: row.password_hash,
    createdAt: decodeInteger(row.created_at),
    disabled: row.disabled !== null && decodeInteger(row.disabled) !== 0,
  };
}

type SessionRow = Pick<Selectable<ConsoleSessionsTable>, 'token_hash' | 'user_id' | 'csrf' | 'expires_at' | 'id' | 'address' | 'user_agent' | 'last_seen_at'> & {
  readonly session_created_at: Selectable<ConsoleSessionsTable>['created_at'];
};

function decodeSession(row: SessionRow): ConsoleSession {
  const createdAt = decodeInteger(row.session_created_at);
  return {
    tokenHash: row.token_hash,
    userId: row.user_id,
    csrf: row.csrf,
    createdAt,
    expiresAt: decodeInteger(row.expires_at),
    // Made before 0021 gave every session an id: its digest's head stands in (it is never the whole digest).
    id: row.id ?? `cs_${row.token_hash.slice(0, 24)}`,
    address: row.address,
    userAgent: row.user_agent,
    lastSeenAt: row.last_seen_at === null ? createdAt : decodeInteger(row.last_seen_at),
  };
}

const SESSION_COLUMNS = [
  'console_sessions.token_hash',
  'console_sessions.user_id',
  'console_sessions.csrf',
  'console_sessions.created_at as session_created_at',
  'console_sessions.expires_at',
  'console_sessions.id as id',
  'console_sessions.address',
  'console_sessions.user_agent',
  'console_sessions.last_seen_at',
] as const;

export class KyselyConsole implements ConsoleStore {
  readonly #db: Kysely<Database>;

  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  async createUser(user: Omit<ConsoleUser, 'disabled'>): Promise<ConsoleUser> {
    try {
      await this.#db
        .insertInto('console_users')
        .values({ id: user.id, name: user.name, account: user.account, password_hash: user.passwordHash, created_at: user.createdAt, disabled: null })
        .execute();
    } catch (err) {
      if (isUniqueViolation(err)) throw new ConsoleUserExists(user.name, { cause: err });
      throw err;
    }
    return Object.assign({ disabled: false }, user);
  }

  async findUser(by: { readonly id: string } | { readonly name: string }): Promise<ConsoleUser | undefined> {
    const q = this.#db.selectFrom('console_users').selectAll();
    const row = await ('id' in by ? q.where('id', '=', by.id) : q.where('name', '=', by.name)).executeTakeFirst();
    return row === undefined ? undefined : decodeUser(row);
  }

  async listUsers(account: string | null): Promise<ConsoleUser[]> {
    const q = this.#db.selectFrom('console_users').selectAll();
    const rows = await (account === null ? q.where('account', 'is', null) : q.where('account', '=', account)).orderBy('name').execute();
    return rows.map(decodeUser);
  }

  async setPassword(userId: string, passwordHash: string, at: number): Promise<void> {
    await this.#db.transaction().execute(async (trx) => {
      await trx.updateTable('console_users').set({ password_hash: passwordHash }).where('id', '=', userId).execute();
      // A link sent before (a reset the user did not need after all) would set it again: used up with the change.
      await trx.updateTable('console_links').set({ used_at: at }).where('user_id', '=', userId).where('used_at', 'is', null).execute();
    });
  }

  async setUserDisabled(userId: string, disabled: boolean): Promise<void> {
    await this.#db.updateTable('console_users').set({ disabled: disabled ? 1 : null }).where('id', '=', userId).execute();
  }

  async createSession(session: NewConsoleSession): Promise<void> {
    await this.#db
      .insertInto('console_sessions')
      .values({
        token_hash: session.tokenHash,
        user_id: session.userId,
        csrf: session.csrf,
        created_at: session.createdAt,
        expires_at: session.expiresAt,
        ended_at: null,
        id: session.id ?? `cs_${randomBytes(12).toString('hex')}`,
        address: session.address ?? null,
        user_agent: session.userAgent ?? null,
        last_seen_at: session.createdAt,
      })
      .execute();
  }

  async findSession(tokenHash: string, now: number): Promise<{ readonly session: ConsoleSession; readonly user: ConsoleUser } | undefined> {
    const row = await this.#db
      .selectFrom('console_sessions')
      .innerJoin('console_users', 'console_users.id', 'console_sessions.user_id')
      .select([
        ...SESSION_COLUMNS,
        'console_users.id as user_row_id',
        'console_users.name',
        'console_users.account',
        'console_users.password_hash',
        'console_users.created_at',
        'console_users.disabled',
      ])
      .where('console_sessions.token_hash', '=', tokenHash)
      .where('console_sessions.ended_at', 'is', null)
      .where('console_sessions.expires_at', '>', now)
      .executeTakeFirst();
    if (row === undefined) return undefined;
    const user = decodeUser(Object.assign({}, row, { id: row.user_row_id }));
    if (user.disabled) return undefined;
    return { session: decodeSession(row), user };
  }

  async listSessions(userId: string, now: number): Promise<ConsoleSession[]> {
    const rows = await this.#db
      .selectFrom('console_sessions')
      .select(SESSION_COLUMNS)
      .where('user_id', '=', userId)
      .where('ended_at', 'is', null)
      .where('expires_at', '>', now)
      .orderBy('created_at', 'desc')
      .execute();
    return rows.map(decodeSession);
  }

  async touchSession(tokenHash: string, at: number): Promise<void> {
    await this.#db.updateTable('console_sessions').set({ last_seen_at: at }).where('token_hash', '=', tokenHash).execute();
  }

  async endSessions(by: SessionsToEnd, at: number): Promise<number> {
    // Live ones only: an expired session opens nothing already, and is no session ended here.
    let q = this.#db.updateTable('console_sessions').set({ ended_at: at }).where('ended_at', 'is', null).where('expires_at', '>', at);
    if ('tokenHash' in by) q = q.where('token_hash', '=', by.tokenHash);
    else {
      // A user's session by its id is looked for among that user's only: another's id ends nothing.
      q = q.where('user_id', '=', by.userId);
      if ('id' in by) q = q.where('id', '=', by.id);
      else if (by.keep !== undefined) q = q.where('token_hash', '!=', by.keep);
    }
    const result = await q.executeTakeFirst();
    return Number(result.numUpdatedRows);
  }

  async createLink(link: { readonly tokenHash: string; readonly userId: string; readonly createdAt: number; readonly expiresAt: number }): Promise<void> {
    await this.#db.transaction().execute(async (trx) => {
      // Two links made at once for one user take turns on the user's row (PostgreSQL's READ COMMITTED would let
      // each miss the other's); then a new link (a password reset) ends the ones sent before.
      await trx.updateTable('console_users').set({ id: link.userId }).where('id', '=', link.userId).execute();
      await trx.updateTable('console_links').set({ used_at: link.createdAt }).where('user_id', '=', link.userId).where('used_at', 'is', null).execute();
      await trx
        .insertInto('console_links')
        .values({ token_hash: link.tokenHash, user_id: link.userId, created_at: link.createdAt, expires_at: link.expiresAt, used_at: null })
        .execute();
    });
  }

  async findLink(tokenHash: string, now: number): Promise<string | undefined> {
    const row = await this.#db
      .selectFrom('console_links')
      .select('user_id')
      .where('token_hash', '=', tokenHash)
      .where('used_at', 'is', null)
      .where('expires_at', '>', now)
      .executeTakeFirst();
    return row?.user_id;
  }

  async useLink(tokenHash: string, at: number): Promise<string | undefined> {
    // One statement: of two uses racing, one updates the row and the other finds it used.
    const used = await this.#db
      .updateTable('console_links')
      .set({ used_at: at })
      .where('token_hash', '=', tokenHash)
      .where('used_at', 'is', null)
      .where('expires_at', '>', at)
      .returning('user_id')
      .executeTakeFirst();
    return used?.user_id;
  }

  async pruneExpired(now: number): Promise<void> {
    await this.#db.deleteFrom('console_sessions').where((eb) => eb.or([eb('expires_at', '<=', now), eb('ended_at', 'is not', null)])).execute();
    await this.#db.deleteFrom('console_links').where((eb) => eb.or([eb('expires_at', '<=', now), eb('used_at', 'is not', null)])).execute();
  }
}
