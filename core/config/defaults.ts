// Values used when gateway.yaml leaves a field out; they mirror the `default`s in the schema (a test checks).

import type { ResolvedAffinity, ResolvedHealth, ResolvedLog, ResolvedMock, ResolvedServer } from './resolved.js';

export const SERVER_DEFAULTS: ResolvedServer = {
  port: 8080,
  host: '0.0.0.0',
  bodyLimit: 33_554_432,
  adminToken: null,
  shutdownGraceMs: 30_000,
  drainDelayMs: 0,
  bodyTimeoutMs: 30_000,
  headerTimeoutMs: 30_000,
  maxInflightBodyBytes: 268_435_456,
  maxAnswerBytes: 268_435_456,
  overheadHeader: true,
  metricsToken: null,
  metricsListen: null,
  adminListen: null,
  trustedProxies: [],
};

export const LOG_DEFAULTS: ResolvedLog = { level: null, access: false };

export const STORE_DEFAULT_URL = 'sqlite:./data/gateway.db';
export const STORE_DEFAULTS = { poolMax: 10, journalMaxRecords: 1_000_000 } as const;

export const PRICING_DEFAULTS = {
  currency: 'USD',
  defaultOutputReserve: 4096,
  unpriced: 'refuse',
  reservationTimeoutMs: 30_000,
  showCost: true,
} as const;

export const CHANNEL_DEFAULTS = {
  priority: 0,
  weight: 1,
  timeoutMs: 60_000,
  idleTimeoutMs: 300_000,
  cooldownMs: 30_000,
  modelsRefreshMs: 600_000,
} as const;

export const HEALTH_DEFAULTS: ResolvedHealth = { errors: 5, window: 10, probeAfterMs: 30_000, probeMaxMs: 600_000 };

export const MOCK_DEFAULTS: ResolvedMock = { chunkDelayMs: 0, reply: null };

export const AFFINITY_DEFAULTS: ResolvedAffinity = { ttlMs: 3_600_000, maxEntries: 100_000 };


