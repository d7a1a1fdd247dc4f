// Starts a gateway from a config file: store, usage writer, runtime, HTTP server, reload and graceful stop.

import type { PasswordCost } from './console/password.js';
import { randomUUID } from 'node:crypto';
import { createHash } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, resolve } from 'node:path';
import { parseConfig, readConfigText } from './config/load.js';
import { worldReadableSecretsWarning } from './config/secret-file-mode.js';
import { ConfigError, type ResolvedConfig } from './config/resolved.js';
import { watchConfigFile } from './config/watch.js';
import { ConfigValidator } from './config/validate.js';
import { listenForAdmin } from './http/admin-listener.js';
import { listenForMetrics } from './http/metrics-listener.js';
import { createHttpServer } from './http/server.js';
import type { Logger } from './logging/logger.js';
import { GatewayMetrics } from './metrics/gateway-metrics.js';
import type { PluginFactory } from './pipeline/plugin.js';
import { MemoryAffinityStore } from './routing/memory-affinity.js';
import type { EndpointRegistry } from './endpoints/registry.js';
import { pluginsOf, registryOf } from './feature/compose.js';
import type { Feature } from './feature/feature.js';
import { BodyPool } from './formats/body-pool.js';
import { ScanMemory } from './formats/scan-memory.js';
import { Leases } from './money/leases.js';
import type { Limiter } from './limits/limiter.js';
import type { HostResolver } from './assets/asset-url.js';
import { MemoryLimiter } from './limits/memory-limiter.js';
import { ChannelHealth } from './routing/health.js';
import { ChannelLoad } from './routing/channel-load.js';
import { DisabledAccounts } from './keys/disabled-accounts.js';
import type { SharedState } from './shared/shared-state.js';
import { LocalInstances } from './shared/instances.js';
import { Runtime } from './runtime.js';
import { VideoPoller } from './video/poller.js';
import { UsagePruner } from './store/usage-pruner.js';
import { MockImageFiles } from './providers/mock/image-files.js';
import { openStore } from './store/open-store.js';
import { describeStoreUrl, isPostgresUrl } from './store/store-url.js';
import type { Store } from './store/store.js';
import { UsageJournal } from './store/usage-journal.js';
import { UsageWriter } from './store/usage-writer.js';

export interface StartOptions {
  readonly configPath: string;
  /** The features served beside the model routes (features/index.ts). */
  readonly features: readonly Feature[];
  /** The plugins chains may name (plugins/index.ts), beside the features' own. */
  readonly factories: ReadonlyMap<string, PluginFactory>;
  readonly logger: Logger;
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Overrides server.port (the PORT variable); 0 picks a free port. */
  readonly port?: number;
  /** Reload when the file changes (SIGHUP is wired by the caller through `reload`). */
  readonly watch?: boolean;
  readonly usageFlushMs?: number;
  /** The routes served (the model routes and the features' when absent): a test's or an embedding program's own. */
  readonly endpoints?: EndpointRegistry;
  /** Rate-limit state (a test's, with a clock it moves); this process's own when absent. */
  readonly limiter?: Limiter;
  /** How asset URLs' hosts are resolved (a test's, without DNS); the system's when absent. */
  readonly resolveHost?: HostResolver;
  /** The clock the mock channel's asset library reads (a test's, moved by hand); the system's when absent. */
  readonly mockClock?: () => number;
  /** scrypt's cost for console passwords (a test's small one); PASSWORD_COST when absent. */
  readonly passwordCost?: PasswordCost;
  /** How often the video poller looks for due tasks (tests look often); default the poll interval, at most 1 s. */
  readonly videoPollTickMs?: number;
}

export interface RunningGateway {
  readonly url: string;
  /** The server.metrics_listen listener's URL, or null when /metrics is on the main port. */
  readonly metricsUrl: string | null;
  /** The server.admin_listen listener's URL, or null when /admin/* is on the main port. */
  readonly adminUrl: string | null;
  readonly port: number;
  /** The store it opened, as it may be logged: an absolute sqlite path, never a password. */
  readonly store: string;
  readonly runtime: Runtime;
  /** Re-reads the config file; a valid one swaps in, an invalid one is logged and the old config stays. */
  reload(): Promise<boolean>;
  /** Graceful stop: no new requests, in-flight ones finish (or are aborted after the grace), usage flushed. */
  close(): Promise<void>;
}

export async function startGateway(options: StartOptions): Promise<RunningGateway> {
  const { logger } = options;
  const env = options.env ?? process.env;
  const initial = await readConfigText(options.configPath);
  const endpoints = options.endpoints ?? registryOf(options.features);
  // Compiled once (the schema's compile is most of a parse's cost), for the start and every reload.
  const validator = new ConfigValidator(endpoints);
  const config = parseConfig(initial.text, { file: initial.file, env, endpoints, validator });
  const exposed = await worldReadableSecretsWarning(initial.file, initial.text);
  if (exposed !== null) logger.warn({ file: initial.file }, exposed);
  // A PostgreSQL store may be down: usage records then wait in a local journal (a SQLite store is local already).
  // Opened first: an instance that would share another's journal stops before touching anything.
  const journal = isPostgresUrl(config.store.url) ? new UsageJournal(journalPathFor(config, options.port ?? config.server.port)) : undefined;
  let store: Store;
  try {
    store = await openStore(config.store.url, { poolMax: config.store.poolMax });
  } catch (err) {
    journal?.close();
    throw err;
  }
  if (journal !== undefined && journal.size > 0) {
    logger.warn({ records: journal.size, journal: journal.path }, 'writing the usage records an earlier run left in the journal');
  }
  const leases = new Leases(store.ledger, {
    holdTtlMs: config.pricing.reservationTimeoutMs,
    onError: (err) => logger.warn({ err }, 'renewing the balance held failed; retrying'),
  });
  const writer = new UsageWriter(store, {
    flushIntervalMs: options.usageFlushMs ?? 200,
    onError: (err, pending) => logger.error({ err, pending }, 'writing usage records failed; they stay queued'),
    // A hold is kept (and renewed) until the charges drawn on it are written.
    onWritten: (records) => leases.written(records),
    journal,
    journalMax: config.store.journalMaxRecords,
  });
  const metrics = new GatewayMetrics();
  const localAffinity = new MemoryAffinityStore(config.affinity.maxEntries);
  const health = new ChannelHealth();
  // The current config's channel names (a reload replaces them): the fleet's cool-downs of other names are ignored.
  const channelNames = { current: new Set(config.channels.map((c) => c.name)) };
  const knownChannel = (name: string): boolean => channelNames.current.has(name);
  // Loaded only when configured: the Redis client is a quarter of what loading the gateway costs (docs/performance.md).
  const shared: SharedState | null =
    config.redis === null ? null : (await import('./shared/shared-state.js')).startSharedState(config.redis, { logger, metrics, health, localAffinity, knownChannel });
  if (shared !== null) {
    // A Redis that answers at start is used from the first request; one that does not is not waited for long.
    const ready = await shared.redis.ready(REDIS_START_WAIT_MS);
    // Shown as a store URL is: its password and secret-bearing parameters masked.
    const redis = describeStoreUrl(config.redis?.url ?? '');
    if (ready) logger.info({ redis }, 'rate limits, conversation affinity and channel cool-downs are shared through Redis');
    else logger.warn({ redis }, `Redis does not answer yet: limited keys are served as redis.on_failure says until it does`);
  }
  await recordMoneyConfig(store, config);
  leases.start();
  const disabledAccounts = new DisabledAccounts(
    () => store.ledger.disabledAccounts(),
    (err) => logger.warn({ err }, 'reading the disabled accounts failed; the last list stays in force'),
  );
  await disabledAccounts.start();
  // What the console shows as the running config: the bytes last loaded.
  let source = { file: initial.file, text: initial.text };
  const runtime = new Runtime(
    {
      store,
      usage: writer,
      writer,
      affinity: shared?.affinity ?? localAffinity,
      health,
      metrics,
      logger,
      factories: pluginsOf(options.factories, options.features),
      bodyPool: new BodyPool(),
      endpoints,
      mockImages: new MockImageFiles(),
      scanMemory: new ScanMemory(),
      leases,
      limiter: options.limiter ?? shared?.limiter ?? new MemoryLimiter(),
      // One id for the process, whatever the reloads.
      instances: shared?.redis ?? new LocalInstances(`gw-${randomUUID()}`),
      disabledAccounts,
      channelLoad: new ChannelLoad(),
      reload: () => reload(),
      configSource: () => source,
      ...(options.resolveHost === undefined ? {} : { resolveHost: options.resolveHost }),
      ...(options.mockClock === undefined ? {} : { mockClock: options.mockClock }),
      ...(options.passwordCost === undefined ? {} : { passwordCost: options.passwordCost }),
      ...(shared === null ? {} : { shared }),
    },
    config,
  );
  // The level the gateway was started with (the CLI's --log-level, or its default): what a config without
  // log.level means, also after a reload that removed it.
  const startLevel = logger.level;
  if (config.log.level !== null) logger.level = config.log.level;
  // Unfinished video tasks are the store's: this instance reads those due, one instance at a time per task.
  // usage.retention_days: old records pruned in small batches, off the request path (read at each run: a reload applies).
  const pruner = new UsagePruner({ store, retentionDays: () => runtime.current.config.usageRetentionDays, logger });
  pruner.start();
  const videoPoller = new VideoPoller({ owner: runtime.current.services.instances.id, deps: () => runtime.current.services, ...(options.videoPollTickMs === undefined ? {} : { tickMs: options.videoPollTickMs }) });
  videoPoller.start();
  const app = createHttpServer(runtime, config.server);
  // Many clients open at once (agents, streams); Node's default backlog of 511 resets them.
  await app.listen({ port: options.port ?? config.server.port, host: config.server.host, backlog: 4096 });
  const port = (app.server.address() as AddressInfo).port;
  const { metricsListen } = config.server;
  const metricsServer = metricsListen === null ? null : await listenForMetrics(runtime, metricsListen.host, metricsListen.port);
  const { adminListen } = config.server;
  const adminServer = adminListen === null ? null : await listenForAdmin(runtime, config.server, adminListen.host, adminListen.port);
  const host = config.server.host === '0.0.0.0' || config.server.host === '::' ? '127.0.0.1' : config.server.host;

  const digestOf = (text: string): string => createHash('sha256').update(text).digest('hex');
  let lastDigest = digestOf(initial.text);
  /**
   * Reads the file once and parses those very bytes, so the digest always matches what was loaded.
   * `onlyIfChanged`: the watcher fires for touches and duplicate events; those are not reloads.
   */
  async function reload(onlyIfChanged = false): Promise<boolean> {
    try {
      const { file, text } = await readConfigText(options.configPath);
      const digest = digestOf(text);
      if (onlyIfChanged && digest === lastDigest) return true;
      const next = parseConfig(text, { file, env, endpoints, validator });
      await recordMoneyConfig(store, next);
      const adminToken = runtime.current.config.server.adminToken;
      runtime.reload(next);
      // A changed admin token (a leaked one replaced) ends what the old one opened.
      if (next.server.adminToken !== adminToken) await runtime.current.services.consoleSignIn.endAdminTokenSessions();
      channelNames.current = new Set(next.channels.map((c) => c.name));
      void shared?.cooldowns.refresh();
      leases.holdTtlMs = next.pricing.reservationTimeoutMs;
      lastDigest = digest;
      source = { file, text };
      metrics.configReloads.labels('ok').inc();
      logger.level = next.log.level ?? startLevel;
      logger.info({ channels: next.channels.length }, 'config reloaded');
      if (needsRestart(config, next)) {
        logger.warn('server settings (but admin_token, metrics_token and shutdown_grace_ms), store, redis and affinity.max_entries take effect after a restart');
      }
      return true;
    } catch (err) {
      metrics.configReloads.labels('rejected').inc();
      const issues = err instanceof ConfigError ? err.issues : [String((err as Error).message)];
      logger.error({ issues }, 'config rejected; the previous config stays in force');
      return false;
    }
  }
  const stopWatching =
    options.watch === false ? () => undefined : watchConfigFile(options.configPath, () => void reload(true));

  let closing: Promise<void> | null = null;
  async function close(): Promise<void> {
    stopWatching();
    // Load balancers see /readyz turn 503 and stop sending; what they still send meanwhile is served.
    runtime.beginDrain();
    const delay = runtime.current.config.server.drainDelayMs;
    if (delay > 0) {
      logger.info({ delayMs: delay }, 'not ready any more: draining after the delay');
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
    runtime.beginShutdown();
    const listenerClosed = app.close();
    const metricsClosed = metricsServer === null ? Promise.resolve() : closeServer(metricsServer);
    const adminClosed = adminServer === null ? Promise.resolve() : closeServer(adminServer);
    await runtime.drained(runtime.current.config.server.shutdownGraceMs);
    await listenerClosed;
    await metricsClosed;
    await adminClosed;
    await videoPoller.stop();
    await pruner.stop();
    await runtime.close();
    disabledAccounts.stop();
    if (journal !== undefined && writer.pending > 0) {
      logger.warn({ records: writer.pending, journal: journal.path }, 'the store does not answer: usage records wait in the journal for the next start');
    }
  }

  return {
    url: urlOf(config.server.host, port),
    metricsUrl: metricsServer === null || metricsListen === null ? null : urlOf(metricsListen.host, (metricsServer.address() as AddressInfo).port),
    adminUrl: adminServer === null || adminListen === null ? null : urlOf(adminListen.host, (adminServer.address() as AddressInfo).port),
    port,
    store: describeStoreUrl(config.store.url),
    runtime,
    reload: () => reload(),
    close: () => (closing ??= close()),
  };
}

/** The file's accounts exist in the store, and its prices are kept under their version (for the audit). */
async function recordMoneyConfig(store: Store, config: ResolvedConfig): Promise<void> {
  const now = Date.now();
  await store.ledger.ensureAccounts(config.accounts, now);
  await store.ledger.savePriceVersion(config.pricing.version, config.pricing.document, now);
}

/**
 * store.journal_path, or `data/usage-journal-<port>.db` beside the config file: the port tells apart instances
 * on one host started from one file (they cannot share a port), and the journal's lock tells them apart otherwise.
 */
function journalPathFor(config: ResolvedConfig, port: number): string {
  return config.store.journalPath ?? resolve(config.file === null ? process.cwd() : dirname(config.file), 'data', `usage-journal-${port}.db`);
}

/** A URL to reach a listener on `host` (a wildcard address is reached on loopback). */
function urlOf(host: string, port: number): string {
  const reachable = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  return `http://${reachable.includes(':') ? `[${reachable}]` : reachable}:${port}`;
}

/** Whether `next` changes a setting that only a restart applies. */
function needsRestart(current: ResolvedConfig, next: ResolvedConfig): boolean {
  const fixed = (c: ResolvedConfig): unknown[] => [
    c.server.port,
    c.server.host,
    c.server.bodyLimit,
    c.server.bodyTimeoutMs,
    c.server.headerTimeoutMs,
    c.server.maxInflightBodyBytes,
    JSON.stringify(c.server.metricsListen),
    JSON.stringify(c.server.adminListen),
    c.store.url,
    c.store.journalPath,
    c.store.journalMaxRecords,
    c.affinity.maxEntries,
    JSON.stringify(c.redis),
  ];
  const a = fixed(current);
  return fixed(next).some((value, i) => value !== a[i]);
}

function closeServer(server: Server): Promise<void> {
  server.closeIdleConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

/** How long the start waits for Redis to answer. */
const REDIS_START_WAIT_MS = 2000;
