// Shared helpers for store tests: a temp directory per test and a fully populated usage record.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { UsageRecord } from '../../../core/store/store.js';

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
    reasoningTokens: 7,
    latencyMs: 850,
    ttftMs: 120,
    aborted: false,
    ...overrides,
  };
}
