// What the scan reads of core's tables to see events happen that no one request makes: an account's balance below a
// threshold (and the last credit, which names the time it went below: a top-up starts a new one), keys at their
// max_spend, and keys about to expire. Reads only; small answers (the accounts and keys in that state).

import type { Kysely } from 'kysely';
import { decodeInteger, decodeMoney } from '../../core/store/row-codec.js';
import type { Database } from '../../core/store/schema.js';

export interface LowAccount {
  readonly account: string;
  readonly balance: bigint;
  /** The id of its last credit (a positive ledger entry); 0 when it never had one. */
  readonly lastCredit: string;
}

export interface CappedKey {
  readonly id: string;
  readonly name: string;
  readonly account: string | null;
  readonly maxSpend: bigint;
  readonly spent: bigint;
}

export interface ExpiringKey {
  readonly id: string;
  readonly name: string;
  readonly account: string | null;
  readonly expiresAt: number;
}

export class WatchedFacts {
  readonly #db: Kysely<Database>;

  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  /** Enabled accounts whose balance is below `threshold` (nano-units). */
  async accountsBelow(threshold: bigint): Promise<LowAccount[]> {
    const rows = await this.#db
      .selectFrom('accounts')
      .select(['name', 'balance'])
      .where('balance', '<', threshold)
      .where((eb) => eb.or([eb('disabled', 'is', null), eb('disabled', '=', 0)]))
      .orderBy('name')
      .limit(1000)
      .execute();
    if (rows.length === 0) return [];
    const credits = await this.#db
      .selectFrom('ledger')
      .select((eb) => ['account', eb.fn.max('id').as('last')])
      // By the partial index of the credits (0022): an account's charges since its last credit are not read.
      .where('amount', '>', 0n)
      .where(
        'account',
        'in',
        rows.map((r) => r.name),
      )
      .groupBy('account')
      .execute();
    const last = new Map(credits.map((c) => [c.account, String(c.last)]));
    return rows.map((r) => ({ account: r.name, balance: decodeMoney(r.balance), lastCredit: last.get(r.name) ?? '0' }));
  }

  /** Run-time keys (not revoked) whose spend reached their max_spend. */
  async keysAtCap(): Promise<CappedKey[]> {
    const rows = await this.#db
      .selectFrom('api_keys')
      .innerJoin('key_spend', 'key_spend.key_id', 'api_keys.id')
      .select(['api_keys.id', 'api_keys.name', 'api_keys.account', 'api_keys.max_spend', 'key_spend.spent'])
      .where('api_keys.revoked_at', 'is', null)
      .where('api_keys.max_spend', 'is not', null)
      // A cap per period is not reached by the lifetime spend this row counts (a period's row is another).
      .where('api_keys.spend_period', 'is', null)
      .whereRef('key_spend.spent', '>=', 'api_keys.max_spend')
      .limit(1000)
      .execute();
    return rows.map((r) => ({ id: r.id, name: r.name, account: r.account, maxSpend: decodeMoney(r.max_spend ?? 0), spent: decodeMoney(r.spent) }));
  }

  /** What `keyIds` have spent (the declared keys' caps are the config's). */
  async spentOf(keyIds: readonly string[]): Promise<Map<string, bigint>> {
    if (keyIds.length === 0) return new Map();
    const rows = await this.#db.selectFrom('key_spend').select(['key_id', 'spent']).where('key_id', 'in', keyIds).execute();
    return new Map(rows.map((r) => [r.key_id, decodeMoney(r.spent)]));
  }

  /** Run-time keys (not revoked) that expire after `from` and by `until`. */
  async keysExpiring(from: number, until: number): Promise<ExpiringKey[]> {
    const rows = await this.#db
      .selectFrom('api_keys')
      .select(['id', 'name', 'account', 'expires_at'])
      .where('revoked_at', 'is', null)
      .where('expires_at', '>', from)
      .where('expires_at', '<=', until)
      .orderBy('expires_at')
      .limit(1000)
      .execute();
    return rows.map((r) => ({ id: r.id, name: r.name, account: r.account, expiresAt: decodeInteger(r.expires_at ?? 0) }));
  }
}
