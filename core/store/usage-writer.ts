// Batches usage records off the request path: add() only queues; a timer or a full batch writes them; none is dropped.
// With a journal (a PostgreSQL store), what the store refuses waits on local disk instead of in memory.
import type { UsageRecord, UsageStore } from './store.js';
import type { UsageJournal } from './usage-journal.js';

export interface UsageWriterOptions {
  /** How often queued records are written; default 200 ms. */
  readonly flushIntervalMs?: number | undefined;
  /** Most records per insertUsage call; reaching it schedules a write at once. Default 1000. */
  readonly maxBatch?: number | undefined;
  /** Pending records at which `saturated` turns true and new billable requests are refused. Default 50,000. */
  readonly highWaterMark?: number | undefined;
  /** Called after each failed write, once the batch is back in the queue; `pending` counts what awaits writing. */
  readonly onError?: ((err: unknown, pending: number) => void) | undefined;
  /** Called with each batch once it is written (the leases learn which charges the store now has). */
  readonly onWritten?: ((records: readonly UsageRecord[]) => void) | undefined;
  /**
   * Where a batch the store refused waits (durably), and every later one while it is not empty, so that order
   * holds; written first by each drain. The writer closes it.
   */
  readonly journal?: UsageJournal | undefined;
  /** Journaled records at which `saturated` turns true. Default 1,000,000. */
  readonly journalMax?: number | undefined;
}

const DEFAULT_FLUSH_INTERVAL_MS = 200;
const DEFAULT_MAX_BATCH = 1000;
const DEFAULT_HIGH_WATER_MARK = 50_000;
const DEFAULT_JOURNAL_MAX = 1_000_000;
/** On close the timer is gone, so failed writes are retried here a few times before giving up loudly. */
const CLOSE_ATTEMPTS = 5;
const CLOSE_RETRY_DELAY_MS = 100;

function reportToStderr(err: unknown, pending: number): void {
  console.error(`usage writer: write failed, ${pending} records pending (will retry)`, err);
}

function noop(): void {}

export class UsageWriter {
  readonly #store: Pick<UsageStore, 'insertUsage'>;
  readonly #maxBatch: number;
  readonly #highWaterMark: number;
  readonly #onError: (err: unknown, pending: number) => void;
  readonly #onWritten: (records: readonly UsageRecord[]) => void;
  readonly #timer: NodeJS.Timeout;
  readonly #journal: UsageJournal | undefined;
  readonly #journalMax: number;
  #queue: UsageRecord[] = [];
  /** Records taken from the queue and being written now. */
  #inFlight = 0;
  #flushing: Promise<void> | undefined;
  /** A flush requested while one runs; callers asking meanwhile share it. */
  #nextFlush: Promise<void> | undefined;
  #immediate: NodeJS.Immediate | undefined;
  /** After a failure, full batches wait for the timer instead of retrying on every add(). */
  #failing = false;
  #closing: Promise<void> | undefined;

  constructor(store: Pick<UsageStore, 'insertUsage'>, options: UsageWriterOptions = {}) {
    this.#store = store;
    this.#maxBatch = Math.max(1, Math.floor(options.maxBatch ?? DEFAULT_MAX_BATCH));
    this.#onError = options.onError ?? reportToStderr;
    this.#onWritten = options.onWritten ?? noop;
    this.#highWaterMark = Math.max(1, options.highWaterMark ?? DEFAULT_HIGH_WATER_MARK);
    this.#journal = options.journal;
    this.#journalMax = Math.max(1, options.journalMax ?? DEFAULT_JOURNAL_MAX);
    const interval = Math.max(1, options.flushIntervalMs ?? DEFAULT_FLUSH_INTERVAL_MS);
    this.#timer = setInterval(() => this.#flushInBackground(), interval);
    // The writer must not keep the process alive; shutdown calls close() to write what is left.
    this.#timer.unref();
  }

  /** Records queued, being written, or in the journal. */
  get pending(): number {
    return this.#queue.length + this.#inFlight + this.#journaled();
  }

  /**
   * The store is not keeping up (or is down): callers stop accepting new billable work instead of growing the
   * queue without bound. Records already accepted are still never dropped.
   */
  get saturated(): boolean {
    return this.#queue.length + this.#inFlight >= this.#highWaterMark || this.#journaled() >= this.#journalMax;
  }

  add(record: UsageRecord): void {
    if (this.#closing !== undefined) throw new Error('usage writer is closed; the record was not accepted');
    this.#queue.push(record);
    if (this.#queue.length >= this.#maxBatch && this.#immediate === undefined && !this.#failing) {
      this.#immediate = setImmediate(() => {
        this.#immediate = undefined;
        this.#flushInBackground();
      });
    }
  }

  /** Writes everything queued; rejects (with the batch requeued) if a write fails. */
  flush(): Promise<void> {
    if (this.#flushing === undefined) return this.#startDrain();
    this.#nextFlush ??= this.#flushing.catch(noop).then(() => {
      this.#nextFlush = undefined;
      return this.#flushing ?? this.#startDrain();
    });
    return this.#nextFlush;
  }

  /**
   * Stops the timer and writes everything; what the store still refuses after a few attempts goes to the journal
   * (for the next start). Throws if records remain in memory: no journal, or it could not be written.
   */
  close(): Promise<void> {
    this.#closing ??= this.#closeOnce();
    return this.#closing;
  }

  async #closeOnce(): Promise<void> {
    clearInterval(this.#timer);
    if (this.#immediate !== undefined) clearImmediate(this.#immediate);
    this.#immediate = undefined;
    let lastError: unknown;
    try {
      for (let attempt = 1; attempt <= CLOSE_ATTEMPTS; attempt++) {
        try {
          await this.flush();
          if (this.pending === 0) return;
        } catch (err) {
          lastError = err;
        }
        if (attempt < CLOSE_ATTEMPTS) await new Promise((r) => setTimeout(r, CLOSE_RETRY_DELAY_MS));
      }
      if (this.#journal !== undefined) {
        try {
          this.#spill();
          return;
        } catch (err) {
          lastError = err;
        }
      }
      throw new Error(`usage writer closed with ${this.#queue.length + this.#inFlight} usage records unwritten`, { cause: lastError });
    } finally {
      this.#journal?.close();
    }
  }

  #journaled(): number {
    return this.#journal?.size ?? 0;
  }

  /** Moves the memory queue to the journal's end (durably, or not at all: then it stays queued). */
  #spill(): void {
    if (this.#journal === undefined || this.#queue.length === 0) return;
    this.#journal.append(this.#queue);
    this.#queue = [];
  }

  #flushInBackground(): void {
    if ((this.#queue.length === 0 && this.#journaled() === 0) || this.#flushing !== undefined) return;
    // Failures were already reported through onError and the records requeued.
    this.flush().catch(noop);
  }

  #startDrain(): Promise<void> {
    const drain: Promise<void> = this.#drain().finally(() => {
      if (this.#flushing === drain) this.#flushing = undefined;
    });
    this.#flushing = drain;
    return drain;
  }

  async #drain(): Promise<void> {
    await this.#drainJournal();
    while (this.#queue.length > 0) {
      const batch = this.#queue.splice(0, this.#maxBatch);
      this.#inFlight = batch.length;
      try {
        await this.#store.insertUsage(batch);
      } catch (err) {
        // Back to the front, so order holds and nothing is lost; the next tick (or close) retries.
        this.#inFlight = 0;
        this.#queue = batch.concat(this.#queue);
        this.#failing = true;
        this.#spillOrReport();
        this.#reportError(err);
        throw err;
      } finally {
        this.#inFlight = 0;
      }
      this.#failing = false;
      this.#onWritten(batch);
    }
  }

  /**
   * The journal's records are older than the queue's: while it has any, the queue joins its end before each
   * write (nothing grows in memory while the store is down), and it is written oldest first, a batch at a time.
   * A batch written but not yet removed (a crash in between) is written again harmlessly: insertUsage skips
   * the request ids it has.
   */
  async #drainJournal(): Promise<void> {
    const journal = this.#journal;
    if (journal === undefined) return;
    while (journal.size > 0) {
      this.#spillOrReport();
      const entries = journal.peek(this.#maxBatch);
      const batch = entries.map((e) => e.record);
      try {
        await this.#store.insertUsage(batch);
      } catch (err) {
        this.#failing = true;
        this.#spillOrReport();
        this.#reportError(err);
        throw err;
      }
      journal.remove((entries.at(-1) as { seq: number }).seq);
      this.#failing = false;
      this.#onWritten(batch);
    }
  }

  /** After a failed write: the queue goes to the journal; if the journal cannot take it, it stays queued in memory. */
  #spillOrReport(): void {
    try {
      this.#spill();
    } catch (err) {
      this.#reportError(err);
    }
  }

  #reportError(err: unknown): void {
    try {
      this.#onError(err, this.pending);
    } catch {
      // A throwing error handler must not break the retry path.
    }
  }
}
