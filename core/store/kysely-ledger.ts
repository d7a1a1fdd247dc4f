// LedgerStore over Kysely, for SQLite and PostgreSQL alike. Money moves only inside transactions that also write
// its ledger entry; a hold is granted inside a transaction that first locks the budget's row (PostgreSQL: FOR
// UPDATE; SQLite runs one writer at a time), so two instances can never both take the same last nano-unit.

import { randomUUID } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { StoreDialect } from './migrations.js';
import { decodeInteger, decodeMoney, encodeUsageRow, spendPeriodOf } from './row-codec.js';
import type { Database } from './schema.js';
import type {
  Account,
  AuditProblem,
  Budget,
  HeldBudget,
  HoldRequest,
  HoldResult,
  LedgerEntry,
  LedgerKind,
  LedgerStore,
  NewLedgerEntry,
  Renewal,
} from './ledger-store.js';
import { AccountExists, BalanceBelowFloor, BalanceOverflowError, budgetName, MAX_BALANCE } from './ledger-store.js';
import type { UsageRecord } from './store.js';
import type { SpendCap } from '../config/resolved.js';
import { isUniqueViolation } from './unique-violation.js';
import { chargeIds, chargeNote, planCharges, sorted } from './charge-plan.js';
import { auditLedgerIn } from './ledger-audit.js';
import { readSnapshot } from './read-snapshot.js';
import { writeTransaction } from './write-transaction.js';

type Db = Kysely<Database>;

/** Rows per INSERT: 500 x 31 columns stays far below SQLite's bound-variable limit (32766) and PostgreSQL's (65535). */
const INSERT_CHUNK = 500;

/** The idempotency key of a request's charge: one per request id, whoever writes it and however often. */
export function chargeKey(requestId: string): string {
  return `charge:${requestId}`;
}

/** A JSON list of names as stored; anything else (a hand-edited row) reads as none. */
function decodeNames(text: string | null): string[] {
  if (text === null) return [];
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return [];
  }
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

function decodeAccount(row: {
  name: string;
  description: string | null;
  balance: number | string | bigint;
  created_at: number | string | bigint;
  disabled: number | string | bigint | null;
  key_groups: string | null;
  max_spend: number | string | bigint | null;
  spend_period: string | null;
  spend_timezone: string | null;
}): Account {
  const disabled = row.disabled !== null && decodeInteger(row.disabled) !== 0;
  const account = { name: row.name, description: row.description, balance: decodeMoney(row.balance), createdAt: decodeInteger(row.created_at), disabled, keyGroups: decodeNames(row.key_groups) };
  return row.max_spend === null ? account : Object.assign(account, { spendCap: Object.assign({ maxSpend: decodeMoney(row.max_spend) }, spendPeriodOf(row.spend_period, row.spend_timezone)) });
}

function decodeEntry(row: {
  id: number | string | bigint;
  account: string;
  kind: string;
  amount: number | string | bigint;
  idempotency_key: string;
  request_id: string | null;
  key_id: string | null;
  note: string | null;
  ts: number | string | bigint;
}): LedgerEntry {
  return {
    id: decodeInteger(row.id),
    account: row.account,
    kind: row.kind as LedgerKind,
    amount: decodeMoney(row.amount),
    idempotencyKey: row.idempotency_key,
    requestId: row.request_id,
    keyId: row.key_id,
    note: row.note,
    ts: decodeInteger(row.ts),
  };
}

/**
 * Appends an entry and moves its account's balance inside `trx`, a write transaction (writeTransaction) the caller
 * opened: what else it writes there (a feature's row saying why the money moved) commits with the entry or not at
 * all. An idempotency key already used applies nothing and returns the entry it made; an unknown account throws; a
 * balance past MAX_BALANCE, or below the entry's `floor`, throws (BalanceOverflowError, BalanceBelowFloor).
 */
export async function postLedgerEntry<DB extends Database>(
  within: Kysely<DB>,
  dialect: StoreDialect,
  entry: NewLedgerEntry,
): Promise<{ readonly entry: LedgerEntry; readonly applied: boolean }> {
  // A feature's transaction sees core's tables and its own (Kysely<Database & ItsTables>); only core's are used here,
  // and Kysely's types do not narrow a database to a part of it.
  const trx = within as unknown as Db;
  const existing = await trx.selectFrom('ledger').selectAll().where('idempotency_key', '=', entry.idempotencyKey).executeTakeFirst();
  if (existing !== undefined) return { entry: decodeEntry(existing), applied: false };
  const account = await lockAccount(trx, dialect, entry.account);
  if (account === undefined) throw new Error(`unknown account "${entry.account}"`);
  // A signed 64-bit column: SQLite would turn an overflow into a float, PostgreSQL refuse it; refused here alike.
  const after = account.balance + entry.amount;
  if (after > MAX_BALANCE || after < -MAX_BALANCE) throw new BalanceOverflowError(entry.account);
  // Read under the account's lock: no charge lands between this check and the entry.
  if (entry.floor !== undefined && entry.amount < 0n && after < entry.floor) throw new BalanceBelowFloor(entry.account, account.balance);
  await trx
    .insertInto('ledger')
    .values({ account: entry.account, kind: entry.kind, amount: entry.amount, idempotency_key: entry.idempotencyKey, request_id: null, key_id: null, note: entry.note ?? null, ts: entry.ts })
    .execute();
  await moveBalance(trx, entry.account, entry.amount);
  const row = await trx.selectFrom('ledger').selectAll().where('idempotency_key', '=', entry.idempotencyKey).executeTakeFirstOrThrow();
  return { entry: decodeEntry(row), applied: true };
}

/** An account's max_spend as its columns (all null: none). */
function capColumns(cap: SpendCap | undefined): { max_spend: bigint | null; spend_period: string | null; spend_timezone: string | null } {
  return { max_spend: cap?.maxSpend ?? null, spend_period: cap?.spendPeriod?.unit ?? null, spend_timezone: cap?.spendPeriod?.timezone ?? null };
}

async function moveBalance(trx: Db, account: string, amount: bigint): Promise<void> {
  await trx.updateTable('accounts').set({ balance: sql<bigint>`balance + ${amount}` }).where('name', '=', account).execute();
}

/** The account's row, locked until the transaction ends where the database can lock a row (PostgreSQL). */
async function lockAccount(trx: Db, dialect: StoreDialect, account: string): Promise<Account | undefined> {
  let q = trx.selectFrom('accounts').selectAll().where('name', '=', account);
  if (dialect === 'postgres') q = q.forUpdate();
  const row = await q.executeTakeFirst();
  return row === undefined ? undefined : decodeAccount(row);
}

export class KyselyLedger implements LedgerStore {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: StoreDialect,
  ) {}

  async ensureAccounts(accounts: readonly { readonly name: string; readonly description: string | null }[], at: number): Promise<void> {
    if (accounts.length === 0) return;
    await this.db
      .insertInto('accounts')
      .values(accounts.map((a) => ({ name: a.name, description: a.description, balance: 0n, created_at: at })))
      .onConflict((oc) => oc.column('name').doNothing())
      .execute();
  }

  async createAccount(name: string, description: string | null, at: number, spendCap?: SpendCap): Promise<Account> {
    try {
      await this.db.insertInto('accounts').values(Object.assign({ name, description, balance: 0n, created_at: at }, capColumns(spendCap))).execute();
    } catch (err) {
      if (isUniqueViolation(err)) throw new AccountExists(name, { cause: err });
      throw err;
    }
    const account: Account = { name, description, balance: 0n, createdAt: at, disabled: false, keyGroups: [] };
    return spendCap === undefined ? account : Object.assign(account, { spendCap });
  }

  async listAccounts(): Promise<Account[]> {
    const rows = await this.db.selectFrom('accounts').selectAll().orderBy('name').execute();
    return rows.map(decodeAccount);
  }

  async getAccount(name: string): Promise<Account | undefined> {
    const row = await this.db.selectFrom('accounts').selectAll().where('name', '=', name).executeTakeFirst();
    return row === undefined ? undefined : decodeAccount(row);
  }

  async listLedger(account: string, limit: number, beforeId?: number): Promise<LedgerEntry[]> {
    let q = this.db.selectFrom('ledger').selectAll().where('account', '=', account);
    if (beforeId !== undefined) q = q.where('id', '<', beforeId);
    const rows = await q.orderBy('id', 'desc').limit(Math.max(0, Math.floor(limit))).execute();
    return rows.map(decodeEntry);
  }

  async ledgerEntry(account: string, id: number): Promise<LedgerEntry | undefined> {
    const row = await this.db.selectFrom('ledger').selectAll().where('id', '=', id).where('account', '=', account).executeTakeFirst();
    return row === undefined ? undefined : decodeEntry(row);
  }

  async chargeEntry(chargeId: string): Promise<LedgerEntry | undefined> {
    const row = await this.db.selectFrom('ledger').selectAll().where('idempotency_key', '=', chargeKey(chargeId)).executeTakeFirst();
    return row === undefined ? undefined : decodeEntry(row);
  }

  async priceDocument(version: string): Promise<string | undefined> {
    const row = await this.db.selectFrom('price_versions').select('document').where('version', '=', version).executeTakeFirst();
    return row?.document;
  }

  async setAccountDisabled(name: string, disabled: boolean): Promise<Account | undefined> {
    await this.db.updateTable('accounts').set({ disabled: disabled ? 1 : 0 }).where('name', '=', name).execute();
    return this.getAccount(name);
  }

  async setAccountSpendCap(name: string, cap: SpendCap | null): Promise<Account | undefined> {
    await this.db.updateTable('accounts').set(capColumns(cap ?? undefined)).where('name', '=', name).execute();
    return this.getAccount(name);
  }

  async setAccountKeyGroups(name: string, groups: readonly string[]): Promise<Account | undefined> {
    await this.db.updateTable('accounts').set({ key_groups: JSON.stringify(groups) }).where('name', '=', name).execute();
    return this.getAccount(name);
  }

  async disabledAccounts(): Promise<string[]> {
    const rows = await this.db.selectFrom('accounts').select('name').where('disabled', '=', 1).orderBy('name').execute();
    return rows.map((r) => r.name);
  }

  async post(entry: NewLedgerEntry): Promise<{ readonly entry: LedgerEntry; readonly applied: boolean }> {
    try {
      return await this.postOnce(entry);
    } catch (err) {
      // Posted meanwhile by another instance with the same key: its entry stands, this one is not applied.
      if (!isUniqueViolation(err)) throw err;
      const existing = await this.db.selectFrom('ledger').selectAll().where('idempotency_key', '=', entry.idempotencyKey).executeTakeFirstOrThrow();
      return { entry: decodeEntry(existing), applied: false };
    }
  }

  private postOnce(entry: NewLedgerEntry): Promise<{ readonly entry: LedgerEntry; readonly applied: boolean }> {
    return writeTransaction(this.db, this.dialect, (trx) => postLedgerEntry(trx, this.dialect, entry));
  }

  acquireHold(request: HoldRequest): Promise<HoldResult> {
    return writeTransaction(this.db, this.dialect, async (trx) => {
      const limit = await this.budgetLimit(trx, request.budget);
      if (limit === undefined) return { granted: false, available: 0n };
      const budget = budgetName(request.budget);
      const available = limit - ((await this.liveHeld(trx, [budget], request.now)).get(budget) ?? 0n);
      if (available < request.min || request.min <= 0n) return { granted: false, available };
      // Take a quarter of what is left, at most `want`, in whole steps of `min`: far from zero an instance holds
      // enough for many requests; near zero every request holds its own, and no step is left stranded.
      const target = request.want < available / 4n ? request.want : available / 4n;
      const amount = target < request.min ? request.min : target - (target % request.min);
      const holdId = randomUUID();
      await trx.insertInto('holds').values({ id: holdId, budget, amount, owner: request.owner, expires_at: request.expiresAt }).execute();
      return { granted: true, holdId, amount };
    });
  }

  async shrinkHold(holdId: string, amount: bigint): Promise<void> {
    if (amount <= 0n) return;
    await this.db
      .updateTable('holds')
      .set({ amount: sql<bigint>`case when amount > ${amount} then amount - ${amount} else 0 end` })
      .where('id', '=', holdId)
      .execute();
  }

  async releaseHold(holdId: string): Promise<void> {
    await this.db.deleteFrom('holds').where('id', '=', holdId).execute();
  }

  growHold(holdId: string, budget: Budget, amount: bigint, now: number): Promise<bigint> {
    // Under the budget's lock, as acquireHold: a grant and a growth are ordered, and the one after sees the other.
    return writeTransaction(this.db, this.dialect, async (trx) => {
      const limit = (await this.budgetLimit(trx, budget)) ?? 0n;
      if (amount > 0n) await trx.updateTable('holds').set({ amount: sql<bigint>`amount + ${amount}` }).where('id', '=', holdId).execute();
      const name = budgetName(budget);
      return limit - ((await this.liveHeld(trx, [name], now)).get(name) ?? 0n);
    });
  }

  async renewHolds(owner: string, holds: readonly HeldBudget[], now: number, expiresAt: number): Promise<Renewal> {
    // Empty holds of the owner's that it no longer names go; a named one stays, even empty: requests may still be in
    // flight on it (a record's draw can empty it before the growth its overrun makes lands).
    const ids = holds.map((h) => h.id);
    let empty = this.db.deleteFrom('holds').where('owner', '=', owner).where('amount', '<=', 0n);
    if (ids.length > 0) empty = empty.where('id', 'not in', ids);
    await empty.execute();
    if (holds.length === 0) return { renewed: new Set(), available: new Map() };
    // Only holds not yet expired: one that expired may already be counted as free by another instance.
    const rows = await this.db
      .updateTable('holds')
      .set({ expires_at: expiresAt })
      .where('owner', '=', owner)
      .where('id', 'in', ids)
      .where('expires_at', '>', now)
      .returning('id')
      .execute();
    const budgets = new Map(holds.map((h) => [budgetName(h.budget), h.budget]));
    // Read without a lock: a renewal only learns, once a tick, whether a budget went below zero meanwhile.
    const held = await this.liveHeld(this.db, [...budgets.keys()], now);
    const limits = await this.budgetLimitsRead([...budgets.values()]);
    const available = new Map<string, bigint>();
    for (const [name, limit] of limits) available.set(name, limit - (held.get(name) ?? 0n));
    return { renewed: new Set(rows.map((r) => r.id)), available };
  }

  /** What the live holds of each budget named add up to (0 for one without any). */
  private async liveHeld(db: Kysely<Database>, budgets: readonly string[], now: number): Promise<Map<string, bigint>> {
    const held = new Map<string, bigint>(budgets.map((b) => [b, 0n]));
    for (let at = 0; at < budgets.length; at += 500) {
      const rows = await db
        .selectFrom('holds')
        .select((eb) => ['budget', eb.fn.sum<number | string | bigint | null>('amount').as('held')])
        .where('budget', 'in', budgets.slice(at, at + 500))
        .where('expires_at', '>', now)
        .groupBy('budget')
        .execute();
      for (const row of rows) held.set(row.budget, decodeMoney(row.held ?? 0));
    }
    return held;
  }

  async releaseHolds(owner: string): Promise<void> {
    await this.db.deleteFrom('holds').where('owner', '=', owner).execute();
  }

  async dropExpiredHolds(now: number): Promise<number> {
    const result = await this.db.deleteFrom('holds').where('expires_at', '<=', now).executeTakeFirst();
    return decodeInteger(result.numDeletedRows);
  }

  async chargedTotal(account: string): Promise<bigint> {
    const row = await this.db
      .selectFrom('ledger')
      .select((eb) => eb.fn.sum<number | string | bigint | null>('amount').as('total'))
      .where('account', '=', account)
      .where('kind', '=', 'charge')
      .executeTakeFirst();
    return -decodeMoney(row?.total ?? 0);
  }

  async keySpend(keyId: string): Promise<bigint> {
    const row = await this.db.selectFrom('key_spend').select('spent').where('key_id', '=', keyId).executeTakeFirst();
    return row === undefined ? 0n : decodeMoney(row.spent);
  }

  async keySpends(keyIds: readonly string[]): Promise<Map<string, bigint>> {
    const spent = new Map<string, bigint>();
    // In chunks: a bound-parameter list stays far below either database's limit.
    for (let start = 0; start < keyIds.length; start += 500) {
      const chunk = keyIds.slice(start, start + 500);
      const rows = await this.db.selectFrom('key_spend').select(['key_id', 'spent']).where('key_id', 'in', chunk).execute();
      for (const row of rows) spent.set(row.key_id, decodeMoney(row.spent));
    }
    return spent;
  }

  async savePriceVersion(version: string, document: string, at: number): Promise<void> {
    await this.db.insertInto('price_versions').values({ version, document, created_at: at }).onConflict((oc) => oc.column('version').doNothing()).execute();
  }

  async priceVersions(): Promise<Map<string, string>> {
    const rows = await this.db.selectFrom('price_versions').select(['version', 'document']).execute();
    return new Map(rows.map((r) => [r.version, r.document]));
  }

  /** Its reads in one snapshot (read-snapshot.ts): a charge committing meanwhile is wholly in or wholly out. */
  auditLedger(): Promise<AuditProblem[]> {
    return readSnapshot(this.db, this.dialect, auditLedgerIn);
  }

  /**
   * Writes the priced records (those with a cost) with their charges, inside the usage insert's transaction: the
   * records, INSERT_CHUNK at a time (a request recorded before, by an earlier attempt of the same batch, is left
   * out by the unique index on request_id, with its charge); then the plan of what those inserted now change
   * (charge-plan.ts): their ledger entries, and one statement per account, key and hold. Adds the request ids it
   * inserted to `written`; returns the records without a cost, for the caller to insert in bulk.
   */
  async writePriced(trx: Kysely<Database>, records: readonly UsageRecord[], written: Set<string>): Promise<UsageRecord[]> {
    const priced: UsageRecord[] = [];
    const unpriced: UsageRecord[] = [];
    for (const record of records) (record.cost === undefined ? unpriced : priced).push(record);
    if (priced.length === 0) return unpriced;
    const fresh = new Set<string>();
    const named = chargeIds(priced);
    for (let at = 0; at < priced.length; at += INSERT_CHUNK) {
      const inserted = await trx
        .insertInto('usage_records')
        .values(priced.slice(at, at + INSERT_CHUNK).map((r) => encodeUsageRow(r, named.get(r.requestId) ?? null)))
        .onConflict((oc) => oc.column('request_id').doNothing())
        .returning('request_id')
        .execute();
      for (const row of inserted) fresh.add(row.request_id);
    }
    for (const id of fresh) written.add(id);
    const plan = planCharges(priced, fresh, named);
    for (let at = 0; at < plan.entries.length; at += INSERT_CHUNK) {
      await trx
        .insertInto('ledger')
        .values(
          plan.entries.slice(at, at + INSERT_CHUNK).map((e) => ({
            account: e.account,
            kind: 'charge',
            amount: e.amount,
            idempotency_key: chargeKey(e.firstRequestId),
            request_id: e.firstRequestId,
            key_id: null,
            note: chargeNote(e.requests),
            ts: e.ts,
          })),
        )
        .execute();
    }
    for (const e of plan.entries) {
      if (e.renamed === null) continue;
      for (let at = 0; at < e.renamed.length; at += INSERT_CHUNK) {
        await trx.updateTable('usage_records').set({ charge_id: e.firstRequestId }).where('request_id', 'in', e.renamed.slice(at, at + INSERT_CHUNK)).execute();
      }
    }
    for (const [account, amount] of sorted(plan.balances)) await moveBalance(trx, account, amount);
    for (const [keyId, amount] of sorted(plan.spends)) await this.addKeySpend(trx, keyId, amount);
    for (const [holdId, amount] of sorted(plan.draws)) {
      await trx
        .updateTable('holds')
        .set({ amount: sql<bigint>`case when amount > ${amount} then amount - ${amount} else 0 end` })
        .where('id', '=', holdId)
        .execute();
    }
    return unpriced;
  }

  private async addKeySpend(trx: Kysely<Database>, keyId: string, cost: bigint): Promise<void> {
    await trx
      .insertInto('key_spend')
      .values({ key_id: keyId, spent: cost })
      .onConflict((oc) => oc.column('key_id').doUpdateSet({ spent: sql<bigint>`key_spend.spent + ${cost}` }))
      .execute();
  }


  /**
   * Budgets' limits as budgetLimit has them, by budgetName, read without a lock (and without making a key's spend
   * row): two queries (accounts' balances, keys' spends) whatever the number of budgets. An unknown account is absent.
   */
  private async budgetLimitsRead(budgets: readonly Budget[]): Promise<Map<string, bigint>> {
    const limits = new Map<string, bigint>();
    const accounts = budgets.flatMap((b) => (b.kind === 'account' ? [b.account] : []));
    for (let at = 0; at < accounts.length; at += 500) {
      const rows = await this.db.selectFrom('accounts').select(['name', 'balance']).where('name', 'in', accounts.slice(at, at + 500)).execute();
      for (const row of rows) limits.set(budgetName({ kind: 'account', account: row.name }), decodeMoney(row.balance));
    }
    const keys = budgets.flatMap((b) => (b.kind === 'key' ? [b] : []));
    const spent = await this.keySpends(keys.map((k) => k.spendId ?? k.keyId));
    for (const key of keys) limits.set(budgetName(key), key.maxSpend - (spent.get(key.spendId ?? key.keyId) ?? 0n));
    return limits;
  }

  /** What a budget may hold in all, with its row locked: the balance, or max_spend less what the key has spent. */
  private async budgetLimit(trx: Kysely<Database>, budget: Budget): Promise<bigint | undefined> {
    if (budget.kind === 'account') return (await lockAccount(trx, this.dialect, budget.account))?.balance;
    // The key's spend row is made on first use, so there is always a row to lock.
    // A periodic cap's row is its period's (spendId): a new period starts from a row of its own, at 0.
    const row = budget.spendId ?? budget.keyId;
    await trx.insertInto('key_spend').values({ key_id: row, spent: 0n }).onConflict((oc) => oc.column('key_id').doNothing()).execute();
    let q = trx.selectFrom('key_spend').select('spent').where('key_id', '=', row);
    if (this.dialect === 'postgres') q = q.forUpdate();
    const spend = await q.executeTakeFirstOrThrow();
    return budget.maxSpend - decodeMoney(spend.spent);
  }
}
