// `gateway accounts audit`: the books checked from their sources. Every balance against the sum of its ledger; every
// charge against its usage record's cost (the store's SQL, LedgerStore.auditLedger); every priced record's cost
// computed again from its tokens at the prices of its version (what the store kept of each Pricing); and every
// periodic cap's spend row against the costs of the records that name it (spend_id). Any mismatch is a problem; none
// means nothing was lost or invented. An account below zero is no mismatch (requests in flight may overrun their
// reservations: docs/money.md) but is named with its overdraft, for the operator to act on.

import type { Usage } from '../ir/usage.js';
import { periodRowExpired } from '../store/period-spends.js';
import type { BooksView, Store, UsageRecord } from '../store/store.js';
import { callCost, costOf } from './price.js';
import { pricingFromDocument, type Pricing } from './pricing.js';

const PAGE = 1000;

export interface AuditReport {
  readonly accounts: number;
  readonly pricedRecords: number;
  readonly problems: readonly string[];
  /** The accounts whose balance is below zero, and by how much (nano-units, positive). */
  readonly overdrawn: readonly Overdraft[];
}

export interface Overdraft {
  readonly account: string;
  readonly by: bigint;
}

function usageOf(record: UsageRecord): Usage {
  const usage: Usage = {
    promptTokens: record.promptTokens,
    completionTokens: record.completionTokens,
    cachedTokens: record.cachedTokens,
    cacheWriteTokens: record.cacheWriteTokens,
    reasoningTokens: record.reasoningTokens,
  };
  // Timed output's seconds are charged at per_second: the record's own count, as its cost was computed from it.
  if (record.seconds !== undefined) Object.assign(usage, { seconds: record.seconds });
  if (record.images === undefined) return usage;
  return Object.assign(usage, { images: record.images, inputImageTokens: record.inputImageTokens ?? 0, outputImageTokens: record.outputImageTokens ?? 0 });
}

/** What `record` should cost at its version's prices: null when its model had no price then (it costs 0). */
function expectedCost(record: UsageRecord, pricing: Pricing): bigint {
  // A request no upstream served costs nothing, whatever usage it reported.
  if (record.status >= 400) return 0n;
  // A flat-priced call's record names its operation where a model would be (pricing.calls).
  const flat = pricing.callPrice(record.model);
  if (flat !== null) return callCost(flat, pricing.multiplierOf(record.group));
  const price = pricing.priceOf(record.model);
  return price === null ? 0n : costOf(usageOf(record), price, pricing.multiplierOf(record.group));
}

/**
 * Each period spend row (`<id>@<ISO start>`) equals what the records naming it cost, those kept and those pruned. A
 * row the pruner may have deleted (its period ended long ago: PERIOD_ROWS_KEPT_MS) is not missed; one it may not have
 * is.
 */
async function auditPeriodRows(books: BooksView, now: number): Promise<string[]> {
  const { rows, recorded, pruned } = await books.periodSpends();
  const problems: string[] = [];
  for (const id of [...new Set([...rows.keys(), ...recorded.keys(), ...pruned.keys()])].sort()) {
    const row = rows.get(id);
    const cost = (recorded.get(id) ?? 0n) + (pruned.get(id) ?? 0n);
    if (row === undefined) {
      if (cost !== 0n && !periodRowExpired(id, now)) problems.push(`spend row "${id}" is missing but its usage records cost ${cost} (nano-units)`);
    } else if (row !== cost) {
      problems.push(`spend row "${id}": spent ${row} but the usage records naming it cost ${cost} (nano-units)`);
    }
  }
  return problems;
}

/**
 * `now`: which period rows the pruner may have deleted by then (the audit skips them). Every table is read from one
 * snapshot (Store.readBooks): a charge batch or a pruning committing while the audit runs cannot make a row look wrong.
 */
export function auditBooks(store: Pick<Store, 'readBooks'>, now: number = Date.now()): Promise<AuditReport> {
  return store.readBooks((books) => auditIn(books, now));
}

async function auditIn(store: BooksView, now: number): Promise<AuditReport> {
  const problems = (await store.ledger.auditLedger()).map((p) => p.what);
  problems.push(...(await auditPeriodRows(store, now)));
  const documents = await store.ledger.priceVersions();
  const versions = new Map<string, Pricing>();
  let pricedRecords = 0;
  for (let after = 0; ; ) {
    const page = await store.pricedUsage(after, PAGE);
    if (page.length === 0) break;
    for (const { id, record } of page) {
      after = id;
      pricedRecords++;
      const version = record.priceVersion;
      const document = version === undefined ? undefined : documents.get(version);
      if (version === undefined || document === undefined) {
        problems.push(`request ${record.requestId}: price version ${version ?? '(none)'} is not in the store`);
        continue;
      }
      let pricing = versions.get(version);
      if (pricing === undefined) {
        pricing = pricingFromDocument(document);
        versions.set(version, pricing);
      }
      const expected = expectedCost(record, pricing);
      if (record.cost !== expected) problems.push(`request ${record.requestId}: cost ${record.cost} but its usage at version ${version} costs ${expected} (nano-units)`);
    }
  }
  const accounts = await store.ledger.listAccounts();
  const overdrawn = accounts.filter((a) => a.balance < 0n).map((a): Overdraft => ({ account: a.name, by: -a.balance }));
  return { accounts: accounts.length, pricedRecords, problems, overdrawn };
}
