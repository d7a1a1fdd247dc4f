// The outbox over Kysely, on SQLite and PostgreSQL alike but for claimDue's row locks: events kept once per hook and
// occurrence, handed to one sender at a time by a lease, and marked delivered, due again later, or given up on.

import type { Kysely, Selectable } from 'kysely';
import type { StoreDialect } from '../../core/store/migrations.js';
import { decodeInteger } from '../../core/store/row-codec.js';
import type { Database } from '../../core/store/schema.js';
import { writeTransaction } from '../../core/store/write-transaction.js';
import type { WebhookEventsTable, WebhookTables } from './tables.js';

type OutboxDatabase = Database & WebhookTables;

/** An event to keep for one hook. */
export interface NewOutboxEvent {
  readonly id: string;
  readonly hook: string;
  readonly key: string;
  readonly type: string;
  readonly body: string;
}

/** A kept event a sender holds (claimDue). */
export interface OutboxEvent {
  readonly id: string;
  readonly hook: string;
  readonly type: string;
  readonly body: string;
  /** Attempts made before this one. */
  readonly attempts: number;
  readonly createdAt: number;
}

/** The outbox's counts, for metrics and the tests. */
export interface OutboxCounts {
  readonly pending: number;
  readonly delivered: number;
  readonly failed: number;
}

function decodeEvent(row: Pick<Selectable<WebhookEventsTable>, 'id' | 'hook' | 'type' | 'body' | 'attempts' | 'created_at'>): OutboxEvent {
  return { id: row.id, hook: row.hook, type: row.type, body: row.body, attempts: decodeInteger(row.attempts), createdAt: decodeInteger(row.created_at) };
}

export class OutboxStore {
  readonly #db: Kysely<OutboxDatabase>;
  readonly #dialect: StoreDialect;

  constructor(db: Kysely<OutboxDatabase>, dialect: StoreDialect) {
    this.#db = db;
    this.#dialect = dialect;
  }

  /** Keeps each event; one whose hook already has its key is left as it is (the fleet's first keeps it). */
  async keep(events: readonly NewOutboxEvent[], now: number): Promise<void> {
    if (events.length === 0) return;
    await this.#db
      .insertInto('webhook_events')
      .values(
        events.map((event) => ({
          id: event.id,
          hook: event.hook,
          event_key: event.key,
          type: event.type,
          body: event.body,
          created_at: now,
          next_attempt_at: now,
          attempts: 0,
          lease_owner: null,
          lease_until: null,
          delivered_at: null,
          failed_at: null,
          last_error: null,
        })),
      )
      .onConflict((oc) => oc.columns(['hook', 'event_key']).doNothing())
      .execute();
  }

  /**
   * Up to `limit` undelivered events of `hooks` (this instance's: another's config may have hooks this one has not
   * loaded yet) that are due and not leased, leased to `owner` until `leaseUntil`.
   */
  async claimDue(owner: string, hooks: readonly string[], now: number, leaseUntil: number, limit: number): Promise<OutboxEvent[]> {
    if (hooks.length === 0) return [];
    const dueOf = <Q extends Kysely<OutboxDatabase>>(db: Q) =>
      db
        .selectFrom('webhook_events')
        .select('id')
        .where('delivered_at', 'is', null)
        .where('failed_at', 'is', null)
        .where('hook', 'in', hooks)
        .where('next_attempt_at', '<=', now)
        .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]));
    // A read first: most passes find nothing, and a write transaction (SQLite's one writer) is taken only for some.
    if ((await dueOf(this.#db).limit(1).execute()).length === 0) return [];
    const rows = await writeTransaction(this.#db, this.#dialect, async (trx) => {
      const due = dueOf(trx).orderBy('next_attempt_at').orderBy('id').limit(limit);
      // PostgreSQL: rows another instance is claiming are skipped, not waited for; SQLite's write transaction already
      // keeps every other writer out.
      const ids = (await (this.#dialect === 'postgres' ? due.forUpdate().skipLocked() : due).execute()).map((r) => r.id);
      if (ids.length === 0) return [];
      return trx
        .updateTable('webhook_events')
        .set({ lease_owner: owner, lease_until: leaseUntil })
        .where('id', 'in', ids)
        .where('delivered_at', 'is', null)
        .where('failed_at', 'is', null)
        .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]))
        .returning(['id', 'hook', 'type', 'body', 'attempts', 'created_at'])
        .execute();
    });
    return rows.map(decodeEvent).sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : 1));
  }

  /** Delivered: never sent again. Only while `owner` still holds it (a lease that ran out went to another sender). */
  async delivered(id: string, owner: string, now: number, attempts: number): Promise<void> {
    await this.#db
      .updateTable('webhook_events')
      .set({ delivered_at: now, attempts, lease_owner: null, lease_until: null, last_error: null })
      .where('id', '=', id)
      .where('lease_owner', '=', owner)
      .execute();
  }

  /** Failed this time: due again at `nextAt`, or (nextAt null) given up on. */
  async failed(id: string, owner: string, now: number, attempts: number, error: string, nextAt: number | null): Promise<void> {
    await this.#db
      .updateTable('webhook_events')
      .set(
        nextAt === null
          ? { failed_at: now, attempts, lease_owner: null, lease_until: null, last_error: error }
          : { next_attempt_at: nextAt, attempts, lease_owner: null, lease_until: null, last_error: error },
      )
      .where('id', '=', id)
      .where('lease_owner', '=', owner)
      .execute();
  }

  /**
   * Keeps the outbox bounded: deletes the events delivered or given up on before `endedBefore`, and gives up on those
   * still undelivered that were kept before `keptBefore` (long past every retry: their hook is in no instance's config
   * any more). Returns how many rows it deleted and gave up on.
   */
  async prune(endedBefore: number, keptBefore: number, now: number): Promise<{ readonly deleted: number; readonly abandoned: number }> {
    const deleted = await this.#db
      .deleteFrom('webhook_events')
      .where((eb) => eb.or([eb('delivered_at', '<', endedBefore), eb('failed_at', '<', endedBefore)]))
      .executeTakeFirst();
    const abandoned = await this.#db
      .updateTable('webhook_events')
      .set({ failed_at: now, lease_owner: null, lease_until: null, last_error: 'not delivered: its hook is in no instance\'s config' })
      .where('delivered_at', 'is', null)
      .where('failed_at', 'is', null)
      .where('created_at', '<', keptBefore)
      .executeTakeFirst();
    return { deleted: Number(deleted.numDeletedRows), abandoned: Number(abandoned.numUpdatedRows) };
  }

  async counts(): Promise<OutboxCounts> {
    const rows = await this.#db
      .selectFrom('webhook_events')
      .select((eb) => [
        eb.fn.countAll<number | string | bigint>().as('all'),
        eb.fn.count<number | string | bigint>('delivered_at').as('delivered'),
        eb.fn.count<number | string | bigint>('failed_at').as('failed'),
      ])
      .executeTakeFirstOrThrow();
    const all = decodeInteger(rows.all);
    const delivered = decodeInteger(rows.delivered);
    const failed = decodeInteger(rows.failed);
    return { pending: all - delivered - failed, delivered, failed };
  }
}
