// Starts a gateway from a config file: its services in order (storage, shared state, money, the runtime, background
// loops, listeners, the config watcher), each stopped in reverse by one lifecycle (lifecycle.ts).

import type { PasswordCost } from './console/password.js';
import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, resolve } from 'node:path';
import { parseConfig, readConfigText } from './config/load.js';
import { worldReadableSecretsWarning } from './config/secret-file-mode.js';
import type { ResolvedConfig } from './config/resolved.js';
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
import { pluginsOf, registryOf, storePartsOf } from './feature/compose.js';
import type { Feature } from './feature/feature.js';
import { BodyPool } from './formats/body-pool.js';
import { ScanMemory } from './formats/scan-memory.js';
import { Leases } from './money/leases.js';
import type { Limiter } from './limits/limiter.js';
import type { HostResolver } from './http/public-url.js';
import { MemoryLimiter } from './limits/memory-limiter.js';
import { ChannelHealth } from './routing/health.js';
import { ChannelRotation } from './routing/rotation.js';
import { reportRotationChange } from './feature/rotation-report.js';
import { GATEWAY_EVENTS } from './feature/gateway-events.js';
import { ChannelOverrides } from './routing/overrides.js';
import { ChannelLoad } from './routing/channel-load.js';
import { DisabledAccounts } from './keys/disabled-accounts.js';
import type { SharedState, SharedStateOptions } from './shared/shared-state.js';
import { LocalInstances } from './shared/instances.js';
import { Runtime, type RuntimeDeps } from './runtime.js';
import { Lifecycle } from './lifecycle.js';
import { ConfigReloads, recordMoneyConfig } from './reload.js';
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
  /** How links' hosts are resolved (a test's, without DNS); the system's when absent. */
  readonly resolveHost?: HostResolver;
  /** The calendar clock periodic budgets and tokens_per_day read (which day a request counts in); the system's without. */
  readonly clock?: () => number;
  /** The clock the key lookup cache's 5 s are counted on (a test's, moved by hand); performance.now when absent. */
  readonly keyCacheClock?: () => number;
  /** The clock the mock channel's stores read (a test's, moved by hand); the system's when absent. */
  readonly mockClock?: () => number;
  /** The clock channel rotation's back-offs read (a test's, moved by hand); performance.now when absent. */
  readonly healthClock?: () => number;
  /** scrypt's cost for console passwords (a test's small one); PASSWORD_COST when absent. */
  readonly passwordCost?: PasswordCost;
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
  const endpoints = options.endpoints ?? registryOf(options.features);
  // Compiled once (the schema's compile is most of a parse's cost), for the start and every reload.
  const validator = new ConfigValidator(endpoints);
  const initial = await readConfigText(options.configPath);
  const config = parseConfig(initial.text, { file: initial.file, env, endpoints, validator });
  const exposed = await worldReadableSecretsWarning(initial.file, initial.text);
  if (exposed !== null) logger.warn({ file: initial.file }, exposed);
  const life = new Lifecycle(logger);
  try {
    const storage = await startStorage(life, config, options);
    const metrics = new GatewayMetrics();
    const health = new ChannelHealth();
    const rotation = new ChannelRotation(options.healthClock);
    const overrides = new ChannelOverrides();
    const localAffinity = await life.open('affinity', () => new MemoryAffinityStore(config.affinity.maxEntries), (a) => a.close());
    // The current config's channel names (a reload replaces them): the fleet's cool-downs of other names are ignored.
    const channelNames = { current: new Set(config.channels.map((c) => c.name)) };
    const knownChannel = (name: string): boolean => channelNames.current.has(name);
    const shared = await startShared(life, config, Object.assign({ logger, metrics, health, rotation, localAffinity, knownChannel }, options.clock === undefined ? {} : { calendar: options.clock }));
    const reloads = new ConfigReloads({ configPath: options.configPath, env, endpoints, validator, store: storage.store, metrics, logger, applied: (next) => {
      channelNames.current = new Set(next.channels.map((c) => c.name));
      void shared?.cooldowns.refresh();
      void shared?.rotation.refresh();
      rotation.retain(knownChannel);
      storage.leases.holdTtlMs = next.pricing.reservationTimeoutMs;
    } }, initial);
    await recordMoneyConfig(storage.store, config);
    const disabledAccounts = new DisabledAccounts(() => storage.store.ledger.disabledAccounts(), (err) => logger.warn({ err }, 'reading the disabled accounts failed; the last list stays in force'));
    await life.start({ name: 'disabled accounts', start: () => disabledAccounts.start(), stop: () => disabledAccounts.stop() });
    const runtime = new Runtime(runtimeDeps(options, storage, { metrics, health, rotation, overrides, localAffinity, shared, disabledAccounts, reloads, endpoints }), config);
    reloads.attach(runtime);
    rotation.onChange = (change) => reportRotationChange({ logger, metrics, known: knownChannel, events: () => runtime.current.services.findFeature(GATEWAY_EVENTS) }, change);
    if (config.log.level !== null) logger.level = config.log.level;
    await life.start({ name: 'runtime', stop: () => runtime.retire() });
    // usage.retention_days: old records pruned in small batches, off the request path (read at each run: a reload applies).
    // The same job deletes the spend rows of periodic caps' periods long over (on the calendar clock the periods are on).
    const pruner = new UsagePruner({ store: storage.store, retentionDays: () => runtime.current.config.usageRetentionDays, logger, ...(options.clock === undefined ? {} : { calendar: options.clock }) });
    await life.start({ name: 'usage pruner', start: () => pruner.start(), stop: () => pruner.stop() });
    const jobs = { instance: runtime.current.services.instances.id, services: () => runtime.current.services };
    for (const job of options.features.flatMap((feature) => feature.jobs?.(jobs) ?? [])) await life.start(job);
    const listeners = await startListeners(life, runtime, config, options.port ?? config.server.port);
    // Stopped first: load balancers see /readyz turn 503 and stop sending; what they still send meanwhile is served.
    await life.start({ name: 'drain', stop: () => drain(runtime, logger) });
    const stopWatching = options.watch === false ? () => undefined : watchConfigFile(options.configPath, () => void reloads.reload(true));
    await life.start({ name: 'config watcher', stop: stopWatching });
    return Object.assign(listeners, { store: describeStoreUrl(config.store.url), runtime, reload: () => reloads.reload(), close: () => life.stop() });
  } catch (err) {
    await life.stop().catch(() => undefined);
    throw err;
  }
}

interface Storage {
  readonly journal: UsageJournal | undefined;
  readonly store: Store;
  readonly writer: UsageWriter;
  readonly leases: Leases;
}

/**
 * The store and the usage writer. A PostgreSQL store may be down: usage records then wait in a local journal (a
 * SQLite store is local already), opened first: an instance that would share another's journal stops before
 * touching anything.
 */
async function startStorage(life: Lifecycle, config: ResolvedConfig, options: StartOptions): Promise<Storage> {
  const { logger } = options;
  const journal = isPostgresUrl(config.store.url)
    ? await life.open('usage journal', () => new UsageJournal(journalPathFor(config, options.port ?? config.server.port)), (j) => j.close())
    : undefined;
  const store = await life.open('store', () => openStore(config.store.url, storePartsOf(options.features), { poolMax: config.store.poolMax }), (s) => s.close());
  if (journal !== undefined && journal.size > 0) {
    logger.warn({ records: journal.size, journal: journal.path }, 'writing the usage records an earlier run left in the journal');
  }
  const leases = new Leases(store.ledger, {
    holdTtlMs: config.pricing.reservationTimeoutMs,
    onError: (err) => logger.warn({ err }, 'renewing the balance held failed; retrying'),
  });
  // Stopped after the writer: once every charge is written, nothing this process holds is needed any more. Charges
  // left unwritten keep theirs (they expire after pricing.reservation_timeout_ms), so no balance is given back twice.
  const flush = { failed: false };
  await life.start({ name: 'balance holds', start: () => leases.start(), stop: () => (flush.failed ? keepHolds(leases, logger) : closeLeases(leases, logger)) });
  const writer = new UsageWriter(store, {
    flushIntervalMs: options.usageFlushMs ?? 200,
    onError: (err, pending) => logger.error({ err, pending }, 'writing usage records failed; they stay queued'),
    // A hold is kept (and renewed) until the charges drawn on it are written.
    onWritten: (records) => leases.written(records),
    journal,
    journalMax: config.store.journalMaxRecords,
  });
  await life.start({
    name: 'usage writer',
    // Every accepted record written (or journaled); throws when some could not be.
    stop: async () => {
      await writer.close().catch((err: unknown) => {
        flush.failed = true;
        throw err;
      });
      if (journal !== undefined && writer.pending > 0) {
        logger.warn({ records: writer.pending, journal: journal.path }, 'the store does not answer: usage records wait in the journal for the next start');
      }
    },
  });
  return { journal, store, writer, leases };
}

/** Limits, bindings and cool-downs shared through Redis, when configured; loaded only then (docs/performance.md). */
async function startShared(life: Lifecycle, config: ResolvedConfig, deps: SharedStateOptions): Promise<SharedState | null> {
  if (config.redis === null) return null;
  const { startSharedState } = await import('./shared/shared-state.js');
  const shared = await life.open('redis', () => startSharedState(config.redis as NonNullable<typeof config.redis>, deps), (s) => s.close());
  // A Redis that answers at start is used from the first request; one that does not is not waited for long.
  const ready = await shared.redis.ready(REDIS_START_WAIT_MS);
  // Shown as a store URL is: its password and secret-bearing parameters masked.
  const redis = describeStoreUrl(config.redis.url);
  if (ready) deps.logger.info({ redis }, 'rate limits, conversation affinity and channel cool-downs are shared through Redis');
  else deps.logger.warn({ redis }, `Redis does not answer yet: limited keys are served as redis.on_failure says until it does`);
  await life.open('shared affinity', () => shared.affinity, (a) => a.close());
  return shared;
}

/** Usage records were left unwritten: their holds stay until they expire, so the balance they hold is not spent twice. */
function keepHolds(leases: Leases, logger: Logger): void {
  leases.abandon();
  logger.warn('usage records were left unwritten: the balance held for them is kept until pricing.reservation_timeout_ms');
}

/** Gives back every hold of this process. */
async function closeLeases(leases: Leases, logger: Logger): Promise<void> {
  try {
    await leases.close();
  } catch (err) {
    // A store that is down (its records journaled) cannot take the holds back: they expire on their own.
    logger.warn({ err }, 'giving back the balance held failed; the holds expire after pricing.reservation_timeout_ms');
  }
}

interface Shared {
  readonly metrics: GatewayMetrics;
  readonly health: ChannelHealth;
  readonly rotation: ChannelRotation;
  readonly overrides: ChannelOverrides;
  readonly localAffinity: MemoryAffinityStore;
  readonly shared: SharedState | null;
  readonly disabledAccounts: DisabledAccounts;
  readonly reloads: ConfigReloads;
  readonly endpoints: EndpointRegistry;
}

/** What outlives a config load: the process's store, writer, shared state and the test's overrides. */
function runtimeDeps(options: StartOptions, storage: Storage, parts: Shared): RuntimeDeps {
  const { shared } = parts;
  return {
    store: storage.store,
    usage: storage.writer,
    writer: storage.writer,
    affinity: shared?.affinity ?? parts.localAffinity,
    health: parts.health,
    rotation: parts.rotation,
    overrides: parts.overrides,
    metrics: parts.metrics,
    logger: options.logger,
    factories: pluginsOf(options.factories, options.features),
    features: options.features,
    bodyPool: new BodyPool(),
    endpoints: parts.endpoints,
    mockImages: new MockImageFiles(),
    scanMemory: new ScanMemory(),
    leases: storage.leases,
    limiter: options.limiter ?? shared?.limiter ?? new MemoryLimiter(options.clock === undefined ? {} : { calendar: options.clock }),
    // One id for the process, whatever the reloads.
    instances: shared?.redis ?? new LocalInstances(`gw-${randomUUID()}`),
    disabledAccounts: parts.disabledAccounts,
    channelLoad: new ChannelLoad(),
    reload: () => parts.reloads.reload(),
    configSource: () => parts.reloads.source(),
    ...(options.resolveHost === undefined ? {} : { resolveHost: options.resolveHost }),
    ...(options.mockClock === undefined ? {} : { mockClock: options.mockClock }),
    ...(options.clock === undefined ? {} : { clock: options.clock }),
    ...(options.keyCacheClock === undefined ? {} : { keyCacheClock: options.keyCacheClock }),
    ...(options.passwordCost === undefined ? {} : { passwordCost: options.passwordCost }),
    ...(shared === null ? {} : { shared }),
  };
}

/** The API listener, then server.metrics_listen's and server.admin_listen's; each a service of its own. */
async function startListeners(life: Lifecycle, runtime: Runtime, config: ResolvedConfig, port: number): Promise<Pick<RunningGateway, 'url' | 'metricsUrl' | 'adminUrl' | 'port'>> {
  const { metricsListen, adminListen } = config.server;
  const metricsServer = metricsListen === null ? null : await life.open('metrics listener', () => listenForMetrics(runtime, metricsListen.host, metricsListen.port), closeServer);
  const adminServer = adminListen === null ? null : await life.open('admin listener', () => listenForAdmin(runtime, config.server, adminListen.host, adminListen.port), closeServer);
  const app = createHttpServer(runtime, config.server);
  // Many clients open at once (agents, streams); Node's default backlog of 511 resets them.
  await app.listen({ port, host: config.server.host, backlog: 4096 });
  await life.start({
    name: 'listener',
    // New requests get 503 and no new connection is taken; those in flight finish within the grace, or are ended.
    stop: async () => {
      runtime.beginShutdown();
      const closed = app.close();
      await runtime.drained(runtime.current.config.server.shutdownGraceMs);
      await closed;
    },
  });
  return {
    url: urlOf(config.server.host, (app.server.address() as AddressInfo).port),
    metricsUrl: metricsServer === null || metricsListen === null ? null : urlOf(metricsListen.host, (metricsServer.address() as AddressInfo).port),
    adminUrl: adminServer === null || adminListen === null ? null : urlOf(adminListen.host, (adminServer.address() as AddressInfo).port),
    port: (app.server.address() as AddressInfo).port,
  };
}

/** /readyz says 503, then server.drain_delay_ms passes before the listener stops taking requests. */
async function drain(runtime: Runtime, logger: Logger): Promise<void> {
  runtime.beginDrain();
  const delay = runtime.current.config.server.drainDelayMs;
  if (delay > 0) {
    logger.info({ delayMs: delay }, 'not ready any more: draining after the delay');
    await new Promise((resolve) => setTimeout(resolve, delay));
  }
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

function closeServer(server: Server): Promise<void> {
  server.closeIdleConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

/** How long the start waits for Redis to answer. */
const REDIS_START_WAIT_MS = 2000;
