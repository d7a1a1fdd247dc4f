// Conversation bindings shared by the fleet: a conversation started on one instance continues on the same channel
// and upstream key through any other. Every binding is also kept in this process (the in-process table), which
// answers when Redis does not within the request's wait, or knows no binding (one made here while Redis was out):
// affinity degrades to per instance, never to an error.

import { createHash } from 'node:crypto';
import type { AffinityBinding, AffinityStore } from '../routing/affinity.js';
import type { MemoryAffinityStore } from '../routing/memory-affinity.js';
import type { RedisState } from './redis-state.js';
import { RedisTimeout, within } from './within.js';

export interface RedisAffinityOptions {
  readonly prefix: string;
  /** The longest a request waits on Redis, ms. */
  readonly timeoutMs: number;
  /** A call failed or did not answer in time. */
  readonly onError: (err: unknown) => void;
}

export class RedisAffinityStore implements AffinityStore {
  readonly #state: RedisState;
  readonly #local: MemoryAffinityStore;
  readonly #options: RedisAffinityOptions;

  constructor(state: RedisState, local: MemoryAffinityStore, options: RedisAffinityOptions) {
    this.#state = state;
    this.#local = local;
    this.#options = options;
  }

  async get(key: string): Promise<AffinityBinding | null> {
    if (this.#state.gate.open()) {
      try {
        const value = await within(this.#state.client.get(this.#redisKey(key)), this.#options.timeoutMs);
        this.#state.gate.answered();
        // Another instance's binding is the fleet's latest (the conversation may have moved through it).
        const shared = value === null ? null : parseBinding(value);
        if (shared !== null) return shared;
      } catch (err) {
        this.#failed(err);
      }
    }
    return this.#local.get(key);
  }

  async set(key: string, binding: AffinityBinding, ttlMs: number): Promise<void> {
    await this.#local.set(key, binding, ttlMs);
    if (!this.#state.gate.open()) return;
    try {
      await within(this.#state.client.set(this.#redisKey(key), `${binding.keyIndex}:${binding.channel}`, { expiration: { type: 'PX', value: ttlMs } }), this.#options.timeoutMs);
      this.#state.gate.answered();
    } catch (err) {
      this.#failed(err);
    }
  }

  close(): Promise<void> {
    return this.#local.close();
  }

  #failed(err: unknown): void {
    if (err instanceof RedisTimeout) this.#state.gate.timedOut();
    this.#options.onError(err);
  }

  /**
   * A digest of the table key: the caller's conversation id (often a user id) and model name are the client's
   * strings, neither stored in Redis nor able to make its keys long.
   */
  #redisKey(key: string): string {
    return `${this.#options.prefix}aff:${createHash('sha256').update(key).digest('base64url')}`;
  }
}

/** `<keyIndex>:<channel>` (a channel name may hold a colon; the index cannot). */
function parseBinding(value: string): AffinityBinding | null {
  const colon = value.indexOf(':');
  const keyIndex = Number(value.slice(0, colon));
  return colon > 0 && Number.isInteger(keyIndex) && keyIndex >= 0 ? { channel: value.slice(colon + 1), keyIndex } : null;
}
