// GET /readyz: whether a load balancer should send this instance traffic. Ready means not draining (a SIGTERM turns it
// 503 first, for server.drain_delay_ms, before the drain refuses anything), the store answering, and Redis connected
// when one is configured. Anyone may ask (a probe carries no credentials), so the store is asked at most once a second
// however often it is called, and never for longer than a second: a probe is not a way to load the database.

import type { Runtime } from '../runtime.js';

export interface ReadyReport {
  readonly ready: boolean;
  readonly status: 'ready' | 'draining' | 'unavailable';
  readonly store: 'ok' | 'down';
  readonly redis: 'ok' | 'down' | 'none';
}

const CACHE_MS = 1000;
const STORE_WAIT_MS = 1000;

export class Readiness {
  readonly #runtime: Runtime;
  #last: { readonly at: number; readonly store: Promise<boolean> } | null = null;

  constructor(runtime: Runtime) {
    this.#runtime = runtime;
  }

  /** The store's answer, asked at most once per CACHE_MS. */
  #storeAnswers(now: number): Promise<boolean> {
    if (this.#last !== null && now - this.#last.at < CACHE_MS) return this.#last.store;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<boolean>((resolve) => {
      timer = setTimeout(resolve, STORE_WAIT_MS, false);
    });
    const store = Promise.race([
      this.#runtime.deps.store.ping().then(
        () => true,
        () => false,
      ),
      late,
    ]).finally(() => clearTimeout(timer));
    this.#last = { at: now, store };
    return store;
  }

  async report(now = Date.now()): Promise<ReadyReport> {
    const shared = this.#runtime.deps.shared;
    const redis = shared === undefined ? 'none' : shared.redis.connected ? 'ok' : 'down';
    const store = (await this.#storeAnswers(now)) ? 'ok' : 'down';
    if (this.#runtime.draining) return { ready: false, status: 'draining', store, redis };
    const ready = store === 'ok' && redis !== 'down';
    return { ready, status: ready ? 'ready' : 'unavailable', store, redis };
  }
}
