// Plugins: a closed set of phases, factories that build a plugin once per config load.

import type { Chunks } from '../sse/pulled-body.js';
import type { ResolvedConfig } from '../config/resolved.js';
import type { GroupAccess } from '../keys/group-access.js';
import type { KeyRing } from '../keys/key-ring.js';
import type { DisabledAccounts } from '../keys/disabled-accounts.js';
import type { ChannelLoad } from '../routing/channel-load.js';
import type { Logger } from '../logging/logger.js';
import type { GatewayMetrics } from '../metrics/gateway-metrics.js';
import type { Provider } from '../providers/provider.js';
import type { ApiFormat, ChannelType } from '../config/resolved.js';
import type { WireCodec } from '../formats/codec.js';
import type { AffinityStore } from '../routing/affinity.js';
import type { ConsoleSignIn } from '../console/sign-in.js';
import type { Limiter } from '../limits/limiter.js';
import type { Instances } from '../shared/instances.js';
import type { Leases } from '../money/leases.js';
import type { ModelCatalog } from '../routing/model-catalog.js';
import type { Router } from '../routing/router.js';
import type { FrameSource } from '../sse/frame-batches.js';
import type { SseFrame } from '../sse/frame.js';
import type { Store, UsageRecord } from '../store/store.js';
import type { HostResolver } from '../http/public-url.js';
import type { RequestContext } from './context.js';
import type { Slot } from '../slot.js';

/** What the terminal relay hands back: a whole body, or a lazy stream of frames. */
export type RelayResult =
  | {
      readonly kind: 'body';
      readonly status: number;
      readonly headers: Readonly<Record<string, string>>;
      readonly body: Buffer;
    }
  | {
      readonly kind: 'stream';
      readonly status: number;
      readonly headers: Readonly<Record<string, string>>;
      /**
       * Lazy: one batch per upstream read, polled (frameBatches() makes it: sse/frame-batches.ts); each frame then
       * goes through the frame hooks.
       */
      readonly frames: FrameSource;
    }
  | {
      /**
       * A body that is neither JSON nor SSE (a file: an image, a clip), relayed as it arrives with backpressure, never
       * buffered whole; no frame hooks. If it breaks off, the client's connection is cut (a truncated file
       * cannot carry an error).
       */
      readonly kind: 'bytes';
      readonly status: number;
      readonly headers: Readonly<Record<string, string>>;
      readonly body: Chunks;
    };

/** The phases, in the order a request meets them. A plugin object with any other key fails at load. */
export const PHASES = ['head', 'request', 'relay', 'response', 'frame', 'finish'] as const;
export type Phase = (typeof PHASES)[number];

export interface Plugin {
  readonly name: string;
  /**
   * Config order, before the body is read: headers only (`ctx.request` is not readable yet). Throw a GatewayError
   * to answer at once; the body is then never read and the connection is closed, so a caller that may not use the
   * gateway (auth) costs it no more than its headers.
   */
  head?(ctx: RequestContext): void | Promise<void>;
  /** Config order, once the body is read, before the upstream call. Throw a GatewayError to answer with it. */
  request?(ctx: RequestContext): void | Promise<void>;
  /** Terminal: exactly one plugin of a route has it. Picks the channel and calls the upstream. */
  relay?(ctx: RequestContext): Promise<RelayResult>;
  /** Reverse order, once status and headers are known (before anything is written). */
  response?(ctx: RequestContext, result: RelayResult): void;
  /** Reverse order, synchronous, per stream frame: return the frame (or a replacement), or null to drop it. */
  frame?(ctx: RequestContext, frame: SseFrame): SseFrame | null;
  /** Config order, exactly once per request, also after errors and client aborts. Must not throw. */
  finish?(ctx: RequestContext): void;
}

/**
 * A route's own answer (a feature's route: endpoints/registry.ts): the terminal of its chain, after the middleware.
 * Throw a GatewayError to answer with it, in the route's format.
 */
export type RouteHandler = (ctx: RequestContext, services: GatewayServices) => Promise<RelayResult>;

/** Where usage records go (the batched writer); never blocks the request. */
export interface UsageSink {
  add(record: UsageRecord): void;
  /** True while the backlog is too large: new billable requests must be refused (backpressure, not loss). */
  readonly saturated: boolean;
}

/** What a plugin may use; everything belongs to one config load (one Gateway). */
export interface GatewayServices {
  readonly config: ResolvedConfig;
  readonly router: Router;
  readonly providers: ReadonlyMap<ChannelType, Provider>;
  /** The chat APIs' translation codecs, by API (the route registry's: core's and the features'). */
  readonly codecs: { codecOf(format: ApiFormat): WireCodec | undefined };
  readonly keys: KeyRing;
  readonly access: GroupAccess;
  readonly usage: UsageSink;
  /** Conversation bindings; shared across config loads (and, with a shared store, across instances). */
  readonly affinity: AffinityStore;
  readonly metrics: GatewayMetrics;
  readonly logger: Logger;
  /** Run-time keys and usage records (with the ledger, the console's tables and the features' parts). */
  readonly store: Store;
  /** The models the gateway serves, globs expanded over what the upstreams list (GET /v1/models). */
  readonly catalog: ModelCatalog;
  /** The balance this instance holds for requests in flight (money/leases.ts); shared across config loads. */
  readonly leases: Leases;
  /** Rate-limit state (limits/limiter.ts): this process's, or shared by the instances; kept across config loads. */
  readonly limiter: Limiter;
  /** The deployment's live instances (shared/instances.ts). */
  readonly instances: Instances;
  /** Signing in to the console (console/sign-in.ts). */
  readonly consoleSignIn: ConsoleSignIn;
  /** The accounts whose keys are refused (keys/disabled-accounts.ts); refresh() after disabling one. */
  readonly disabledAccounts: DisabledAccounts;
  /** Requests in flight per channel (routing/channel-load.ts): relay counts them, the console shows them. */
  readonly channelLoad: ChannelLoad;
  /** A feature's services of this config load (core/feature/feature.ts), by the slot it declares them under. */
  feature<T>(slot: Slot<T>): T;
  /** The same, or undefined when no feature of this gateway keeps services under the slot (an optional contract). */
  findFeature<T>(slot: Slot<T>): T | undefined;
  /** The clock the mock channel's stores read (a test's, moved by hand; the system's). */
  readonly mockClock: () => number;
  /** The calendar clock: which period a periodic budget's request counts in (core/money/spend-period.ts). */
  readonly clock: () => number;
  /** How a link's host is resolved (http/public-url.ts), to refuse internal addresses before anything is sent. */
  readonly resolveHost: HostResolver;
  /** The running process's config file: reload it, read it (null when the gateway was not started from a file). */
  readonly control: {
    readonly reload: (() => Promise<boolean>) | null;
    readonly source: (() => { readonly file: string; readonly text: string }) | null;
  };
}

/** A slot a plugin provides or reads, and the phase it does so in. */
export interface SlotUse {
  readonly slot: Slot<unknown>;
  readonly phase: Phase;
}

/**
 * A plugin's factory. `Options` is its `with:` block's type, generated from schemas/plugins/<name>.schema.json
 * into plugins/<name>/options.gen.ts (`npm run gen`): the chain builder checks the block against that schema
 * (defaults filled in) before `create` gets it. A plugin keeps per-request state in a WeakMap of the context
 * (meter does), and hands other plugins what they read through slots (request-slots.ts), so no plugin needs a field
 * of its own in core's RequestContext.
 */
export interface PluginFactory<Options = Readonly<Record<string, unknown>>, Uses extends keyof GatewayServices = keyof GatewayServices> {
  /** The `use:` value and the folder name; its `with:` block is checked against schemas/plugins/<name>.schema.json. */
  readonly name: string;
  /**
   * The context slots it puts a value in, and in which phase (request-slots.ts): what later steps read of it.
   */
  readonly provides?: readonly SlotUse[];
  /** The slots it cannot work without, and the phase it reads each in: a route without a provider is refused. */
  readonly requires?: readonly SlotUse[];
  /** The slots it reads when a plugin of the route provides them (each provider must come earlier). */
  readonly reads?: readonly SlotUse[];
  /** The services it uses: `create` is handed these and no others (what a plugin depends on is written here). */
  readonly uses: readonly Uses[];
  create(options: Readonly<Options>, services: Pick<GatewayServices, Uses>): Plugin;
}
