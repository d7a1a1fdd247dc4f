// The spend rows of periodic caps (`<id>@<ISO period start>` in key_spend: a key's, or any other owner's named so)
// as the audit and the pruner see them. Each usage record names the period rows its charge added to (spend_id), so a
// row can be checked against the records' costs; records pruned by usage.retention_days leave their part in
// usage_pruned_spend. Rows of periods long over are deleted, with their pruned sums: one row per owner per period
// would otherwise grow forever.

import { sql, type Kysely } from 'kysely';
import type { StoreDialect } from './migrations.js';
import { decodeMoney, decodeSpendIds } from './row-codec.js';
import type { Database } from './schema.js';
import { writeTransaction } from './write-transaction.js';

const DAY_MS = 86_400_000;
/** `YYYY-MM-DDTHH:mm:ss.sssZ`, as Date.toISOString writes a period's start: 24 characters. */
const ISO_START = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const ISO_LENGTH = 24;

/**
 * How long a period row is kept: until its period ended more than 90 days ago. A row names its period's start only;
 * the longest period (a month of 31 days with an hour more) ends within 32 days of it, so a row goes once its period
 * started more than 90 + 32 days ago.
 */
export const PERIOD_ROWS_KEPT_MS = (90 + 32) * DAY_MS;

/** The start (epoch ms) of the period a spend row id names (`<id>@<ISO start>`); null for a lifetime row. */
export function periodStartOf(rowId: string): number | null {
  const at = rowId.lastIndexOf('@');
  if (at <= 0) return null;
  const iso = rowId.slice(at + 1);
  if (!ISO_START.test(iso)) return null;
  const start = Date.parse(iso);
  return Number.isNaN(start) || new Date(start).toISOString() !== iso ? null : start;
}

/** Whether the pruner may have deleted period row `rowId` by `now` (its period ended long ago). */
export function periodRowExpired(rowId: string, now: number): boolean {
  const start = periodStartOf(rowId);
  return start !== null && start < now - PERIOD_ROWS_KEPT_MS;
}

function add(map: Map<string, bigint>, key: string, amount: bigint): void {
  map.set(key, (map.get(key) ?? 0n) + amount);
}

/** What the audit compares, by period row id. */
export interface PeriodSpends {
  /** The period rows in key_spend, their spend. */
  readonly rows: ReadonlyMap<string, bigint>;
  /** The costs of the usage records naming each row (spend_id). */
  readonly recorded: ReadonlyMap<string, bigint>;
  /** What records naming it cost before they were pruned, or before records named their rows (migration 0028). */
  readonly pruned: ReadonlyMap<string, bigint>;
}

export async function readPeriodSpends(db: Kysely<Database>): Promise<PeriodSpends> {
  const rows = new Map<string, bigint>();
  for (const row of await db.selectFrom('key_spend').select(['key_id', 'spent']).where('key_id', 'like', '%@%').execute()) {
    if (periodStartOf(row.key_id) !== null) rows.set(row.key_id, decodeMoney(row.spent));
  }
  // One sum per distinct spend_id (a period's, or a key's and another owner's period together): few rows.
  const recorded = new Map<string, bigint>();
  const sums = await db
    .selectFrom('usage_records')
    .select((eb) => ['spend_id', eb.fn.sum<number | string | bigint | null>('cost').as('total')])
    .where('spend_id', 'is not', null)
    .groupBy('spend_id')
    .execute();
  for (const sum of sums) for (const id of decodeSpendIds(sum.spend_id ?? '')) add(recorded, id, decodeMoney(sum.total ?? 0));
  const pruned = new Map<string, bigint>();
  for (const row of await db.selectFrom('usage_pruned_spend').select(['spend_id', 'cost']).execute()) pruned.set(row.spend_id, decodeMoney(row.cost));
  return { rows, recorded, pruned };
}

/** Adds the costs of records being pruned to their period rows' pruned sums (in the pruning's transaction). */
export async function keepPrunedSpends(trx: Kysely<Database>, records: readonly { readonly spend_id: string | null; readonly cost: number | string | bigint | null }[]): Promise<void> {
  const sums = new Map<string, bigint>();
  for (const r of records) {
    if (r.spend_id === null || r.cost === null) continue;
    for (const id of decodeSpendIds(r.spend_id)) add(sums, id, decodeMoney(r.cost));
  }
  // In one order on every instance (no two transactions lock the same rows in opposite orders).
  for (const [id, cost] of [...sums].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    await trx
      .insertInto('usage_pruned_spend')
      .values({ spend_id: id, cost })
      .onConflict((oc) => oc.column('spend_id').doUpdateSet({ cost: sql<bigint>`usage_pruned_spend.cost + ${cost}` }))
      .execute();
  }
}

/**
 * Deletes up to `limit` period rows whose period started before `before` (epoch ms) with their pruned sums, and up to
 * `limit` pruned sums of such periods whose row is gone already, in one transaction; the larger of the two counts. A
 * sum never goes before its row, so a row the audit finds is still whole. Found by the start's text (the id's ISO end
 * sorts as the time does).
 */
export async function prunePeriodRows(db: Kysely<Database>, dialect: StoreDialect, before: number, limit: number): Promise<number> {
  const cutoff = new Date(before).toISOString();
  // The last 24 characters of the id: substr(id, length(id) - 23), in both dialects.
  const startOf = (column: 'key_id' | 'spend_id') => sql<string>`substr(${sql.ref(column)}, length(${sql.ref(column)}) - ${ISO_LENGTH - 1})`;
  // The id's own check: a lifetime row whose id merely ends so is never taken for a period's.
  const expired = (id: string): boolean => {
    const at = periodStartOf(id);
    return at !== null && at < before;
  };
  return writeTransaction(db, dialect, async (trx) => {
    const rows = await trx.selectFrom('key_spend').select('key_id').where('key_id', 'like', '%@%').where(startOf('key_id'), '<', cutoff).limit(limit).execute();
    const ids = rows.map((r) => r.key_id).filter(expired);
    if (ids.length > 0) {
      await trx.deleteFrom('key_spend').where('key_id', 'in', ids).execute();
      await trx.deleteFrom('usage_pruned_spend').where('spend_id', 'in', ids).execute();
    }
    // Sums left behind: their records were pruned after their row went (usage.retention_days longer than periods are kept).
    const orphans = await trx
      .selectFrom('usage_pruned_spend')
      .select('spend_id')
      .where(startOf('spend_id'), '<', cutoff)
      .where((eb) => eb.not(eb.exists(eb.selectFrom('key_spend').select('key_id').whereRef('key_spend.key_id', '=', 'usage_pruned_spend.spend_id'))))
      .limit(limit)
      .execute();
    const orphanIds = orphans.map((r) => r.spend_id).filter(expired);
    if (orphanIds.length > 0) await trx.deleteFrom('usage_pruned_spend').where('spend_id', 'in', orphanIds).execute();
    // A full batch deleted: the caller asks again (a batch with ids left out by the check ends the run).
    return Math.max(ids.length, orphanIds.length);
  });
}
