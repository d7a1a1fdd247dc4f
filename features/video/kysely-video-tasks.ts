// VideoTaskStore over Kysely: the same queries on SQLite and PostgreSQL but claimDue's, which on PostgreSQL skips the
// rows another instance is claiming (FOR UPDATE SKIP LOCKED) and on SQLite, one writer at a time, needs no row lock.

import { sql, type ExpressionBuilder, type Insertable, type Kysely, type Selectable, type Updateable } from 'kysely';
import type { StoreDialect } from '../../core/store/migrations.js';
import { decodeInteger, decodeMoney } from '../../core/store/row-codec.js';
import type { Database } from '../../core/store/schema.js';
import type { VideoTables, VideoTasksTable } from './tables.js';

/** Core's tables and the video feature's. */
type VideoDatabase = Database & VideoTables;
import type { HoldDraw } from '../../core/store/store.js';
import type { KeyTaskQuery, VideoTaskPatch, VideoTaskRow, VideoTaskSettlement, VideoTaskShape, VideoTaskStatus, VideoTaskStore } from './video-task-store.js';
import { writeTransaction } from '../../core/store/write-transaction.js';

type TaskRow = Selectable<VideoTasksTable>;
type Tasks = ExpressionBuilder<VideoDatabase, 'video_tasks'>;

/** Who holds a task's money in the ledger's holds table: `task:<id>`. */
const HOLD_OWNER_PREFIX = 'task:';

function decodeNullable(value: number | string | bigint | null): number | null {
  return value === null ? null : decodeInteger(value);
}

/** The column is an integer: PostgreSQL refuses a fraction (an upstream's 5.04 seconds) where SQLite would keep it. */
function wholeSeconds(seconds: number | null): number | null {
  return seconds === null ? null : Math.round(seconds);
}

/** Amounts as decimal strings: a JSON number loses nano-units past 2^53. */
function encodeHolds(holds: readonly HoldDraw[]): string {
  return JSON.stringify(holds.map((h) => Object.assign({ holdId: h.holdId, amount: h.amount.toString() }, h.spendId === undefined ? {} : { spendId: h.spendId })));
}

function decodeHolds(text: string): HoldDraw[] {
  const value: unknown = JSON.parse(text);
  if (!Array.isArray(value)) throw new Error('video task holds are not a JSON array');
  return value.map((item: unknown) => {
    const draw = item as { readonly holdId?: unknown; readonly amount?: unknown; readonly spendId?: unknown };
    if (typeof draw.holdId !== 'string' || typeof draw.amount !== 'string') throw new Error('video task hold is not {holdId, amount}');
    // A periodic max_spend's hold names its period's spend row.
    return typeof draw.spendId === 'string' ? { holdId: draw.holdId, amount: BigInt(draw.amount), spendId: draw.spendId } : { holdId: draw.holdId, amount: BigInt(draw.amount) };
  });
}

function decodeTask(row: TaskRow): VideoTaskRow {
  return {
    id: row.id,
    keyId: row.key_id,
    keyName: row.key_name,
    account: row.account,
    group: row.group_name,
    channel: row.channel,
    upstreamId: row.upstream_id,
    model: row.model,
    upstreamModel: row.upstream_model,
    shape: row.shape as VideoTaskShape,
    status: row.status as VideoTaskStatus,
    progress: decodeInteger(row.progress),
    prompt: row.prompt,
    seconds: decodeNullable(row.seconds),
    size: row.size,
    resultUrl: row.result_url,
    errorCode: row.error_code,
    errorMessage: row.error_message,
    createdAt: decodeInteger(row.created_at),
    updatedAt: decodeInteger(row.updated_at),
    completedAt: decodeNullable(row.completed_at),
    expiresAt: decodeInteger(row.expires_at),
    reserved: decodeMoney(row.reserved),
    holds: decodeHolds(row.holds),
    totalTokens: decodeNullable(row.total_tokens),
    cost: row.cost === null ? null : decodeMoney(row.cost),
    settledAt: decodeNullable(row.settled_at),
    nextPollAt: decodeInteger(row.next_poll_at),
    polls: decodeInteger(row.polls),
    keyFingerprint: row.key_fingerprint,
    recordedAt: decodeNullable(row.recorded_at),
    priceVersion: row.price_version,
  };
}

function encodeTask(row: VideoTaskRow, lease: { readonly owner: string; readonly until: number } | undefined): Insertable<VideoTasksTable> {
  return {
    id: row.id,
    key_id: row.keyId,
    key_name: row.keyName,
    account: row.account,
    group_name: row.group,
    channel: row.channel,
    upstream_id: row.upstreamId,
    model: row.model,
    upstream_model: row.upstreamModel,
    shape: row.shape,
    status: row.status,
    progress: row.progress,
    prompt: row.prompt,
    seconds: wholeSeconds(row.seconds),
    size: row.size,
    result_url: row.resultUrl,
    error_code: row.errorCode,
    error_message: row.errorMessage,
    created_at: row.createdAt,
    updated_at: row.updatedAt,
    completed_at: row.completedAt,
    expires_at: row.expiresAt,
    reserved: row.reserved,
    holds: encodeHolds(row.holds),
    total_tokens: row.totalTokens,
    cost: row.cost,
    settled_at: row.settledAt,
    next_poll_at: row.nextPollAt,
    polls: row.polls,
    lease_owner: lease?.owner ?? null,
    lease_until: lease?.until ?? null,
    key_fingerprint: row.keyFingerprint,
    recorded_at: row.recordedAt,
    price_version: row.priceVersion,
  };
}

/** The columns a patch sets: only those of the fields it names. */
function encodePatch(patch: VideoTaskPatch): Updateable<VideoTasksTable> {
  const set: Updateable<VideoTasksTable> = { updated_at: patch.updatedAt };
  if (patch.upstreamId !== undefined) set.upstream_id = patch.upstreamId;
  if (patch.channel !== undefined) set.channel = patch.channel;
  if (patch.upstreamModel !== undefined) set.upstream_model = patch.upstreamModel;
  if (patch.keyFingerprint !== undefined) set.key_fingerprint = patch.keyFingerprint;
  if (patch.reserved !== undefined) set.reserved = patch.reserved;
  if (patch.holds !== undefined) set.holds = encodeHolds(patch.holds);
  if (patch.status !== undefined) set.status = patch.status;
  if (patch.progress !== undefined) set.progress = patch.progress;
  if (patch.nextPollAt !== undefined) set.next_poll_at = patch.nextPollAt;
  if (patch.polls !== undefined) set.polls = patch.polls;
  return set;
}

function encodeSettlement(settlement: VideoTaskSettlement): Updateable<VideoTasksTable> {
  const set: Updateable<VideoTasksTable> = {
    status: settlement.status,
    progress: settlement.progress,
    result_url: settlement.resultUrl,
    error_code: settlement.errorCode,
    error_message: settlement.errorMessage,
    total_tokens: settlement.totalTokens,
    cost: settlement.cost,
    price_version: settlement.priceVersion,
    completed_at: settlement.at,
    settled_at: settlement.at,
    updated_at: settlement.at,
    lease_owner: null,
    lease_until: null,
  };
  // A null keeps the seconds asked for: the upstream did not say how long the video it made is.
  if (settlement.seconds !== null) set.seconds = wholeSeconds(settlement.seconds);
  return set;
}

/** No lease, or one that ran out before `now`. */
function leaseFree(eb: Tasks, now: number) {
  return eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]);
}

/** A limit as SQL takes it: a fractional one rounds down, a negative one reads nothing (rather than failing the query). */
function pageSize(limit: number): number {
  return Math.max(0, Math.floor(limit));
}

export class KyselyVideoTasks implements VideoTaskStore {
  readonly #db: Kysely<VideoDatabase>;
  readonly #dialect: StoreDialect;

  constructor(db: Kysely<VideoDatabase>, dialect: StoreDialect) {
    this.#db = db;
    this.#dialect = dialect;
  }

  async addTask(row: VideoTaskRow, lease?: { readonly owner: string; readonly until: number }): Promise<void> {
    // Leased in the same insert: written bare and leased after, a poller could claim it in between and read an
    // upstream task that has no id yet.
    await this.#db.insertInto('video_tasks').values(encodeTask(row, lease)).execute();
  }

  async discardTask(id: string): Promise<boolean> {
    // Only a task nothing was sent for: one with an upstream id runs (and costs) upstream, and must be settled.
    const result = await this.#db.deleteFrom('video_tasks').where('id', '=', id).where('upstream_id', 'is', null).where('settled_at', 'is', null).executeTakeFirst();
    return result.numDeletedRows > 0n;
  }

  async task(id: string): Promise<VideoTaskRow | undefined> {
    const row = await this.#db.selectFrom('video_tasks').selectAll().where('id', '=', id).executeTakeFirst();
    return row === undefined ? undefined : decodeTask(row);
  }

  async updateTask(id: string, patch: VideoTaskPatch): Promise<boolean> {
    const result = await this.#db.updateTable('video_tasks').set(encodePatch(patch)).where('id', '=', id).where('settled_at', 'is', null).executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  async settleTask(id: string, settlement: VideoTaskSettlement): Promise<boolean> {
    // One transaction: a crash between the settlement and the release would leave the task's money held (until
    // dropStrayHolds), and a release before it could free money a losing settlement's task still needs.
    return writeTransaction(this.#db, this.#dialect, async (trx) => {
      // The compare-and-set: of racing settlements (two instances, or a poll and a client's GET), the row's write
      // lock lets one through and the others find settled_at set.
      const result = await trx.updateTable('video_tasks').set(encodeSettlement(settlement)).where('id', '=', id).where('settled_at', 'is', null).executeTakeFirst();
      if (result.numUpdatedRows === 0n) return false;
      await trx.deleteFrom('holds').where('owner', '=', `${HOLD_OWNER_PREFIX}${id}`).execute();
      return true;
    });
  }

  async markRecorded(id: string, at: number): Promise<void> {
    await this.#db.updateTable('video_tasks').set({ recorded_at: at }).where('id', '=', id).execute();
  }

  async unrecorded(before: number, limit: number): Promise<VideoTaskRow[]> {
    const size = pageSize(limit);
    if (size === 0) return [];
    const rows = await this.#db
      .selectFrom('video_tasks')
      .selectAll()
      .where('recorded_at', 'is', null)
      .where('settled_at', 'is not', null)
      .where('settled_at', '<=', before)
      .where('upstream_id', 'is not', null)
      .orderBy('settled_at')
      .orderBy('id')
      .limit(size)
      .execute();
    return rows.map(decodeTask);
  }

  async dropStrayHolds(): Promise<number> {
    // The prefix by substr, not LIKE 'task:%': SQLite's LIKE ignores case, and would take an owner 'TASK:...' (no
    // task's) for a task's. The task is found by its id (substr past the prefix), which its primary key indexes.
    const prefix = HOLD_OWNER_PREFIX.length;
    const result = await this.#db
      .deleteFrom('holds')
      .where(sql<string>`substr(${sql.ref('holds.owner')}, 1, ${sql.lit(prefix)})`, '=', HOLD_OWNER_PREFIX)
      .where((eb) =>
        eb.not(
          eb.exists(
            eb
              .selectFrom('video_tasks as t')
              .select(sql<number>`1`.as('one'))
              .where('t.settled_at', 'is', null)
              .where('t.id', '=', sql<string>`substr(${sql.ref('holds.owner')}, ${sql.lit(prefix + 1)})`),
          ),
        ),
      )
      .executeTakeFirst();
    return decodeInteger(result.numDeletedRows);
  }

  async claimDue(owner: string, now: number, leaseUntil: number, limit: number): Promise<VideoTaskRow[]> {
    const size = pageSize(limit);
    if (size === 0) return [];
    const rows = await writeTransaction(this.#db, this.#dialect, async (trx) => {
      const due = trx
        .selectFrom('video_tasks')
        .select('id')
        .where('settled_at', 'is', null)
        .where('next_poll_at', '<=', now)
        .where((eb) => leaseFree(eb, now))
        .orderBy('next_poll_at')
        .orderBy('id')
        .limit(size);
      // PostgreSQL: another instance's claim holds its rows locked until it commits; skipping them (rather than
      // waiting, then finding them leased) keeps two pollers off the same tasks. SQLite's IMMEDIATE transaction
      // already excludes every other writer, and it has no FOR UPDATE.
      const ids = (await (this.#dialect === 'postgres' ? due.forUpdate().skipLocked() : due).execute()).map((r) => r.id);
      if (ids.length === 0) return [];
      return trx
        .updateTable('video_tasks')
        .set({ lease_owner: owner, lease_until: leaseUntil })
        .where('id', 'in', ids)
        .where('settled_at', 'is', null)
        .where((eb) => leaseFree(eb, now))
        .returningAll()
        .execute();
    });
    const tasks = rows.map(decodeTask);
    // RETURNING's order is unspecified: hand them out in the order they fell due.
    return tasks.sort((a, b) => a.nextPollAt - b.nextPollAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  async claimTask(id: string, owner: string, now: number, leaseUntil: number): Promise<boolean> {
    const result = await this.#db
      .updateTable('video_tasks')
      .set({ lease_owner: owner, lease_until: leaseUntil })
      .where('id', '=', id)
      .where('settled_at', 'is', null)
      .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now), eb('lease_owner', '=', owner)]))
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  async releaseLease(owner: string, id?: string): Promise<void> {
    let q = this.#db.updateTable('video_tasks').set({ lease_owner: null, lease_until: null }).where('lease_owner', '=', owner);
    if (id !== undefined) q = q.where('id', '=', id);
    await q.execute();
  }

  async keyTasks(query: KeyTaskQuery): Promise<VideoTaskRow[]> {
    const size = pageSize(query.limit);
    if (size === 0) return [];
    let q = this.#db.selectFrom('video_tasks').selectAll().where('key_id', '=', query.keyId);
    if (query.after !== undefined) {
      // The cursor is one of the key's own tasks: another key's id (or an unknown one) pages nothing, so a cursor
      // says nothing about tasks the caller does not own.
      const after = await this.#db.selectFrom('video_tasks').select('created_at').where('id', '=', query.after).where('key_id', '=', query.keyId).executeTakeFirst();
      if (after === undefined) return [];
      const at = decodeInteger(after.created_at);
      const id = query.after;
      const op = query.ascending ? '>' : '<';
      q = q.where((eb) => eb.or([eb('created_at', op, at), eb.and([eb('created_at', '=', at), eb('id', op, id)])]));
    }
    const order = query.ascending ? 'asc' : 'desc';
    const rows = await q.orderBy('created_at', order).orderBy('id', order).limit(size).execute();
    return rows.map(decodeTask);
  }

  async accountTasks(
    account: string | null,
    page: { readonly offset: number; readonly limit: number; readonly keyId?: string },
  ): Promise<{ readonly rows: readonly VideoTaskRow[]; readonly total: number }> {
    let base = this.#db.selectFrom('video_tasks');
    base = account === null ? base.where('account', 'is', null) : base.where('account', '=', account);
    if (page.keyId !== undefined) base = base.where('key_id', '=', page.keyId);
    const [rows, count] = await Promise.all([
      base.selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').offset(Math.max(0, Math.floor(page.offset))).limit(pageSize(page.limit)).execute(),
      base.select((eb) => eb.fn.countAll<number | string | bigint>().as('n')).executeTakeFirstOrThrow(),
    ]);
    return { rows: rows.map(decodeTask), total: decodeInteger(count.n) };
  }
}
