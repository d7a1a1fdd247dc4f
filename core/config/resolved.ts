// The validated, defaulted config the rest of the gateway reads; built once per load, never mutated.

import type { Slot } from '../slot.js';
import type { Pricing } from '../money/pricing.js';
import type { ApiFormat, ChannelType } from './gateway.gen.js';

/** ApiFormat: what a client speaks on a route, and what a channel's upstream speaks natively. */
export type { ApiFormat, ChannelType };

/**
 * A chat API: one whose wire declares a translation codec (core's three, formats/codecs.ts, and a feature's, such as
 * Gemini's), so a request in one can be served by a channel of another. The registry says which are
 * (`EndpointRegistry.codecOf`).
 */
export type WireFormat = ApiFormat;

/** A YAML path such as ['channels', 2, 'base_url']. */
export type ConfigPath = readonly (string | number)[];

export interface ResolvedServer {
  readonly port: number;
  readonly host: string;
  readonly bodyLimit: number;
  readonly adminToken: string | null;
  readonly shutdownGraceMs: number;
  /** On SIGTERM, how long /readyz says 503 while requests are still served, before the drain. */
  readonly drainDelayMs: number;
  readonly bodyTimeoutMs: number;
  readonly headerTimeoutMs: number;
  readonly maxInflightBodyBytes: number;
  /** server.max_answer_bytes: the most of an upstream answer read whole. */
  readonly maxAnswerBytes: number;
  /** server.overhead_header: answers an upstream took part in carry x-gateway-overhead-ms. */
  readonly overheadHeader: boolean;
  /** GET /metrics requires it as a Bearer token when set. */
  readonly metricsToken: string | null;
  /** A separate listener for /metrics, or null to serve it on the main port. */
  readonly metricsListen: { readonly host: string; readonly port: number } | null;
  /** A separate listener for the admin API (/admin/*, then off the main port), or null to serve it on the main port. */
  readonly adminListen: { readonly host: string; readonly port: number } | null;
  /** Proxies whose X-Forwarded-For names the client (addresses or CIDRs). */
  readonly trustedProxies: readonly string[];
}

export interface ResolvedLog {
  /** null: LOG_LEVEL, else info. */
  readonly level: string | null;
  readonly access: boolean;
}

export interface ResolvedModels {
  /** Client-visible names or globs served under their own name. */
  readonly patterns: readonly string[];
  /** Client-visible name -> upstream name. */
  readonly aliases: ReadonlyMap<string, string>;
}

export interface ResolvedMock {
  readonly chunkDelayMs: number;
  readonly reply: string | null;
}

export interface ResolvedChannel {
  readonly name: string;
  readonly type: ChannelType;
  /** The client formats this channel serves natively (bytes pass through); `formats`, else by its type. */
  readonly formats: readonly ApiFormat[];
  /**
   * The chat API a request of another chat API is translated into for this channel: the first of its formats that
   * has a codec; null when it speaks none (it serves its APIs natively only).
   */
  readonly dialect: WireFormat | null;
  /** Top-level request fields removed before the upstream call. */
  readonly dropParams: readonly string[];
  /** Without a trailing slash; null for the mock type. */
  readonly baseUrl: string | null;
  readonly keys: readonly string[];
  readonly models: ResolvedModels;
  readonly priority: number;
  readonly weight: number;
  readonly timeoutMs: number;
  readonly idleTimeoutMs: number;
  readonly cooldownMs: number;
  /** When it is taken out of rotation, and probed back in (routing/rotation.ts). */
  readonly health: ResolvedHealth;
  /** How often the upstream's model list is read to expand the globs in /v1/models; 0: never. */
  readonly modelsRefreshMs: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly mock: ResolvedMock;
}

/** A channel's health rule: `errors` failures in its last `window` requests take it out until a probe succeeds. */
export interface ResolvedHealth {
  readonly errors: number;
  readonly window: number;
  /** The wait before the first probe; each failed probe doubles it, up to probeMaxMs. */
  readonly probeAfterMs: number;
  readonly probeMaxMs: number;
}

export interface ResolvedAffinity {
  /** 0: affinity is off. */
  readonly ttlMs: number;
  readonly maxEntries: number;
}

/** Rate limits (core/limits): each absent is no limit. */
export interface ResolvedLimits {
  readonly rpm?: number;
  readonly tpm?: number;
  readonly concurrency?: number;
  /** Tokens per calendar day (limits.tokens_per_day). */
  readonly tpd?: DailyTokens;
}

/** A token cap per calendar period (tokens_per_day: a day unless it says week or month); the period object is the calendar's cache key. */
export interface DailyTokens {
  readonly tokens: number;
  readonly period: SpendPeriod;
}

/** A group's limits on the models a glob matches. */
export interface ResolvedModelLimits {
  readonly pattern: string;
  readonly limits: ResolvedLimits;
}

export interface ResolvedGroup {
  readonly name: string;
  readonly models: readonly string[];
  /** Each key's limits (a key's own override them, value by value). */
  readonly limits: ResolvedLimits;
  /** Each key's limits on some models, first match wins, on top of the others. */
  readonly modelLimits: readonly ResolvedModelLimits[];
}

/** A calendar period a cap resets each of (core/money/spend-period.ts computes its bounds). */
export interface SpendPeriod {
  readonly unit: 'day' | 'week' | 'month';
  /** An IANA name; 'UTC' without one. */
  readonly timezone: string;
}

export interface ResolvedDeclaredKey {
  readonly name: string;
  readonly key: string;
  readonly group: string;
  /** The account that pays (the key is metered); none: unmetered, never refused for money. */
  readonly account?: string;
  /** Most the key may spend in all (or per spendPeriod), in nano-units; none: no cap. */
  readonly maxSpend?: bigint;
  /** The calendar period maxSpend is per; none: maxSpend is a lifetime cap. */
  readonly spendPeriod?: SpendPeriod;
  /** Its own limits, over its group's. */
  readonly limits?: ResolvedLimits;
}

/** A cap on spend: in all, or per calendar period (a key's own, or an account's over all its keys). */
export interface SpendCap {
  /** Nano-units. */
  readonly maxSpend: bigint;
  /** None: a lifetime cap. */
  readonly spendPeriod?: SpendPeriod;
}

export interface ResolvedAccount {
  readonly name: string;
  readonly description: string | null;
  /** Most all its keys together may spend (max_spend); none: no cap. */
  readonly spendCap?: SpendCap;
  /** Limits of all its keys together. */
  readonly limits?: ResolvedLimits;
  /** The groups its console users may create keys in (none: only the operator makes its keys). */
  readonly groups: readonly string[];
}

export interface ResolvedRedis {
  readonly url: string;
  /** Every key the gateway writes starts with it. */
  readonly prefix: string;
  /** While Redis is unreachable: `open` admits under per-instance limits, `closed` answers 503. */
  readonly onFailure: 'open' | 'closed';
  /** The longest a request waits on Redis before `onFailure` applies, ms. */
  readonly timeoutMs: number;
}

export interface ResolvedStore {
  /** A sqlite path is absolute (a relative one resolved against the file's folder, else the working directory). */
  readonly url: string;
  /** PostgreSQL's pool size. */
  readonly poolMax: number;
  /** store.journal_path made absolute; null: the default, named for the port (serve.ts, journalPathFor). */
  readonly journalPath: string | null;
  readonly journalMaxRecords: number;
}

export interface ResolvedPluginUse {
  readonly use: string;
  readonly with: Readonly<Record<string, unknown>>;
  /** Where it was written, for errors: `routes[0].plugins[1]`, or `(default)` for built-in chains. */
  readonly path: ConfigPath;
}

export interface ResolvedRoute {
  readonly path: string;
  readonly plugins: readonly ResolvedPluginUse[];
  readonly at: ConfigPath;
}

export interface ResolvedConfig {
  /** Absolute path of the file, or null when built from a string. */
  readonly file: string | null;
  readonly server: ResolvedServer;
  readonly store: ResolvedStore;
  /** Shared state for several instances; null: everything in this process. */
  readonly redis: ResolvedRedis | null;
  readonly channels: readonly ResolvedChannel[];
  readonly groups: ReadonlyMap<string, ResolvedGroup>;
  readonly keys: readonly ResolvedDeclaredKey[];
  /** Accounts the file declares (created in the store at start; more may be created at run time). */
  readonly accounts: readonly ResolvedAccount[];
  readonly pricing: Pricing;
  readonly routes: readonly ResolvedRoute[];
  readonly affinity: ResolvedAffinity;
  /** The features' settings, each under its section's slot (section.ts: sectionOf). */
  readonly sections: ReadonlyMap<Slot<unknown>, unknown>;
  /** usage.retention_days; null: records are kept. */
  readonly usageRetentionDays: number | null;
  readonly log: ResolvedLog;
  /** `channels[2].base_url (gateway.yaml:14)`: names a config path and its line, for later-stage errors. */
  locate(path: ConfigPath): string;
}

/** Raised for any invalid config; `issues` holds one line per problem, each naming path and line. */
export class ConfigError extends Error {
  readonly issues: readonly string[];
  constructor(issues: readonly string[]) {
    super(`invalid config:\n  ${issues.join('\n  ')}`);
    this.name = 'ConfigError';
    this.issues = issues;
  }
}
