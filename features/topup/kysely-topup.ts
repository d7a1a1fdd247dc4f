// TopupStore over Kysely, for SQLite and PostgreSQL alike. A redemption is one write transaction: a conditional
// UPDATE claims the code (only while unredeemed, enabled and unexpired; on PostgreSQL a second claimant waits on the
// row's lock and then finds it redeemed), and the ledger credit is posted in the same transaction (its idempotency key
// `topup:<code id>` is unique too), so a code credits once even when instances redeem it at the same moment.

import { sql, type ExpressionBuilder, type Kysely } from 'kysely';
import { postLedgerEntry } from '../../core/store/kysely-ledger.js';
import type { StoreDialect } from '../../core/store/migrations.js';
import { decodeInteger, decodeMoney } from '../../core/store/row-codec.js';
import type { Database } from '../../core/store/schema.js';
import { isUniqueViolation } from '../../core/store/unique-violation.js';
import { writeTransaction } from '../../core/store/write-transaction.js';
import type { TopupTables } from './tables.js';
import type { CodeFilter, NewBatch, Redeemer, Redemption, TopupBatch, TopupBatchSummary, TopupCode, TopupStore } from './topup-store.js';
import { statusOf } from './topup-store.js';

type Db = Kysely<Database & TopupTables>;
type Eb = ExpressionBuilder<Database & TopupTables, 'topup_codes' | 'topup_batches'>;
type Num = number | string | bigint;
type NullableNum = Num | null;

/** Rows per INSERT: 1,000 codes x 6 columns stays far below either database's bound-variable limit. */
const INSERT_CHUNK = 500;

const msOrNull = (v: NullableNum): number | null => (v === null ? null : decodeInteger(v));

function decodeBatch(row: { id: string; amount: Num; count: Num; note: string | null; created_at: Num; expires_at: NullableNum; disabled_at: NullableNum }): TopupBatch {
  return {
    id: row.id,
    amount: decodeMoney(row.amount),
    count: decodeInteger(row.count),
    note: row.note,
    createdAt: decodeInteger(row.created_at),
    expiresAt: msOrNull(row.expires_at),
    disabledAt: msOrNull(row.disabled_at),
  };
}

const CODE_COLUMNS = [
  'topup_codes.id as id',
  'topup_codes.batch_id as batch_id',
  'topup_codes.last4 as last4',
  'topup_batches.amount as amount',
  'topup_codes.created_at as created_at',
  'topup_batches.expires_at as expires_at',
  'topup_codes.disabled_at as disabled_at',
  'topup_batches.disabled_at as batch_disabled_at',
  'topup_codes.redeemed_at as redeemed_at',
  'topup_codes.redeemed_by as redeemed_by',
  'topup_codes.redeemed_account as redeemed_account',
  'topup_codes.ledger_entry_id as ledger_entry_id',
] as const;

function decodeCode(row: {
  id: string;
  batch_id: string;
  last4: string;
  amount: Num;
  created_at: Num;
  expires_at: NullableNum;
  disabled_at: NullableNum;
  batch_disabled_at: NullableNum;
  redeemed_at: NullableNum;
  redeemed_by: string | null;
  redeemed_account: string | null;
  ledger_entry_id: NullableNum;
}): TopupCode {
  return {
    id: row.id,
    batchId: row.batch_id,
    last4: row.last4,
    amount: decodeMoney(row.amount),
    createdAt: decodeInteger(row.created_at),
    expiresAt: msOrNull(row.expires_at),
    disabledAt: msOrNull(row.disabled_at),
    batchDisabledAt: msOrNull(row.batch_disabled_at),
    redeemedAt: msOrNull(row.redeemed_at),
    redeemedBy: row.redeemed_by,
    redeemedAccount: row.redeemed_account,
    ledgerEntryId: msOrNull(row.ledger_entry_id),
  };
}

/** The codes of a status at `now`, as a condition (statusOf's order: redeemed, disabled, expired, active). */
function statusCondition(eb: Eb, status: NonNullable<CodeFilter['status']>, now: number) {
  const unredeemed = eb('topup_codes.redeemed_at', 'is', null);
  const disabled = eb.or([eb('topup_codes.disabled_at', 'is not', null), eb('topup_batches.disabled_at', 'is not', null)]);
  const enabled = eb.and([eb('topup_codes.disabled_at', 'is', null), eb('topup_batches.disabled_at', 'is', null)]);
  const expired = eb.and([eb('topup_batches.expires_at', 'is not', null), eb('topup_batches.expires_at', '<=', now)]);
  const live = eb.or([eb('topup_batches.expires_at', 'is', null), eb('topup_batches.expires_at', '>', now)]);
  if (status === 'redeemed') return eb('topup_codes.redeemed_at', 'is not', null);
  if (status === 'disabled') return eb.and([unredeemed, disabled]);
  if (status === 'expired') return eb.and([unredeemed, enabled, expired]);
  return eb.and([unredeemed, enabled, live]);
}

export class KyselyTopup implements TopupStore {
  constructor(
    private readonly db: Db,
    private readonly dialect: StoreDialect,
  ) {}

  async createBatch(batch: NewBatch): Promise<{ readonly batch: TopupBatch; readonly created: boolean }> {
    const existing = await this.batchByKey(batch.idempotencyKey);
    if (existing !== undefined) return { batch: existing, created: false };
    try {
      await writeTransaction(this.db, this.dialect, async (trx) => {
        await trx
          .insertInto('topup_batches')
          .values({
            id: batch.id,
            amount: batch.amount,
            count: batch.codes.length,
            note: batch.note,
            idempotency_key: batch.idempotencyKey,
            created_at: batch.createdAt,
            expires_at: batch.expiresAt,
            disabled_at: null,
          })
          .execute();
        for (let at = 0; at < batch.codes.length; at += INSERT_CHUNK) {
          const rows = batch.codes.slice(at, at + INSERT_CHUNK).map((c) => ({
            id: c.id,
            batch_id: batch.id,
            hash: c.hash,
            last4: c.last4,
            created_at: batch.createdAt,
            disabled_at: null,
            redeemed_at: null,
            redeemed_by: null,
            redeemed_account: null,
            ledger_entry_id: null,
          }));
          await trx.insertInto('topup_codes').values(rows).execute();
        }
      });
    } catch (err) {
      // The same key, made meanwhile by a retry racing this one: its batch stands.
      const raced = isUniqueViolation(err) ? await this.batchByKey(batch.idempotencyKey) : undefined;
      if (raced === undefined) throw err;
      return { batch: raced, created: false };
    }
    return { batch: { id: batch.id, amount: batch.amount, count: batch.codes.length, note: batch.note, createdAt: batch.createdAt, expiresAt: batch.expiresAt, disabledAt: null }, created: true };
  }

  private async batchByKey(key: string): Promise<TopupBatch | undefined> {
    const row = await this.db.selectFrom('topup_batches').selectAll().where('idempotency_key', '=', key).executeTakeFirst();
    return row === undefined ? undefined : decodeBatch(row);
  }

  async listBatches(offset: number, limit: number): Promise<{ readonly rows: TopupBatchSummary[]; readonly total: number }> {
    const rows = await this.db.selectFrom('topup_batches').selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').offset(offset).limit(limit).execute();
    const total = await this.db.selectFrom('topup_batches').select((eb) => eb.fn.countAll<Num>().as('n')).executeTakeFirstOrThrow();
    return { rows: await this.summarised(rows.map(decodeBatch)), total: decodeInteger(total.n) };
  }

  async batch(id: string): Promise<TopupBatchSummary | undefined> {
    const row = await this.db.selectFrom('topup_batches').selectAll().where('id', '=', id).executeTakeFirst();
    return row === undefined ? undefined : (await this.summarised([decodeBatch(row)]))[0];
  }

  /** The batches with their codes' counts: one grouped query for the page. */
  private async summarised(batches: readonly TopupBatch[]): Promise<TopupBatchSummary[]> {
    if (batches.length === 0) return [];
    const counts = await this.db
      .selectFrom('topup_codes')
      .select((eb) => [
        'batch_id',
        eb.fn.count<Num>('redeemed_at').as('redeemed'),
        sql<Num>`sum(case when disabled_at is not null and redeemed_at is null then 1 else 0 end)`.as('disabled'),
      ])
      .where('batch_id', 'in', batches.map((b) => b.id))
      .groupBy('batch_id')
      .execute();
    const by = new Map(counts.map((c) => [c.batch_id, c]));
    return batches.map((b) => Object.assign({}, b, { redeemed: decodeInteger(by.get(b.id)?.redeemed ?? 0), disabledCodes: decodeInteger(by.get(b.id)?.disabled ?? 0) }));
  }

  async setBatchDisabled(id: string, disabledAt: number | null): Promise<TopupBatchSummary | undefined> {
    await this.db.updateTable('topup_batches').set({ disabled_at: disabledAt }).where('id', '=', id).execute();
    return this.batch(id);
  }

  async listCodes(filter: CodeFilter, now: number, offset: number, limit: number): Promise<{ readonly rows: TopupCode[]; readonly total: number }> {
    let q = this.db.selectFrom('topup_codes').innerJoin('topup_batches', 'topup_batches.id', 'topup_codes.batch_id');
    if (filter.batchId !== undefined) q = q.where('topup_codes.batch_id', '=', filter.batchId);
    if (filter.account !== undefined) q = q.where('topup_codes.redeemed_account', '=', filter.account);
    const status = filter.status;
    if (status !== undefined) q = q.where((eb) => statusCondition(eb, status, now));
    const rows = await q.select(CODE_COLUMNS).orderBy('topup_codes.created_at', 'desc').orderBy('topup_codes.id', 'desc').offset(offset).limit(limit).execute();
    const total = await q.select((eb) => eb.fn.countAll<Num>().as('n')).executeTakeFirstOrThrow();
    return { rows: rows.map(decodeCode), total: decodeInteger(total.n) };
  }

  async code(id: string): Promise<TopupCode | undefined> {
    return this.codeWhere(this.db, 'id', id);
  }

  private async codeWhere(db: Db, column: 'id' | 'hash', value: string): Promise<TopupCode | undefined> {
    const row = await db
      .selectFrom('topup_codes')
      .innerJoin('topup_batches', 'topup_batches.id', 'topup_codes.batch_id')
      .select(CODE_COLUMNS)
      .where(`topup_codes.${column}`, '=', value)
      .executeTakeFirst();
    return row === undefined ? undefined : decodeCode(row);
  }

  async setCodeDisabled(id: string, disabledAt: number | null): Promise<TopupCode | undefined> {
    await this.db.updateTable('topup_codes').set({ disabled_at: disabledAt }).where('id', '=', id).execute();
    return this.code(id);
  }

  redeem(hash: string, who: Redeemer, now: number, note: (code: TopupCode) => string): Promise<Redemption> {
    return writeTransaction(this.db, this.dialect, async (trx): Promise<Redemption> => {
      const found = await this.codeWhere(trx, 'hash', hash);
      if (found === undefined) return { outcome: 'unknown' };
      const status = statusOf(found, now);
      if (status === 'redeemed') return { outcome: 'used' };
      if (status !== 'active') return { outcome: status };
      // The claim: only while it is still unredeemed and enabled, and its batch enabled and unexpired, as the database
      // has them now (not as read above: an operator disabling the batch at this moment wins).
      const claimed = await trx
        .updateTable('topup_codes')
        .set({ redeemed_at: now, redeemed_by: who.user, redeemed_account: who.account })
        .where('id', '=', found.id)
        .where('redeemed_at', 'is', null)
        .where('disabled_at', 'is', null)
        .where(({ exists, not, selectFrom }) =>
          not(
            exists(
              selectFrom('topup_batches')
                .select('topup_batches.id')
                .whereRef('topup_batches.id', '=', 'topup_codes.batch_id')
                .where((eb) => eb.or([eb('topup_batches.disabled_at', 'is not', null), eb('topup_batches.expires_at', '<=', now)])),
            ),
          ),
        )
        .returning('id')
        .execute();
      if (claimed.length === 0) return { outcome: (await this.codeWhere(trx, 'id', found.id))?.redeemedAt == null ? 'disabled' : 'used' };
      const code = Object.assign({}, found, { redeemedAt: now, redeemedBy: who.user, redeemedAccount: who.account });
      const posted = await postLedgerEntry(trx, this.dialect, { account: who.account, kind: 'credit', amount: found.amount, idempotencyKey: `topup:${found.id}`, note: note(code), ts: now });
      // The key is the code's own: an entry already there means the claim above was not the first, which it cannot be.
      if (!posted.applied) throw new Error(`top-up code ${found.id} was credited before it was claimed`);
      await trx.updateTable('topup_codes').set({ ledger_entry_id: posted.entry.id }).where('id', '=', found.id).execute();
      return { outcome: 'redeemed', code: Object.assign(code, { ledgerEntryId: posted.entry.id }), entry: posted.entry };
    });
  }
}
