// Conversation bindings shared by the fleet: a conversation started on one instance continues on the same channel
// and upstream key through any other. Every binding is also kept in this process (the in-process table), which
// answers when Redis does not within the request's wait: affinity degrades to per instance, never to an error.

import type { AffinityBinding, AffinityStore } from '../routing/affinity.js';
import type { MemoryAffinityStore } from '../routing/memory-affinity.js';
import type { RedisState } from './redis-state.js';
import { within } from './within.js';

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
    if (this.#state.client.isReady) {
      try {
        const value = await within(this.#state.client.get(this.#redisKey(key)), this.#options.timeoutMs);
        // A binding another instance wrote (or none anywhere): the fleet's answer.
        return value === null ? null : parseBinding(value);
      } catch (err) {
        this.#options.onError(err);
      }
    }
    return this.#local.get(key);
  }

  async set(key: string, binding: AffinityBinding, ttlMs: number): Promise<void> {
    await this.#local.set(key, binding, ttlMs);
    if (!this.#state.client.isReady) return;
    try {
      await within(this.#state.client.set(this.#redisKey(key), `${binding.keyIndex}:${binding.channel}`, { expiration: { type: 'PX', value: ttlMs } }), this.#options.timeoutMs);
    } catch (err) {
      this.#options.onError(err);
    }
  }

  close(): Promise<void> {
    return this.#local.close();
  }

  #redisKey(key: string): string {
    return `${this.#options.prefix}aff:${key}`;
  }
}

/** `<keyIndex>:<channel>` (a channel name may hold a colon; the index cannot). */
function parseBinding(value: string): AffinityBinding | null {
  const colon = value.indexOf(':');
  const keyIndex = Number(value.slice(0, colon));
  return colon > 0 && Number.isInteger(keyIndex) && keyIndex >= 0 ? { channel: value.slice(colon + 1), keyIndex } : null;
}
