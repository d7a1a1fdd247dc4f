// A task call to an Ark data plane at a test's URL, and the check that a call failed as the video upstream words it
// without naming its key: what the data plane's tests (features/video/data-plane*.test.ts) share.

import assert from 'node:assert/strict';
import type { ResolvedChannel } from '../../core/config/resolved.js';
import { VideoUpstreamError, type TaskCall } from '../../features/video/upstream.js';

export const ARK_MODEL = 'doubao-seedance-2-0-260128';

export interface ArkChannelOverrides {
  readonly timeoutMs?: number;
  readonly idleTimeoutMs?: number;
  readonly headers?: Record<string, string>;
}

export function arkChannel(baseUrl: string, overrides: ArkChannelOverrides = {}): ResolvedChannel {
  return {
    name: 'ark',
    type: 'volcengine',
    formats: ['video'],
    dialect: null,
    dropParams: [],
    baseUrl,
    keys: [],
    models: { patterns: [ARK_MODEL], aliases: new Map() },
    priority: 0,
    weight: 1,
    timeoutMs: overrides.timeoutMs ?? 5_000,
    idleTimeoutMs: overrides.idleTimeoutMs ?? 5_000,
    cooldownMs: 0,
    health: { errors: 5, window: 10, probeAfterMs: 30_000, probeMaxMs: 600_000 },
    modelsRefreshMs: 0,
    headers: overrides.headers ?? {},
    mock: { chunkDelayMs: 0, reply: null },
  };
}

export function arkCall(baseUrl: string, key: string, overrides: ArkChannelOverrides = {}, signal = new AbortController().signal): TaskCall {
  return { channel: arkChannel(baseUrl, overrides), key, signal };
}

/** The call fails with a VideoUpstreamError of this kind, status and code; nothing it carries names `key`. */
export async function assertUpstreamFails(promise: Promise<unknown>, kind: 'refused' | 'unavailable', status: number, code: string, key: string): Promise<VideoUpstreamError> {
  let caught: unknown;
  await assert.rejects(promise, (err: unknown) => {
    caught = err;
    return true;
  });
  assert.ok(caught instanceof VideoUpstreamError, String(caught));
  assert.deepEqual({ kind: caught.kind, status: caught.status, code: caught.code }, { kind, status, code }, caught.message);
  const told = [caught.message, caught.stack ?? '', String(caught.cause), (caught.cause as Error | undefined)?.stack ?? ''].join('\n');
  assert.ok(!told.includes(key), told);
  return caught;
}
