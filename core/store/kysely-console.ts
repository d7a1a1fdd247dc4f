// ConsoleStore over Kysely: the same queries on SQLite and PostgreSQL.

import type { Kysely, Selectable } from 'kysely';
import { ConsoleUserExists, type ConsoleSession, type ConsoleStore, type ConsoleUser } from './console-store.js';
import { decodeInteger } from './row-codec.js';
import type { ConsoleUsersTable, Database } from './schema.js';
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

  async setPassword(userId: string, passwordHash: string): Promise<void> {
    await this.#db.updateTable('console_users').set({ password_hash: passwordHash }).where('id', '=', userId).execute();
  }

  async setUserDisabled(userId: string, disabled: boolean): Promise<void> {
    await this.#db.updateTable('console_users').set({ disabled: disabled ? 1 : null }).where('id', '=', userId).execute();
  }

  async createSession(session: ConsoleSession): Promise<void> {
    await this.#db
      .insertInto('console_sessions')
      .values({ token_hash: session.tokenHash, user_id: session.userId, csrf: session.csrf, created_at: session.createdAt, expires_at: session.expiresAt, ended_at: null })
      .execute();
  }

  async findSession(tokenHash: string, now: number): Promise<{ readonly session: ConsoleSession; readonly user: ConsoleUser } | undefined> {
    const row = await this.#db
      .selectFrom('console_sessions')
      .innerJoin('console_users', 'console_users.id', 'console_sessions.user_id')
      .select([
        'console_sessions.token_hash',
        'console_sessions.user_id',
        'console_sessions.csrf',
        'console_sessions.created_at as session_created_at',
        'console_sessions.expires_at',
        'console_users.id',
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
    const user = decodeUser(row);
    if (user.disabled) return undefined;
    return {
      session: { tokenHash: row.token_hash, userId: row.user_id, csrf: row.csrf, createdAt: decodeInteger(row.session_created_at), expiresAt: decodeInteger(row.expires_at) },
      user,
    };
  }

  async endSessions(by: { readonly tokenHash: string } | { readonly userId: string }, at: number): Promise<void> {
    const q = this.#db.updateTable('console_sessions').set({ ended_at: at }).where('ended_at', 'is', null);
    await ('tokenHash' in by ? q.where('token_hash', '=', by.tokenHash) : q.where('user_id', '=', by.userId)).execute();
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
