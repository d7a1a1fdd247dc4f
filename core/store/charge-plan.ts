// What writing a batch of priced usage records changes besides the records themselves, summed per row it touches:
// one ledger charge per account (the sum of the batch's records billed to it: each record carries its own cost,
// and is unique by request id, so the request is charged once), one spend change per key and one draw per hold. Both stores (sqlite-store.ts's prepared statements, kysely-ledger.ts's
// queries) carry out the same plan, so a batch costs a few statements, not five per record.

import { accountSpendRow } from './ledger-store.js';
import type { UsageRecord } from './store.js';

/** One account's charge for the batch. */
export interface ChargeEntry {
  readonly account: string;
  /** Signed: minus the sum of the costs. */
  readonly amount: bigint;
  /**
   * The first record's request id: written now for the first time, so it names this charge uniquely (its
   * idempotency key, and the charge's `request_id`, which its records carry as their `charge_id`).
   */
  readonly firstRequestId: string;
  readonly requests: number;
  /**
   * The request ids of the charge's records when they were written naming another charge (chargeIds named a record
   * an earlier attempt of the batch had written: that charge is not this one), for the store to name this one; null
   * (the usual case) when they name it already.
   */
  readonly renamed: readonly string[] | null;
  /** The latest record's time. */
  readonly ts: number;
}

export interface ChargePlan {
  readonly entries: readonly ChargeEntry[];
  /** Signed nano-units to add to each account's balance. */
  readonly balances: ReadonlyMap<string, bigint>;
  /** Nano-units to add to each spend row: a key's (its id), an account's (`account:<name>`), a period's (`<row>@<start>`). */
  readonly spends: ReadonlyMap<string, bigint>;
  /** Nano-units each hold gives up. */
  readonly draws: ReadonlyMap<string, bigint>;
}

/**
 * A map's entries in key order: every instance updates the rows a batch touches in the same order, so two batches
 * touching the same accounts never lock them in opposite orders (a deadlock on PostgreSQL).
 */
export function sorted(map: ReadonlyMap<string, bigint>): [string, bigint][] {
  return [...map].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/** A charge's ledger note: how many requests it covers. */
export function chargeNote(requests: number): string {
  return requests === 1 ? '1 request' : `${requests} requests`;
}

function add(map: Map<string, bigint>, key: string, amount: bigint): void {
  map.set(key, (map.get(key) ?? 0n) + amount);
}

/**
 * The charge each priced record is written naming (its `charge_id`), by request id: the first charged record of its
 * account in the batch, which is the charge's name when every record is written now (planCharges names the charge
 * after the first record actually written; the rare batch an earlier attempt partly wrote is renamed, see `renamed`).
 */
export function chargeIds(records: readonly UsageRecord[]): Map<string, string> {
  const ids = new Map<string, string>();
  const firsts = new Map<string, string>();
  for (const record of records) {
    const cost = record.cost;
    if (cost === undefined || cost <= 0n || record.account === undefined || ids.has(record.requestId)) continue;
    let first = firsts.get(record.account);
    if (first === undefined) {
      first = record.requestId;
      firsts.set(record.account, first);
    }
    ids.set(record.requestId, first);
  }
  return ids;
}

/**
 * The plan for `records` (priced ones) of which `written` were inserted now (emptied as they are planned): a record
 * whose request id was recorded before (an earlier attempt of its batch) changes nothing again.
 */
export function planCharges(records: readonly UsageRecord[], written: Set<string>, named: ReadonlyMap<string, string>): ChargePlan {
  const entries = new Map<string, { account: string; amount: bigint; firstRequestId: string; requests: number; ts: number; renamed: string[] | null }>();
  const balances = new Map<string, bigint>();
  const spends = new Map<string, bigint>();
  const draws = new Map<string, bigint>();
  for (const record of records) {
    const cost = record.cost;
    if (cost === undefined || cost <= 0n || !written.has(record.requestId)) continue;
    // Planned once, even if the batch holds its request id twice (only one of them was written).
    written.delete(record.requestId);
    if (record.account !== undefined) {
      const entry = entries.get(record.account);
      if (entry === undefined) {
        const renamed = named.get(record.requestId) === record.requestId ? null : [record.requestId];
        entries.set(record.account, { account: record.account, amount: -cost, firstRequestId: record.requestId, requests: 1, ts: record.ts, renamed });
      } else {
        entry.amount -= cost;
        entry.requests++;
        if (record.ts > entry.ts) entry.ts = record.ts;
        entry.renamed?.push(record.requestId);
      }
      add(balances, record.account, -cost);
      // The account's lifetime spend (its max_spend's row, `account:<name>`), as the key's own below.
      add(spends, accountSpendRow(record.account), cost);
    }
    add(spends, record.keyId, cost);
    for (const draw of record.draws ?? []) {
      add(draws, draw.holdId, draw.amount);
      // A periodic cap's spend: its period's row, beside the key's lifetime one.
      if (draw.spendId !== undefined) add(spends, draw.spendId, draw.amount);
    }
  }
  return { entries: [...entries.values()], balances, spends, draws };
}
