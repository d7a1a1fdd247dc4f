// What the scan reads of core's tables to see events happen that no one request makes: an account's balance below a
// threshold (and the last credit, which names the time it went below: a top-up starts a new one), keys at their
// max_spend, the caps per period (keys' and accounts') whose current period's row the scan compares, and keys about to
// expire. Reads only; small answers (the accounts and keys in that state, or with such a cap).

import type { Kysely } from 'kysely';
import type { SpendCap, SpendPeriod } from '../../core/config/resolved.js';
import { decodeInteger, decodeMoney, spendPeriodOf } from '../../core/store/row-codec.js';
import type { Database } from '../../core/store/schema.js';

/** Spend rows asked at once (a bound-parameter list far below either database's limit). */
const CHUNK = 500;

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

/** A run-time key whose max_spend resets each period (its current period's row is the calendar clock's). */
export interface PeriodCappedKey {
  readonly id: string;
  readonly name: string;
  readonly account: string | null;
  readonly maxSpend: bigint;
  readonly spendPeriod: SpendPeriod;
}

/** An enabled account as the store has it: the max_spend set at run time, if any (gateway.yaml's is the config's). */
export interface CapAccount {
  readonly name: string;
  readonly spendCap: SpendCap | undefined;
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

  /** Run-time keys (not revoked) whose max_spend is per period: the scan finds their current period's row. */
  async keysCappedPerPeriod(): Promise<PeriodCappedKey[]> {
    const rows = await this.#db
      .selectFrom('api_keys')
      .select(['id', 'name', 'account', 'max_spend', 'spend_period', 'spend_timezone'])
      .where('revoked_at', 'is', null)
      .where('max_spend', 'is not', null)
      .where('spend_period', 'is not', null)
      .orderBy('id')
      .limit(10_000)
      .execute();
    return rows.flatMap((r) => {
      const { spendPeriod } = spendPeriodOf(r.spend_period, r.spend_timezone);
      return spendPeriod === undefined ? [] : [{ id: r.id, name: r.name, account: r.account, maxSpend: decodeMoney(r.max_spend ?? 0), spendPeriod }];
    });
  }

  /** Enabled accounts with a max_spend set at run time, and those named (gateway.yaml's, whose caps are the file's). */
  async capAccounts(named: readonly string[]): Promise<CapAccount[]> {
    const rows = await this.#db
      .selectFrom('accounts')
      .select(['name', 'max_spend', 'spend_period', 'spend_timezone'])
      .where((eb) => eb.or([eb('disabled', 'is', null), eb('disabled', '=', 0)]))
      .where((eb) => (named.length === 0 ? eb('max_spend', 'is not', null) : eb.or([eb('max_spend', 'is not', null), eb('name', 'in', named)])))
      .orderBy('name')
      .limit(10_000)
      .execute();
    return rows.map((r) => ({
      name: r.name,
      spendCap: r.max_spend === null ? undefined : Object.assign({ maxSpend: decodeMoney(r.max_spend) }, spendPeriodOf(r.spend_period, r.spend_timezone)),
    }));
  }

  /** What the spend rows `ids` hold (a key's id, `account:<name>`, or either with `@<period start>`); absent: none yet. */
  async spentOf(ids: readonly string[]): Promise<Map<string, bigint>> {
    const spent = new Map<string, bigint>();
    for (let at = 0; at < ids.length; at += CHUNK) {
      const rows = await this.#db.selectFrom('key_spend').select(['key_id', 'spent']).where('key_id', 'in', ids.slice(at, at + CHUNK)).execute();
      for (const r of rows) spent.set(r.key_id, decodeMoney(r.spent));
    }
    return spent;
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
