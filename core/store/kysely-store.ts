// The Store over a Kysely instance; dialect-neutral queries so SQLite and PostgreSQL share every line of it.
import { sql, type Kysely, type Transaction } from 'kysely';
import { KyselyConsole } from './kysely-console.js';
import { KyselyLedger } from './kysely-ledger.js';
import { auditLedgerIn } from './ledger-audit.js';
import { migrateToLatest, type StoreDialect } from './migrations.js';
import { decodeHourlyRow, decodeInteger, decodeKeyRow, decodeMoney, decodeUsageRow, encodeKeyPatch, encodeKeyRow, encodeUsageRow, spendPeriodOf } from './row-codec.js';
import { keepPrunedSpends, prunePeriodRows, readPeriodSpends, type PeriodSpends } from './period-spends.js';
import type { Database } from './schema.js';
import type { StorePart } from './store-part.js';
import type { Slot } from '../slot.js';
import type { BooksView, FoundKey, HourlyQuery, HourlyUsage, KeyPatch, NewKey, Store, StoredKey, UsageQuery, UsageRecord } from './store.js';
import { isUniqueViolation } from './unique-violation.js';
import { HOURLY_SUMS, hourlyRows, insertedOnce } from './usage-hourly.js';
import { lastUsed, usageLog, usageTotals, type UsageFilter, type UsageLogQuery, type UsageLogRow, type UsageTotals } from './usage-log.js';
import { readSnapshot } from './read-snapshot.js';
import { writeTransaction } from './write-transaction.js';

/** 500 rows x 28 columns stays far below SQLite's bound-variable limit (32766) and PostgreSQL's (65535). */
const INSERT_CHUNK_ROWS = 500;
const DEFAULT_USAGE_LIMIT = 100;

/** The records that carry a cost, in the order written, after row `afterId`; for the audit. */
async function pricedUsage(db: Kysely<Database>, afterId: number, limit: number): Promise<{ readonly id: number; readonly record: UsageRecord }[]> {
  const rows = await db
    .selectFrom('usage_records')
    .selectAll()
    .where('cost', 'is not', null)
    .where('id', '>', afterId)
    .orderBy('id')
    .limit(Math.max(1, Math.floor(limit)))
    .execute();
  return rows.map((row) => ({ id: decodeInteger(row.id), record: decodeUsageRow(row) }));
}

export class KyselyStore implements Store {
  readonly #db: Kysely<Database>;
  readonly #dialect: StoreDialect;
  readonly ledger: KyselyLedger;
  readonly console: KyselyConsole;
  readonly #parts: readonly StorePart<unknown>[];
  readonly #opened = new Map<Slot<unknown>, unknown>();
  #closed = false;

  constructor(db: Kysely<Database>, dialect: StoreDialect, parts: readonly StorePart<unknown>[]) {
    this.#db = db;
    this.#dialect = dialect;
    this.ledger = new KyselyLedger(db, dialect);
    this.console = new KyselyConsole(db);
    this.#parts = parts;
    for (const part of parts) this.#opened.set(part.slot, part.open(db, dialect));
  }

  part<T>(slot: Slot<T>): T {
    if (!this.#opened.has(slot)) throw new Error(`the store was opened without the part "${slot.name}"`);
    return this.#opened.get(slot) as T;
  }

  migrate(): Promise<void> {
    return migrateToLatest(this.#db, this.#dialect, this.#parts);
  }

  async pruneUsage(before: number, limit: number): Promise<number> {
    return writeTransaction(this.#db, this.#dialect, async (trx) => {
      // By the (ts, id) index: the batch's ids only, never the table. On PostgreSQL the rows are locked as they are
      // taken, and rows another instance's pruner holds are passed over: two pruners take two batches, not one twice.
      let batch = trx.selectFrom('usage_records').select('id').where('ts', '<', before).orderBy('ts').orderBy('id').limit(limit);
      if (this.#dialect === 'postgres') batch = batch.forUpdate().skipLocked();
      const ids = (await batch.execute()).map((r) => r.id);
      if (ids.length === 0) return 0;
      // Only what this call deleted is added to the pruned sums: a record another transaction deleted first (whatever
      // let it) comes back from neither the DELETE nor into the sums. RETURNING: PostgreSQL, and SQLite >= 3.35.
      const rows = await trx.deleteFrom('usage_records').where('id', 'in', ids).returning(['account', 'cost', 'spend_id']).execute();
      const pruned = new Map<string, { cost: bigint; records: number }>();
      for (const row of rows) {
        if (row.account === null || row.cost === null) continue;
        const sum = pruned.get(row.account) ?? { cost: 0n, records: 0 };
        sum.cost += decodeMoney(row.cost);
        sum.records += 1;
        pruned.set(row.account, sum);
      }
      // In one order on every instance (no two transactions lock the same rows in opposite orders).
      for (const [account, sum] of [...pruned].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
        await trx
          .insertInto('usage_pruned')
          .values({ account, cost: sum.cost, records: sum.records })
          .onConflict((oc) => oc.column('account').doUpdateSet({ cost: sql<bigint>`usage_pruned.cost + ${sum.cost}`, records: sql<number>`usage_pruned.records + ${sum.records}` }))
          .execute();
      }
      // A periodic cap's rows keep what these records cost too (the audit checks each row against its records).
      await keepPrunedSpends(trx, rows);
      return rows.length;
    });
  }

  periodSpends(): Promise<PeriodSpends> {
    return readPeriodSpends(this.#db);
  }

  readBooks<T>(read: (books: BooksView) => Promise<T>): Promise<T> {
    const dialect = this.#dialect;
    return readSnapshot(this.#db, dialect, (trx) => {
      const ledger = new KyselyLedger(trx, dialect);
      return read({
        ledger: { auditLedger: () => auditLedgerIn(trx), priceVersions: () => ledger.priceVersions(), listAccounts: () => ledger.listAccounts() },
        pricedUsage: (afterId, limit) => pricedUsage(trx, afterId, limit),
        periodSpends: () => readPeriodSpends(trx),
      });
    });
  }

  prunePeriodRows(before: number, limit: number): Promise<number> {
    return prunePeriodRows(this.#db, this.#dialect, before, limit);
  }

  async ping(): Promise<void> {
    await sql`select 1`.execute(this.#db);
  }

  /**
   * Runs `work` while holding the store's connection as Kysely's own queries do: with one SQLite connection, a
   * transaction of theirs (begin ... several awaits ... commit) must not have another's statements run inside it.
   */
  protected exclusive<T>(work: () => T): Promise<T> {
    return this.#db.connection().execute(async () => work());
  }

  async insertUsage(records: readonly UsageRecord[]): Promise<void> {
    if (records.length === 0) return;
    await writeTransaction(this.#db, this.#dialect, async (trx) => {
      const written = new Set<string>();
      const rows = (await this.ledger.writePriced(trx, records, written)).map((r) => encodeUsageRow(r));
      for (let start = 0; start < rows.length; start += INSERT_CHUNK_ROWS) {
        const inserted = await trx
          .insertInto('usage_records')
          .values(rows.slice(start, start + INSERT_CHUNK_ROWS))
          .onConflict((oc) => oc.column('request_id').doNothing())
          .returning('request_id')
          .execute();
        for (const row of inserted) written.add(row.request_id);
      }
      const hourly = hourlyRows(insertedOnce(records, written));
      for (let start = 0; start < hourly.length; start += INSERT_CHUNK_ROWS) {
        await trx
          .insertInto('usage_hourly')
          .values(hourly.slice(start, start + INSERT_CHUNK_ROWS))
          .onConflict((oc) =>
            oc.columns(['hour', 'account', 'key_id', 'model', 'channel']).doUpdateSet((eb) =>
              Object.fromEntries(HOURLY_SUMS.map((c) => [c, eb(eb.ref(`usage_hourly.${c}`), '+', eb.ref(`excluded.${c}`))])),
            ),
          )
          .execute();
      }
    });
  }

  async hourlyUsage(query: HourlyQuery): Promise<HourlyUsage[]> {
    let q = this.#db.selectFrom('usage_hourly').where('hour', '>=', query.from).where('hour', '<', query.to);
    if (query.account !== undefined) q = q.where('account', '=', query.account);
    if (query.keyId !== undefined) q = q.where('key_id', '=', query.keyId);
    const size = query.bucketMs;
    if (size === undefined) {
      const rows = await q.selectAll().orderBy('hour').orderBy('key_id').orderBy('model').orderBy('channel').execute();
      return rows.map(decodeHourlyRow);
    }
    // Summed in the database: a month of an account's hours is tens of thousands of rows, its days a few thousand.
    if (!Number.isSafeInteger(size) || size <= 0) throw new Error(`bucketMs must be a positive integer, not ${size}`);
    const bucket = sql<number | string | bigint>`(hour / ${sql.lit(size)}) * ${sql.lit(size)}`;
    const rows = await q
      .select((eb) => [
        bucket.as('hour'),
        'account',
        'key_id',
        'model',
        sql<string>`''`.as('channel'),
        ...HOURLY_SUMS.map((c) => eb.fn.sum<number | string | bigint>(c).as(c)),
      ])
      .groupBy([bucket, 'account', 'key_id', 'model'])
      .orderBy('hour')
      .orderBy('key_id')
      .orderBy('model')
      .execute();
    return rows.map((row) => decodeHourlyRow(row as unknown as Parameters<typeof decodeHourlyRow>[0]));
  }

  async listUsage(query: UsageQuery = {}): Promise<UsageRecord[]> {
    const limit = Math.max(0, Math.floor(query.limit ?? DEFAULT_USAGE_LIMIT));
    let q = this.#db.selectFrom('usage_records').selectAll();
    if (query.requestId !== undefined) q = q.where('request_id', '=', query.requestId);
    const rows = await q.orderBy('ts', 'desc').orderBy('id', 'desc').limit(limit).execute();
    return rows.map(decodeUsageRow);
  }

  async chargedUsage(chargeId: string, limit: number, afterId = 0): Promise<{ readonly id: number; readonly record: UsageRecord }[]> {
    // By the partial index on charge_id (the charged records only).
    const rows = await this.#db
      .selectFrom('usage_records')
      .selectAll()
      .where('charge_id', '=', chargeId)
      .where('id', '>', afterId)
      .orderBy('id')
      .limit(Math.max(1, Math.floor(limit)))
      .execute();
    return rows.map((row) => ({ id: decodeInteger(row.id), record: decodeUsageRow(row) }));
  }

  async hourlyCost(query: HourlyQuery): Promise<bigint> {
    let q = this.#db
      .selectFrom('usage_hourly')
      .select((eb) => eb.fn.sum<number | string | bigint | null>('cost').as('total'))
      .where('hour', '>=', query.from)
      .where('hour', '<', query.to);
    if (query.account !== undefined) q = q.where('account', '=', query.account);
    if (query.keyId !== undefined) q = q.where('key_id', '=', query.keyId);
    const row = await q.executeTakeFirst();
    return row?.total === null || row?.total === undefined ? 0n : decodeMoney(row.total);
  }

  usageLog(query: UsageLogQuery): Promise<UsageLogRow[]> {
    return usageLog(this.#db, query);
  }

  usageTotals(filter: UsageFilter): Promise<UsageTotals> {
    return usageTotals(this.#db, filter);
  }

  lastUsed(keyIds: readonly string[]): Promise<Map<string, number>> {
    return lastUsed(this.#db, keyIds);
  }

  pricedUsage(afterId: number, limit: number): Promise<{ readonly id: number; readonly record: UsageRecord }[]> {
    return pricedUsage(this.#db, afterId, limit);
  }

  async countUsage(): Promise<number> {
    const row = await this.#db
      .selectFrom('usage_records')
      .select((eb) => eb.fn.countAll<number | string | bigint>().as('n'))
      .executeTakeFirstOrThrow();
    return decodeInteger(row.n);
  }

  async createKey(key: NewKey): Promise<StoredKey> {
    const row = encodeKeyRow(key);
    try {
      await this.#db.insertInto('api_keys').values(row).execute();
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
      // Say which constraint without echoing the hash: name clashes are the ones an operator can fix.
      const nameTaken = (await this.#findKey(this.#db, 'name', key.name)) !== undefined;
      const message = nameTaken
        ? `key name "${key.name}" is already taken`
        : `key "${key.name}" was not created: a key with the same id or secret already exists`;
      throw new Error(message, { cause: err });
    }
    return Object.assign({}, key, { revokedAt: null });
  }

  async findKeyByHash(hash: string): Promise<FoundKey | undefined> {
    // The account's max_spend comes in the same query: a key's lookup (cached 5 s) carries it to every request.
    const row = await this.#db
      .selectFrom('api_keys')
      .leftJoin('accounts', 'accounts.name', 'api_keys.account')
      .selectAll('api_keys')
      .select(['accounts.max_spend as account_max_spend', 'accounts.spend_period as account_spend_period', 'accounts.spend_timezone as account_spend_timezone'])
      .where('api_keys.hash', '=', hash)
      .executeTakeFirst();
    if (row === undefined) return undefined;
    const key = decodeKeyRow(row);
    if (row.account_max_spend === null || row.account_max_spend === undefined) return key;
    return Object.assign(key, { accountCap: Object.assign({ maxSpend: decodeMoney(row.account_max_spend) }, spendPeriodOf(row.account_spend_period ?? null, row.account_spend_timezone ?? null)) });
  }

  async listKeys(): Promise<StoredKey[]> {
    const rows = await this.#db.selectFrom('api_keys').selectAll().orderBy('created_at').orderBy('name').execute();
    return rows.map(decodeKeyRow);
  }

  updateKey(idOrName: string, patch: KeyPatch): Promise<StoredKey | undefined> {
    return writeTransaction(this.#db, this.#dialect, async (trx) => {
      const key = (await this.#findKey(trx, 'id', idOrName)) ?? (await this.#findKey(trx, 'name', idOrName));
      if (key === undefined) return undefined;
      const changes = encodeKeyPatch(patch);
      if (Object.keys(changes).length > 0) {
        try {
          await trx.updateTable('api_keys').set(changes).where('id', '=', key.id).execute();
        } catch (err) {
          if (!isUniqueViolation(err)) throw err;
          throw new Error(`key name "${patch.name ?? ''}" is already taken`, { cause: err });
        }
      }
      return this.#findKey(trx, 'id', key.id);
    });
  }

  revokeKey(idOrName: string, at: number): Promise<StoredKey | undefined> {
    return writeTransaction(this.#db, this.#dialect, async (trx) => {
      // An exact id wins over a name, so a key named like another key's id cannot be revoked by mistake.
      const key =
        (await this.#findKey(trx, 'id', idOrName)) ?? (await this.#findKey(trx, 'name', idOrName));
      if (key === undefined || key.revokedAt !== null) return key;
      // `revoked_at is null` keeps the first revocation time even if two revocations race.
      await trx
        .updateTable('api_keys')
        .set({ revoked_at: at })
        .where('id', '=', key.id)
        .where('revoked_at', 'is', null)
        .execute();
      // What the features bind to it lets go in the same transaction: no moment where a revoked key still holds it.
      for (const part of this.#parts) await part.keyRevoked?.(trx, key.id, at);
      return this.#findKey(trx, 'id', key.id);
    });
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#db.destroy();
  }

  async #findKey(
    db: Kysely<Database> | Transaction<Database>,
    column: 'id' | 'name',
    value: string,
  ): Promise<StoredKey | undefined> {
    const row = await db.selectFrom('api_keys').selectAll().where(column, '=', value).executeTakeFirst();
    return row === undefined ? undefined : decodeKeyRow(row);
  }
}
