// Opens a SQLite database file as a Store: better-sqlite3 under Kysely, tuned for one writer and many readers.
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import { chargeIds, chargeNote, planCharges, sorted } from './charge-plan.js';
import { chargeKey } from './kysely-ledger.js';
import { KyselyStore } from './kysely-store.js';
import type { StorePart } from './store-part.js';
import { encodeUsageRow } from './row-codec.js';
import type { Database } from './schema.js';
import type { Store, UsageRecord } from './store.js';
import { SQLITE_MEMORY } from './store-url.js';
import { HOURLY_COLUMNS, hourlyRows, hourlyUpsertSql, insertedOnce } from './usage-hourly.js';

/**
 * WAL lets readers run while the usage writer commits; NORMAL sync is durable across process crashes in WAL
 * mode (only an OS crash can lose the last commits); busy_timeout rides out a second process holding the lock.
 * temp_store = MEMORY: each multi-row INSERT of a usage batch opens a statement journal (to undo that one
 * statement), by default a file created and unlinked in /var/tmp at every flush; in memory the usage writer
 * spends 5.2 instead of 6.0 us per record (bench usage-writer).
 */
const PRAGMAS: readonly string[] = ['journal_mode = WAL', 'synchronous = NORMAL', 'busy_timeout = 5000', 'foreign_keys = ON', 'temp_store = MEMORY'];

/** Opens (creating the file and its parent directory) without migrating; openStore() migrates. */
export function createSqliteStore(filename: string, parts: readonly StorePart<unknown>[]): Store {
  if (filename !== SQLITE_MEMORY) mkdirSync(dirname(filename), { recursive: true });
  const database = new BetterSqlite3(filename);
  try {
    for (const pragma of PRAGMAS) database.pragma(pragma);
    // Every integer read back as a bigint: money columns hold nano-units past 2^53 (row-codec.ts narrows the rest).
    database.defaultSafeIntegers(true);
  } catch (err) {
    database.close();
    throw err;
  }
  return new SqliteStore(database, parts);
}

/** Rows per multi-row INSERT: 50 x 32 columns stays far below SQLite's bound-variable limit (32766). */
const ROWS_PER_STATEMENT = 50;

/**
 * The Kysely store with one hot path of its own: usage batches. Every request writes a record, and building
 * and compiling an INSERT per batch through the query builder cost about twice what SQLite spends storing the
 * rows; here the statements are prepared once and a batch is one transaction of 50-row inserts.
 */
class SqliteStore extends KyselyStore {
  readonly #database: BetterSqlite3.Database;
  #insertBatch: ((records: readonly UsageRecord[]) => void) | undefined;
  #charges: SqliteCharges | undefined;

  constructor(database: BetterSqlite3.Database, parts: readonly StorePart<unknown>[]) {
    super(new Kysely<Database>({ dialect: new SqliteDialect({ database }) }), 'sqlite', parts);
    this.#database = database;
  }

  override async insertUsage(records: readonly UsageRecord[]): Promise<void> {
    if (records.length === 0) return;
    // The columns are the codec's: every encoded row has all of them, in the same order.
    this.#insertBatch ??= this.#prepareInsert(Object.keys(encodeUsageRow(records[0] as UsageRecord)));
    const insertBatch = this.#insertBatch;
    const database = this.#database;
    // On the one connection Kysely's transactions use (acquireHold, post, ...), and never inside one of them: a batch
    // run inside another's begin ... commit would charge money that transaction already counted as there, and go
    // with it if it rolled back.
    await this.exclusive(() => {
      if (database.inTransaction) throw new Error('a usage batch would run inside another transaction');
      insertBatch(records);
    });
  }

  #prepareInsert(columns: readonly string[]): (records: readonly UsageRecord[]) => void {
    const inserts = new Multi(
      this.#database,
      (n) => `INSERT INTO usage_records (${columns.join(',')}) VALUES ${tuples(columns.length, n)} ON CONFLICT(request_id) DO NOTHING RETURNING request_id`,
    );
    const pushRow = rowPusher(columns);
    this.#charges ??= new SqliteCharges(this.#database, columns);
    const charges = this.#charges;
    const hourly = new Multi(this.#database, (n) => hourlyUpsertSql(n));
    const pushHourly = rowPusher(HOURLY_COLUMNS);
    // All or nothing, as the Kysely path: a failed batch is retried whole by the usage writer. The charges and the
    // hourly sums are written in the same transaction; a record already there (an earlier attempt) is left out,
    // with its charge and its part of the sums.
    return this.#database.transaction((records: readonly UsageRecord[]) => {
      const written = new Set<string>();
      const collect = (rows: unknown[]): void => {
        for (const r of rows as { request_id: string }[]) written.add(r.request_id);
      };
      inserts.run(charges.writePriced(records, written).map((r) => encodeUsageRow(r)), pushRow, collect);
      hourly.run(
        hourlyRows(insertedOnce(records, written)),
        (row, params) => pushHourly(row as unknown as Readonly<Record<string, unknown>>, params),
      );
    });
  }
}

/**
 * KyselyLedger.writePriced in prepared statements, run inside the usage batch's own transaction (better-sqlite3 is
 * synchronous): the priced records inserted 50 to a statement, those inserted now (a request recorded before is
 * left out by the unique index on request_id) planned into charges (charge-plan.ts), the ledger entries 50 to a
 * statement, and one statement per account, key and hold the batch touches.
 */
class SqliteCharges {
  readonly #pushRow: (row: Readonly<Record<string, unknown>>, params: unknown[]) => void;
  readonly #records: Multi;
  readonly #ledger: Multi;
  readonly #balance: BetterSqlite3.Statement;
  readonly #spend: BetterSqlite3.Statement;
  readonly #draw: BetterSqlite3.Statement;
  readonly #rename: BetterSqlite3.Statement;

  constructor(database: BetterSqlite3.Database, columns: readonly string[]) {
    this.#pushRow = rowPusher(columns);
    this.#records = new Multi(
      database,
      (n) => `INSERT INTO usage_records (${columns.join(',')}) VALUES ${tuples(columns.length, n)} ON CONFLICT(request_id) DO NOTHING RETURNING request_id`,
    );
    this.#ledger = new Multi(
      database,
      (n) => `INSERT INTO ledger (account, kind, amount, idempotency_key, request_id, key_id, note, ts) VALUES ${Array.from({ length: n }, () => "(?, 'charge', ?, ?, ?, NULL, ?, ?)").join(',')}`,
    );
    this.#balance = database.prepare('UPDATE accounts SET balance = balance + ? WHERE name = ?');
    this.#spend = database.prepare('INSERT INTO key_spend (key_id, spent) VALUES (?, ?) ON CONFLICT(key_id) DO UPDATE SET spent = key_spend.spent + excluded.spent');
    this.#draw = database.prepare('UPDATE holds SET amount = CASE WHEN amount > ? THEN amount - ? ELSE 0 END WHERE id = ?');
    this.#rename = database.prepare('UPDATE usage_records SET charge_id = ? WHERE request_id = ?');
  }

  /** Writes the priced records with their charges, adding the ids inserted to `written`; returns the others, for the bulk insert. */
  writePriced(records: readonly UsageRecord[], written: Set<string>): readonly UsageRecord[] {
    const priced: UsageRecord[] = [];
    const unpriced: UsageRecord[] = [];
    for (const record of records) (record.cost === undefined ? unpriced : priced).push(record);
    if (priced.length === 0) return records;
    const fresh = new Set<string>();
    const named = chargeIds(priced);
    this.#records.run(priced.map((r) => encodeUsageRow(r, named.get(r.requestId) ?? null)), this.#pushRow, (inserted) => {
      for (const r of inserted as { request_id: string }[]) fresh.add(r.request_id);
    });
    for (const id of fresh) written.add(id);
    const plan = planCharges(priced, fresh, named);
    this.#ledger.run(plan.entries, (e, params) => params.push(e.account, e.amount, chargeKey(e.firstRequestId), e.firstRequestId, chargeNote(e.requests), e.ts));
    for (const e of plan.entries) for (const id of e.renamed ?? []) this.#rename.run(e.firstRequestId, id);
    for (const [account, amount] of sorted(plan.balances)) this.#balance.run(amount, account);
    for (const [keyId, amount] of sorted(plan.spends)) this.#spend.run(keyId, amount);
    for (const [holdId, amount] of sorted(plan.draws)) this.#draw.run(amount, amount, holdId);
    return unpriced;
  }
}

/** One INSERT of many rows, prepared for 50 rows and for 1: rows go 50 to a statement, the rest one by one. */
class Multi {
  readonly #many: BetterSqlite3.Statement;
  readonly #one: BetterSqlite3.Statement;

  constructor(database: BetterSqlite3.Database, sql: (rows: number) => string) {
    this.#many = database.prepare(sql(ROWS_PER_STATEMENT));
    this.#one = database.prepare(sql(1));
  }

  /** Runs the statements for `items`, each pushing its values onto the statement's; `returned` gets what a RETURNING statement gave back. */
  run<T>(items: readonly T[], push: (item: T, params: unknown[]) => void, returned?: (rows: unknown[]) => void): void {
    const exec = (statement: BetterSqlite3.Statement, from: number, to: number): void => {
      const params: unknown[] = [];
      for (let i = from; i < to; i++) push(items[i] as T, params);
      if (returned === undefined) statement.run(params);
      else returned(statement.all(params));
    };
    let i = 0;
    for (; i + ROWS_PER_STATEMENT <= items.length; i += ROWS_PER_STATEMENT) exec(this.#many, i, i + ROWS_PER_STATEMENT);
    for (; i < items.length; i++) exec(this.#one, i, i + 1);
  }
}

/** `n` tuples of `width` placeholders: `(?,?),(?,?)`. */
function tuples(width: number, n: number): string {
  const tuple = `(${Array.from({ length: width }, () => '?').join(',')})`;
  return Array.from({ length: n }, () => tuple).join(',');
}

/** Pushes an encoded row's values in `columns` order (no array per row). */
function rowPusher(columns: readonly string[]): (row: Readonly<Record<string, unknown>>, params: unknown[]) => void {
  return (row, params) => {
    for (const column of columns) params.push(row[column]);
  };
}
