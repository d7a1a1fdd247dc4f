// LedgerStore over Kysely, for SQLite and PostgreSQL alike. Money moves only inside transactions that also write
// its ledger entry; a hold is granted inside a transaction that first locks the budget's row (PostgreSQL: FOR
// UPDATE; SQLite runs one writer at a time), so two instances can never both take the same last nano-unit.

import { randomUUID } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { StoreDialect } from './migrations.js';
import { decodeInteger, decodeMoney, encodeUsageRow } from './row-codec.js';
import type { Database } from './schema.js';
import type {
  Account,
  AuditProblem,
  Budget,
  HoldRequest,
  HoldResult,
  LedgerEntry,
  LedgerKind,
  LedgerStore,
  NewLedgerEntry,
} from './ledger-store.js';
import type { UsageRecord } from './store.js';
import { isUniqueViolation } from './unique-violation.js';
import { writeTransaction } from './write-transaction.js';

type Db = Kysely<Database>;

export function budgetName(budget: Budget): string {
  return budget.kind === 'account' ? `account:${budget.account}` : `key:${budget.keyId}`;
}

/** The idempotency key of a request's charge: one per request id, whoever writes it and however often. */
export function chargeKey(requestId: string): string {
  return `charge:${requestId}`;
}

function decodeAccount(row: { name: string; description: string | null; balance: number | string | bigint; created_at: number | string | bigint }): Account {
  return { name: row.name, description: row.description, balance: decodeMoney(row.balance), createdAt: decodeInteger(row.created_at) };
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

  async createAccount(name: string, description: string | null, at: number): Promise<Account> {
    try {
      await this.db.insertInto('accounts').values({ name, description, balance: 0n, created_at: at }).execute();
    } catch (err) {
      if (isUniqueViolation(err)) throw new Error(`account "${name}" already exists`, { cause: err });
      throw err;
    }
    return { name, description, balance: 0n, createdAt: at };
  }

  async listAccounts(): Promise<Account[]> {
    const rows = await this.db.selectFrom('accounts').selectAll().orderBy('name').execute();
    return rows.map(decodeAccount);
  }

  async getAccount(name: string): Promise<Account | undefined> {
    const row = await this.db.selectFrom('accounts').selectAll().where('name', '=', name).executeTakeFirst();
    return row === undefined ? undefined : decodeAccount(row);
  }

  async listLedger(account: string, limit: number): Promise<LedgerEntry[]> {
    const rows = await this.db.selectFrom('ledger').selectAll().where('account', '=', account).orderBy('id', 'desc').limit(Math.max(0, Math.floor(limit))).execute();
    return rows.map(decodeEntry);
  }

  post(entry: NewLedgerEntry): Promise<{ readonly entry: LedgerEntry; readonly applied: boolean }> {
    return writeTransaction(this.db, this.dialect, async (trx) => {
      const existing = await trx.selectFrom('ledger').selectAll().where('idempotency_key', '=', entry.idempotencyKey).executeTakeFirst();
      if (existing !== undefined) return { entry: decodeEntry(existing), applied: false };
      if ((await this.lockAccount(trx, entry.account)) === undefined) throw new Error(`unknown account "${entry.account}"`);
      await trx
        .insertInto('ledger')
        .values({ account: entry.account, kind: entry.kind, amount: entry.amount, idempotency_key: entry.idempotencyKey, request_id: null, key_id: null, note: entry.note ?? null, ts: entry.ts })
        .execute();
      await this.moveBalance(trx, entry.account, entry.amount);
      const row = await trx.selectFrom('ledger').selectAll().where('idempotency_key', '=', entry.idempotencyKey).executeTakeFirstOrThrow();
      return { entry: decodeEntry(row), applied: true };
    });
  }

  acquireHold(request: HoldRequest): Promise<HoldResult> {
    return writeTransaction(this.db, this.dialect, async (trx) => {
      const limit = await this.budgetLimit(trx, request.budget);
      if (limit === undefined) return { granted: false, available: 0n };
      const budget = budgetName(request.budget);
      const held = await trx
        .selectFrom('holds')
        .select((eb) => eb.fn.sum<number | string | bigint | null>('amount').as('held'))
        .where('budget', '=', budget)
        .where('expires_at', '>', request.now)
        .executeTakeFirst();
      const available = limit - decodeMoney(held?.held ?? 0);
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

  async renewHolds(owner: string, expiresAt: number): Promise<void> {
    await this.db.deleteFrom('holds').where('owner', '=', owner).where('amount', '<=', 0n).execute();
    await this.db.updateTable('holds').set({ expires_at: expiresAt }).where('owner', '=', owner).execute();
  }

  async releaseHolds(owner: string): Promise<void> {
    await this.db.deleteFrom('holds').where('owner', '=', owner).execute();
  }

  async dropExpiredHolds(now: number): Promise<number> {
    const result = await this.db.deleteFrom('holds').where('expires_at', '<=', now).executeTakeFirst();
    return decodeInteger(result.numDeletedRows);
  }

  async keySpend(keyId: string): Promise<bigint> {
    const row = await this.db.selectFrom('key_spend').select('spent').where('key_id', '=', keyId).executeTakeFirst();
    return row === undefined ? 0n : decodeMoney(row.spent);
  }

  async savePriceVersion(version: string, document: string, at: number): Promise<void> {
    await this.db.insertInto('price_versions').values({ version, document, created_at: at }).onConflict((oc) => oc.column('version').doNothing()).execute();
  }

  async priceVersions(): Promise<Map<string, string>> {
    const rows = await this.db.selectFrom('price_versions').select(['version', 'document']).execute();
    return new Map(rows.map((r) => [r.version, r.document]));
  }

  async auditLedger(): Promise<AuditProblem[]> {
    const problems: AuditProblem[] = [];
    const sums = await this.db
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
    // Every charge is its record's cost, and every charged record has its charge.
    const charges = await this.db
      .selectFrom('ledger')
      .leftJoin('usage_records', 'usage_records.request_id', 'ledger.request_id')
      .select(['ledger.request_id as request_id', 'ledger.amount as amount', 'ledger.account as account', 'usage_records.cost as cost', 'usage_records.account as record_account'])
      .where('ledger.kind', '=', 'charge')
      .execute();
    for (const c of charges) {
      const cost = c.cost === null ? null : decodeMoney(c.cost);
      if (cost === null || -decodeMoney(c.amount) !== cost || c.record_account !== c.account) {
        problems.push({ what: `charge for request ${c.request_id ?? '?'}: ${-decodeMoney(c.amount)} to "${c.account}", but its usage record says ${cost ?? 'nothing'} to "${c.record_account ?? 'nobody'}"` });
      }
    }
    const uncharged = await this.db
      .selectFrom('usage_records')
      .leftJoin('ledger', (join) => join.onRef('ledger.request_id', '=', 'usage_records.request_id').on('ledger.kind', '=', 'charge'))
      .select(['usage_records.request_id as request_id', 'usage_records.cost as cost'])
      .where('usage_records.account', 'is not', null)
      .where('usage_records.cost', '>', 0n)
      .where('ledger.id', 'is', null)
      .execute();
    for (const u of uncharged) problems.push({ what: `request ${u.request_id} cost ${decodeMoney(u.cost ?? 0)} but was never charged` });
    return problems;
  }

  /**
   * Writes the priced records (those with a cost) one by one, each with its charge, inside the usage insert's
   * transaction: the record itself (left out when a record of that request was written before, by an earlier
   * attempt of the same batch), then for a charged one its ledger entry and the account's balance, its key's
   * spend, and the holds it draws on. Returns the records without a cost, for the caller to insert in bulk.
   */
  async writePriced(trx: Kysely<Database>, records: readonly UsageRecord[]): Promise<UsageRecord[]> {
    const unpriced: UsageRecord[] = [];
    for (const record of records) {
      const cost = record.cost;
      if (cost === undefined) {
        unpriced.push(record);
        continue;
      }
      const inserted = await trx
        .insertInto('usage_records')
        .values(encodeUsageRow(record))
        .onConflict((oc) => oc.column('request_id').where(sql.ref('cost'), 'is not', null).doNothing())
        .returning('id')
        .executeTakeFirst();
      if (inserted === undefined || cost <= 0n) continue;
      if (record.account !== undefined) {
        await trx
          .insertInto('ledger')
          .values({ account: record.account, kind: 'charge', amount: -cost, idempotency_key: chargeKey(record.requestId), request_id: record.requestId, key_id: record.keyId, note: null, ts: record.ts })
          .execute();
        await this.moveBalance(trx, record.account, -cost);
      }
      await this.addKeySpend(trx, record.keyId, cost);
      for (const draw of record.draws ?? []) {
        await trx
          .updateTable('holds')
          .set({ amount: sql<bigint>`case when amount > ${draw.amount} then amount - ${draw.amount} else 0 end` })
          .where('id', '=', draw.holdId)
          .execute();
      }
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

  private async moveBalance(trx: Db, account: string, amount: bigint): Promise<void> {
    await trx.updateTable('accounts').set({ balance: sql<bigint>`balance + ${amount}` }).where('name', '=', account).execute();
  }

  /** The account's row, locked until the transaction ends where the database can lock a row (PostgreSQL). */
  private async lockAccount(trx: Kysely<Database>, account: string): Promise<Account | undefined> {
    let q = trx.selectFrom('accounts').selectAll().where('name', '=', account);
    if (this.dialect === 'postgres') q = q.forUpdate();
    const row = await q.executeTakeFirst();
    return row === undefined ? undefined : decodeAccount(row);
  }

  /** What a budget may hold in all, with its row locked: the balance, or max_spend less what the key has spent. */
  private async budgetLimit(trx: Kysely<Database>, budget: Budget): Promise<bigint | undefined> {
    if (budget.kind === 'account') return (await this.lockAccount(trx, budget.account))?.balance;
    // The key's spend row is made on first use, so there is always a row to lock.
    await trx.insertInto('key_spend').values({ key_id: budget.keyId, spent: 0n }).onConflict((oc) => oc.column('key_id').doNothing()).execute();
    let q = trx.selectFrom('key_spend').select('spent').where('key_id', '=', budget.keyId);
    if (this.dialect === 'postgres') q = q.forUpdate();
    const row = await q.executeTakeFirstOrThrow();
    return budget.maxSpend - decodeMoney(row.spent);
  }
}
