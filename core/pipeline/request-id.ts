// Request ids: `req_` + 32 hex digits, time-ordered (48-bit milliseconds, then 80 random bits, as UUIDv7).
// The id is the usage record's request_id, which is indexed: random ids land on random pages of that index,
// and writing a usage row cost 21 us instead of 8 (bench usage-writer, SQLite); ordered ids append.

import { randomFillSync } from 'node:crypto';

const RANDOM_BYTES = 10;
/** Entropy drawn in blocks, as randomUUID does: one system call per 512 ids. */
const POOL_IDS = 512;

/** The ids of one process (the Runtime owns it): its entropy pool is its own state, not the module's. */
export class RequestIds {
  readonly #pool = Buffer.alloc(RANDOM_BYTES * POOL_IDS);
  #at = this.#pool.length;

  next(now: number = Date.now()): string {
    const pool = this.#pool;
    if (this.#at + RANDOM_BYTES > pool.length) {
      randomFillSync(pool);
      this.#at = 0;
    }
    const random = pool.toString('hex', this.#at, this.#at + RANDOM_BYTES);
    this.#at += RANDOM_BYTES;
    return `req_${now.toString(16).padStart(12, '0')}${random}`;
  }
}
