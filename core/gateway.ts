// One immutable Gateway per config load: routes, chains, router, keys, upstream pools, the model catalog. Reloads
// swap the whole object.

import type { ChannelType, ResolvedChannel, ResolvedConfig } from './config/resolved.js';
import { routeKeyOf, type EndpointRegistry } from './endpoints/registry.js';
import type { ClientFormat } from './formats/format.js';
import { ScanMemory } from './formats/scan-memory.js';
import { Leases } from './money/leases.js';
import type { Limiter } from './limits/limiter.js';
import { MemoryLimiter } from './limits/memory-limiter.js';
import { LocalInstances, type Instances } from './shared/instances.js';
import { randomUUID } from 'node:crypto';
import { GroupAccess } from './keys/group-access.js';
import { KeyRing } from './keys/key-ring.js';
import { DisabledAccounts } from './keys/disabled-accounts.js';
import { ChannelLoad } from './routing/channel-load.js';
import type { Logger } from './logging/logger.js';
import type { GatewayMetrics } from './metrics/gateway-metrics.js';
import { buildChains } from './pipeline/build.js';
import type { Chain } from './pipeline/chain.js';
import type { GatewayServices, PluginFactory, UsageSink } from './pipeline/plugin.js';
import { createProviders, type Provider } from './providers/index.js';
import type { Feature, FeatureServices } from './feature/feature.js';
import type { Slot } from './slot.js';
import { REQUEST_TRACER, type RequestTracer } from './pipeline/tracing.js';
import { MockImageFiles } from './providers/mock/image-files.js';
import type { AffinityStore } from './routing/affinity.js';
import { ModelCatalog, type ModelLister } from './routing/model-catalog.js';
import type { ChannelHealth } from './routing/health.js';
import type { ChannelRotation } from './routing/rotation.js';
import type { ChannelOverrides } from './routing/overrides.js';
import { Router } from './routing/router.js';
import type { PasswordCost } from './console/password.js';
import { ConsoleSignIn } from './console/sign-in.js';
import { AddressList } from './keys/address-list.js';
import type { Store } from './store/store.js';
import { systemResolver, type HostResolver } from './http/public-url.js';

/** What outlives a config load: the process's store, usage writer, affinity bindings, metrics and log. */
export interface GatewayDeps {
  readonly store: Store;
  readonly affinity: AffinityStore;
  readonly usage: UsageSink;
  readonly metrics: GatewayMetrics;
  readonly logger: Logger;
  readonly factories: ReadonlyMap<string, PluginFactory>;
  /** The endpoints the chains serve (endpoints/registry.ts). */
  readonly endpoints: EndpointRegistry;
  /** The features whose services each config load makes (features/index.ts); none without. */
  readonly features?: readonly Feature[];
  /** The images the mock channel hands out as URLs, kept across reloads; a gateway of its own without. */
  readonly mockImages?: MockImageFiles;
  /** What reading large request bodies reuses (formats/scan-memory.ts), kept across reloads; a gateway of its own without. */
  readonly scanMemory?: ScanMemory;
  /** The balance this process holds (money/leases.ts), kept across reloads; a gateway of its own without. */
  readonly leases?: Leases;
  /** Rate-limit state (limits/limiter.ts), kept across reloads; a gateway of its own without. */
  readonly limiter?: Limiter;
  /** The deployment's instances (Redis's heartbeats); this one alone without. */
  readonly instances?: Instances;
  /** Channel cool-downs, kept across reloads (and shared through Redis); a gateway of its own without. */
  readonly health?: ChannelHealth;
  /** Channel rotation (out after too many failures), kept across reloads (and shared through Redis); a gateway of its own without. */
  readonly rotation?: ChannelRotation;
  /** The operator's run-time channel overrides, kept across reloads (a feature sets them); a gateway of its own without. */
  readonly overrides?: ChannelOverrides;
  /** Requests in flight per channel, kept across reloads; a gateway of its own without. */
  readonly channelLoad?: ChannelLoad;
  /** The accounts whose keys are refused, kept across reloads; none without. */
  readonly disabledAccounts?: DisabledAccounts;
  /** Reads the config file again and applies it (the console's reload button); absent: no file to reload. */
  readonly reload?: () => Promise<boolean>;
  /** How links' host names are resolved before an upstream fetches them (tests resolve without DNS); the system's without. */
  readonly resolveHost?: HostResolver;
  /** The clock the mock channel's stores read (a test's, moved by hand); the system's without. */
  readonly mockClock?: () => number;
  /** The calendar clock periodic budgets read (a test's, moved past midnight by hand); the system's without. */
  readonly clock?: () => number;
  /** The clock the key lookup cache's 5 s are counted on (a test's, moved by hand); performance.now without. */
  readonly keyCacheClock?: () => number;
  /** scrypt's cost for console passwords (tests that sign in by the hundred set a small one); PASSWORD_COST without. */
  readonly passwordCost?: PasswordCost;
  /** The config file's path and text as loaded (the console shows it, redacted); absent: none. */
  readonly configSource?: () => { readonly file: string; readonly text: string };
}

export class Gateway {
  readonly services: GatewayServices;
  readonly chains: ReadonlyMap<string, Chain>;
  /** The format of each endpoint, by route key, also for answering errors before a chain runs. */
  readonly formats: ReadonlyMap<string, ClientFormat>;
  readonly endpoints: EndpointRegistry;
  /** server.trusted_proxies, compiled once per load (null: none, the TCP peer is the client). */
  readonly trustedProxies: AddressList | null;
  /** GET /v1/models: the configured models, globs expanded over what the upstreams list (startDiscovery). */
  readonly catalog: ModelCatalog;
  /** Makes each request's trace when a feature traces them (pipeline/tracing.ts); null: no request is traced. */
  readonly tracer: RequestTracer | null;
  /** The features' services of this load, closed with its upstream pools. */
  readonly #owned: [FeatureServices<unknown>, unknown][] = [];
  private inFlight = 0;
  private retiring: (() => void) | null = null;

  constructor(
    readonly config: ResolvedConfig,
    deps: GatewayDeps,
  ) {
    this.endpoints = deps.endpoints;
    this.trustedProxies = config.server.trustedProxies.length === 0 ? null : new AddressList(config.server.trustedProxies);
    const memory = deps.scanMemory ?? new ScanMemory();
    this.formats = new Map(deps.endpoints.all.map((endpoint) => [routeKeyOf(endpoint), endpoint.createFormat(memory)]));
    const providers = createProviders(deps.mockImages ?? new MockImageFiles(), deps.endpoints);
    this.catalog = new ModelCatalog(config.channels, modelListerFor(providers), deps.logger);
    const limiter = deps.limiter ?? new MemoryLimiter();
    // Without a long-lived one (a gateway of its own), read when an account is disabled through it (refresh()).
    const disabledAccounts = deps.disabledAccounts ?? new DisabledAccounts(() => deps.store.ledger.disabledAccounts());
    const router = new Router(config.channels, { health: deps.health, rotation: deps.rotation, overrides: deps.overrides });
    // Each feature's services of this load, made once core's are (they may use them), by the slot each names.
    const owned = new Map<Slot<unknown>, unknown>();
    this.services = {
      config,
      router,
      providers,
      codecs: deps.endpoints,
      keys: new KeyRing(config.keys, deps.store, deps.keyCacheClock === undefined ? { disabledAccounts, accounts: config.accounts } : { disabledAccounts, accounts: config.accounts, cacheClock: deps.keyCacheClock }),
      disabledAccounts,
      channelLoad: deps.channelLoad ?? new ChannelLoad(),
      access: new GroupAccess(config.groups),
      usage: deps.usage,
      affinity: deps.affinity,
      metrics: deps.metrics,
      logger: deps.logger,
      store: deps.store,
      catalog: this.catalog,
      leases: deps.leases ?? new Leases(deps.store.ledger, { holdTtlMs: config.pricing.reservationTimeoutMs }),
      limiter,
      instances: deps.instances ?? new LocalInstances(`gw-${randomUUID()}`),
      consoleSignIn: new ConsoleSignIn({ store: deps.store.console, limiter, adminToken: () => config.server.adminToken, ...(deps.passwordCost === undefined ? {} : { passwordCost: deps.passwordCost }) }),
      control: { reload: deps.reload ?? null, source: deps.configSource ?? null },
      mockClock: deps.mockClock ?? Date.now,
      clock: deps.clock ?? Date.now,
      resolveHost: deps.resolveHost ?? systemResolver,
      feature: <T>(slot: Slot<T>): T => {
        if (!owned.has(slot)) throw new Error(`no feature of this gateway keeps services under "${slot.name}"`);
        return owned.get(slot) as T;
      },
      findFeature: <T>(slot: Slot<T>): T | undefined => owned.get(slot) as T | undefined,
    };
    for (const services of (deps.features ?? []).flatMap((feature) => feature.services ?? [])) {
      const made = services.create(this.services);
      owned.set(services.slot, made);
      this.#owned.push([services, made]);
    }
    this.tracer = (owned.get(REQUEST_TRACER) as RequestTracer | null | undefined) ?? null;
    this.chains = buildChains(config, deps.factories, this.formats, this.services, deps.endpoints);
  }

  /** Counts a request in; a retired Gateway closes its upstream pools only when the count drops to zero. */
  enter(): void {
    this.inFlight++;
  }

  leave(): void {
    this.inFlight--;
    if (this.inFlight === 0 && this.retiring !== null) this.retiring();
  }

  /**
   * Starts reading the upstreams' model lists in the background (never in the constructor: building a Gateway
   * does no I/O); `previous`, the config this one replaces, lends its lists of unchanged channels meanwhile.
   */
  startDiscovery(previous?: Gateway): void {
    if (previous !== undefined) this.catalog.seedFrom(previous.catalog);
    this.catalog.start();
  }

  /** Called when a newer config took over: waits for this load's requests, then closes its connections. */
  async retire(): Promise<void> {
    // At once, not after the requests: the list is the new config's now, and a read in progress would hold a pool open.
    this.catalog.stop();
    if (this.inFlight > 0) await new Promise<void>((resolve) => (this.retiring = resolve));
    await Promise.all(
      [...this.services.providers.values()]
        .map((p) => p.close())
        .concat([...this.#owned].map(([feature, services]) => feature.close(services))),
    );
  }
}

/** A channel lists its upstream's models through its type's provider, with its first key (no rotation needed). */
function modelListerFor(providers: ReadonlyMap<ChannelType, Provider>): (channel: ResolvedChannel) => ModelLister | undefined {
  return (channel) => {
    const provider = providers.get(channel.type);
    const list = provider?.listModels;
    if (provider === undefined || list === undefined) return undefined;
    return (target, signal) => list.call(provider, target, target.keys[0] ?? '', signal);
  };
}
