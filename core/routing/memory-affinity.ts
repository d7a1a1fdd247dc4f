// The in-process AffinityStore: an LRU with per-entry TTL, renewed on every use.

import { LRUCache } from 'lru-cache';
import type { AffinityBinding, AffinityStore } from './affinity.js';

export class MemoryAffinityStore implements AffinityStore {
  private readonly cache: LRUCache<string, AffinityBinding>;

  constructor(maxEntries: number) {
    // Each set() gives its own TTL. No autopurge: expired entries go when read or pushed out, with no timers.
    this.cache = new LRUCache({ max: maxEntries, ttl: 3_600_000, updateAgeOnGet: true, allowStale: false });
  }

  get(key: string): Promise<AffinityBinding | null> {
    return Promise.resolve(this.cache.get(key) ?? null);
  }

  set(key: string, binding: AffinityBinding, ttlMs: number): Promise<void> {
    this.cache.set(key, binding, { ttl: ttlMs });
    return Promise.resolve();
  }

  get size(): number {
    return this.cache.size;
  }

  close(): Promise<void> {
    this.cache.clear();
    return Promise.resolve();
  }
}
