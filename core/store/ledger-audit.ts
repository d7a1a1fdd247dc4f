// The ledger's audit (LedgerStore.auditLedger): every balance against the sum of its ledger, and every account's
// charges against the costs of its usage records, kept and pruned, and against its lifetime spend row. Its queries must see one moment of the books (a
// charge batch committing between two of them would make a correct account look wrong): run it inside a snapshot
// (read-snapshot.ts), as KyselyLedger.auditLedger and KyselyStore.readBooks do.

import type { Kysely } from 'kysely';
import type { AuditProblem } from './ledger-store.js';
import { decodeMoney } from './row-codec.js';
import type { Database } from './schema.js';

export async function auditLedgerIn(db: Kysely<Database>): Promise<AuditProblem[]> {
  const problems: AuditProblem[] = [];
  const sums = await db
    .selectFrom('accounts')
    .leftJoin('ledger', 'ledger.account', 'accounts.name')
    .select((eb) => ['accounts.name as name', 'accounts.balance as balance', eb.fn.sum<number | string | bigint | null>('ledger.amount').as('total')])
    .groupBy(['accounts.name', 'accounts.balance'])
    .execute();
  for (const row of sums) {
    const balance = decodeMoney(row.balance);
    const total = decodeMoney(row.total ?? 0);
    if (balance !== total) problems.push({ what: `account "${row.name}": balance ${balance} but its ledger sums to ${total} (nano-units)` });
  }
  // An account's charges are the costs of the usage records billed to it (each charge sums a batch of them).
  const charged = await db
    .selectFrom('ledger')
    .select((eb) => ['account', eb.fn.sum<number | string | bigint | null>('amount').as('total')])
    .where('kind', '=', 'charge')
    .groupBy('account')
    .execute();
  const costs = await db
    .selectFrom('usage_records')
    .select((eb) => ['account', eb.fn.sum<number | string | bigint | null>('cost').as('total')])
    .where('account', 'is not', null)
    .groupBy('account')
    .execute();
  // Records pruned by usage.retention_days are counted by what they cost (usage_pruned).
  const pruned = await db.selectFrom('usage_pruned').select(['account', 'cost']).execute();
  const chargedBy = new Map(charged.map((c) => [c.account, -decodeMoney(c.total ?? 0)]));
  const costBy = new Map(costs.map((c) => [c.account ?? '', decodeMoney(c.total ?? 0)]));
  for (const p of pruned) costBy.set(p.account, (costBy.get(p.account) ?? 0n) + decodeMoney(p.cost));
  for (const account of new Set([...chargedBy.keys(), ...costBy.keys()])) {
    const charges = chargedBy.get(account) ?? 0n;
    const recorded = costBy.get(account) ?? 0n;
    if (charges !== recorded) problems.push({ what: `account "${account}": charged ${charges} but its usage records cost ${recorded} (nano-units)` });
  }
  // An account's lifetime spend row (its max_spend's, `account:<name>`) gets every charge of the account in the
  // charge's own transaction: it equals the account's charges exactly, or a cap would be counted from a wrong figure.
  const rows = await db.selectFrom('key_spend').select(['key_id', 'spent']).where('key_id', 'like', 'account:%').execute();
  const lifetime = new Map(rows.filter((r) => !r.key_id.includes('@')).map((r) => [r.key_id.slice('account:'.length), decodeMoney(r.spent)]));
  for (const account of new Set([...chargedBy.keys(), ...lifetime.keys()])) {
    const charges = chargedBy.get(account) ?? 0n;
    const row = lifetime.get(account) ?? 0n;
    if (charges !== row) problems.push({ what: `account "${account}": charged ${charges} but its spend row account:${account} says ${row} (nano-units)` });
  }
  return problems;
}
