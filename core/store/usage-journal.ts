// A local SQLite file where usage records wait while the store (PostgreSQL) is down: written by the usage writer's
// drain, read back oldest first when the store answers again, and kept across a stop or a crash in between.
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import type { HoldDraw, UsageRecord } from './store.js';

export interface JournalEntry {
  readonly seq: number;
  readonly record: UsageRecord;
}

/**
 * locking_mode = EXCLUSIVE first: the lock the first write takes is then kept until close, so a second process
 * (or connection) on the same file fails at open instead of the two replaying the same records. In that mode
 * WAL keeps its index in memory (no -shm file). synchronous = FULL: with WAL, NORMAL may lose the last commits
 * to a power cut or OS crash, and these records are charges not written anywhere else; the fsync per append
 * is cheap here, as appends happen only in the writer's drain (one per batch), never on the request path.
 */
const PRAGMAS: readonly string[] = ['locking_mode = EXCLUSIVE', 'journal_mode = WAL', 'synchronous = FULL'];

export class UsageJournal {
  readonly path: string;
  readonly #db: BetterSqlite3.Database;
  readonly #insert: BetterSqlite3.Statement<[string]>;
  readonly #peek: BetterSqlite3.Statement<[number], { seq: number; record: string }>;
  readonly #remove: BetterSqlite3.Statement<[number]>;
  readonly #appendAll: (records: readonly UsageRecord[]) => void;
  /** Counted once at open, then kept here: `size` is read on every request (the meter's `saturated`). */
  #size: number;

  /** Opens (creating the file and its folder); throws naming the path when another instance holds it. */
  constructor(path: string) {
    this.path = path;
    mkdirSync(dirname(path), { recursive: true });
    // No busy wait: the only other holder is another instance, which keeps the lock until it stops.
    const db = new BetterSqlite3(path, { timeout: 0 });
    try {
      for (const pragma of PRAGMAS) db.pragma(pragma);
      db.exec('CREATE TABLE IF NOT EXISTS usage_journal (seq INTEGER PRIMARY KEY, record TEXT NOT NULL)');
      // A write now takes the exclusive lock at once (CREATE TABLE IF NOT EXISTS writes nothing once the table exists).
      db.exec('BEGIN EXCLUSIVE; COMMIT');
    } catch (err) {
      db.close();
      if (isBusy(err)) {
        throw new Error(
          `usage journal ${path} is in use by another gateway instance; each instance needs a journal of its own (set store.journal_path)`,
          { cause: err },
        );
      }
      throw err;
    }
    this.#db = db;
    this.#insert = db.prepare('INSERT INTO usage_journal (record) VALUES (?)');
    this.#peek = db.prepare<[number], { seq: number; record: string }>('SELECT seq, record FROM usage_journal ORDER BY seq LIMIT ?');
    this.#remove = db.prepare('DELETE FROM usage_journal WHERE seq <= ?');
    this.#appendAll = db.transaction((records: readonly UsageRecord[]) => {
      for (const record of records) this.#insert.run(encodeJournalRecord(record));
    });
    this.#size = (db.prepare('SELECT count(*) AS n FROM usage_journal').get() as { n: number }).n;
  }

  /** Records waiting in the journal. */
  get size(): number {
    return this.#size;
  }

  /** Appends in one transaction: durable when it returns, or (when it throws) none was added. */
  append(records: readonly UsageRecord[]): void {
    if (records.length === 0) return;
    this.#appendAll(records);
    this.#size += records.length;
  }

  /** The oldest `limit` records, oldest first. */
  peek(limit: number): JournalEntry[] {
    return this.#peek.all(limit).map((row) => ({ seq: row.seq, record: decodeJournalRecord(row.record) }));
  }

  /** Removes every record up to and including `throughSeq` (those written to the store). */
  remove(throughSeq: number): void {
    this.#size -= this.#remove.run(throughSeq).changes;
  }

  close(): void {
    if (this.#db.open) this.#db.close();
  }
}

function isBusy(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED';
}

/** JSON cannot hold a bigint: money (cost, the draws' amounts) is written as a decimal string. */
function bigintAsString(_key: string, value: unknown): unknown {
  return typeof value === 'bigint' ? value.toString() : value;
}

export function encodeJournalRecord(record: UsageRecord): string {
  return JSON.stringify(record, bigintAsString);
}

/** The inverse of encodeJournalRecord: the money fields are bigints again, exactly. */
export function decodeJournalRecord(text: string): UsageRecord {
  const raw = JSON.parse(text) as Record<string, unknown>;
  if (typeof raw['cost'] === 'string') raw['cost'] = BigInt(raw['cost']);
  if (Array.isArray(raw['draws'])) {
    raw['draws'] = (raw['draws'] as { holdId: string; amount: string; spendId?: string }[]).map(
      (d): HoldDraw => (d.spendId === undefined ? { holdId: d.holdId, amount: BigInt(d.amount) } : { holdId: d.holdId, amount: BigInt(d.amount), spendId: d.spendId }),
    );
  }
  return raw as unknown as UsageRecord;
}
