// Shared helpers for store tests: a temp directory per test and a fully populated usage record.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'node:test';
import { openStore } from '../../../core/store/open-store.js';
import type { Store, UsageRecord } from '../../../core/store/store.js';
import type { StoreBackend } from '../../helpers/test-stores.js';
import { STORE_PARTS } from '../../../features/index.js';

export async function makeTempDir(): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'gw-store-'));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

export function makeUsage(overrides: Partial<UsageRecord> = {}): UsageRecord {
  return {
    requestId: 'req-1',
    ts: 1_700_000_000_000,
    keyId: 'key-1',
    keyName: 'alice',
    group: 'default',
    route: 'chat',
    model: 'gpt-4o',
    upstreamModel: 'gpt-4o-2024-08-06',
    channel: 'openai-main',
    status: 200,
    errorCode: null,
    stream: true,
    promptTokens: 12,
    completionTokens: 34,
    cachedTokens: 5,
    cacheWriteTokens: 3,
    reasoningTokens: 7,
    latencyMs: 850,
    ttftMs: 120,
    aborted: false,
    ...overrides,
  };
}

/**
 * A migrated store, fresh for each test (SQLite in a temp dir, or a PostgreSQL schema of its own): `get()` inside
 * tests, hooks registered on the suite.
 */
export function useTempStore(file = 'store.db', backend?: StoreBackend): { get(): Store } {
  let store: Store | undefined;
  let cleanup: (() => Promise<void>) | undefined;
  beforeEach(async () => {
    if (backend !== undefined) {
      const opened = await backend.open();
      store = opened.store;
      cleanup = () => opened.cleanup();
      return;
    }
    const tmp = await makeTempDir();
    store = await openStore(`sqlite:${join(tmp.dir, file)}`, STORE_PARTS);
    cleanup = async () => {
      await store?.close();
      await tmp.cleanup();
    };
  });
  afterEach(async () => {
    await cleanup?.();
  });
  return {
    get(): Store {
      if (store === undefined) throw new Error('useTempStore: no store outside a test');
      return store;
    },
  };
}
