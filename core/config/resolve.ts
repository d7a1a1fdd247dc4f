// Turns schema-valid config data into ResolvedConfig: camelCase, defaults filled, model lists split, store path absolute.

import { dirname, resolve } from 'node:path';
import type { ValidDocument } from './section.js';
import type { EndpointRegistry } from '../endpoints/registry.js';
import { resolveStoreUrl } from '../store/store-url.js';
import { parseMoney } from '../money/decimal.js';
import { dailyTokens } from '../limits/daily-tokens.js';
import { AFFINITY_DEFAULTS, CHANNEL_DEFAULTS, HEALTH_DEFAULTS, LOG_DEFAULTS, MOCK_DEFAULTS, SERVER_DEFAULTS, STORE_DEFAULT_URL, STORE_DEFAULTS } from './defaults.js';
import { resolvePricing } from './resolve-pricing.js';
import { defaultRoutesExcept } from './default-routes.js';
import type { Channel, GatewayConfig, GroupLimits, Health, Limits, ModelList, Route } from './gateway.gen.js';
import type {
  ConfigPath,
  DailyTokens,
  ResolvedChannel,
  ResolvedConfig,
  ResolvedGroup,
  ResolvedHealth,
  ResolvedLimits,
  ResolvedModelLimits,
  ResolvedModels,
  ResolvedRoute,
} from './resolved.js';

export function resolveConfig(
  raw: GatewayConfig,
  file: string | null,
  locate: (path: ConfigPath) => string,
  endpoints: EndpointRegistry,
): ResolvedConfig {
  const server = raw.server ?? {};
  const written = (raw.routes ?? []).map(resolveRoute);
  const configDir = file === null ? process.cwd() : dirname(file);
  return {
    file,
    server: {
      port: server.port ?? SERVER_DEFAULTS.port,
      host: server.host ?? SERVER_DEFAULTS.host,
      bodyLimit: server.body_limit ?? SERVER_DEFAULTS.bodyLimit,
      adminToken: server.admin_token ?? SERVER_DEFAULTS.adminToken,
      shutdownGraceMs: server.shutdown_grace_ms ?? SERVER_DEFAULTS.shutdownGraceMs,
      drainDelayMs: server.drain_delay_ms ?? SERVER_DEFAULTS.drainDelayMs,
      bodyTimeoutMs: server.body_timeout_ms ?? SERVER_DEFAULTS.bodyTimeoutMs,
      headerTimeoutMs: server.header_timeout_ms ?? SERVER_DEFAULTS.headerTimeoutMs,
      maxInflightBodyBytes: server.max_inflight_body_bytes ?? SERVER_DEFAULTS.maxInflightBodyBytes,
      maxAnswerBytes: server.max_answer_bytes ?? SERVER_DEFAULTS.maxAnswerBytes,
      overheadHeader: server.overhead_header ?? SERVER_DEFAULTS.overheadHeader,
      metricsToken: server.metrics_token ?? SERVER_DEFAULTS.metricsToken,
      metricsListen: server.metrics_listen === undefined ? SERVER_DEFAULTS.metricsListen : hostAndPort(server.metrics_listen),
      adminListen: server.admin_listen === undefined ? SERVER_DEFAULTS.adminListen : hostAndPort(server.admin_listen),
      trustedProxies: server.trusted_proxies ?? SERVER_DEFAULTS.trustedProxies,
    },
    // Against the config file's folder, not the working directory: the server and a `gateway keys` run from
    // elsewhere must open the same database. Text without a file has only the working directory.
    store: {
      url: resolveStoreUrl(raw.store?.url ?? STORE_DEFAULT_URL, configDir),
      poolMax: raw.store?.pool_max ?? STORE_DEFAULTS.poolMax,
      journalPath: raw.store?.journal_path === undefined ? null : resolve(configDir, raw.store.journal_path),
      journalMaxRecords: raw.store?.journal_max_records ?? STORE_DEFAULTS.journalMaxRecords,
    },
    redis:
      raw.redis === undefined
        ? null
        : { url: raw.redis.url, prefix: raw.redis.prefix ?? 'gateway:', onFailure: raw.redis.on_failure ?? 'open', timeoutMs: raw.redis.timeout_ms ?? 100 },
    channels: raw.channels.map((channel) => resolveChannel(channel, endpoints, raw.health)),
    groups: new Map(
      definedEntries(raw.groups ?? {}).map(([name, group]): [string, ResolvedGroup] => [
        name,
        { name, models: [...group.models], limits: limitsOf(group.limits), modelLimits: modelLimitsOf(group.limits) },
      ]),
    ),
    keys: (raw.keys ?? []).map((k) =>
      Object.assign(
        { name: k.name, key: k.key, group: k.group },
        k.account === undefined ? {} : { account: k.account },
        k.max_spend === undefined
          ? {}
          : typeof k.max_spend === 'object'
            ? { maxSpend: parseMoney(k.max_spend.amount), spendPeriod: { unit: k.max_spend.period, timezone: k.max_spend.timezone ?? 'UTC' } }
            : { maxSpend: parseMoney(k.max_spend) },
        k.limits === undefined ? {} : { limits: limitsOf(k.limits) },
      ),
    ),
    accounts: (raw.accounts ?? []).map((a) =>
      Object.assign(
        { name: a.name, description: a.description ?? null, groups: a.groups ?? [] },
        a.limits === undefined ? {} : { limits: limitsOf(a.limits) },
        a.max_spend === undefined
          ? {}
          : {
              spendCap:
                typeof a.max_spend === 'object'
                  ? { maxSpend: parseMoney(a.max_spend.amount), spendPeriod: { unit: a.max_spend.period, timezone: a.max_spend.timezone ?? 'UTC' } }
                  : { maxSpend: parseMoney(a.max_spend) },
            },
      ),
    ),
    pricing: resolvePricing(raw),
    routes: [...written, ...defaultRoutesExcept(new Set(written.map((r) => r.path)), endpoints)],
    affinity: {
      ttlMs: raw.affinity?.ttl_ms ?? AFFINITY_DEFAULTS.ttlMs,
      maxEntries: raw.affinity?.max_entries ?? AFFINITY_DEFAULTS.maxEntries,
    },
    usageRetentionDays: raw.usage?.retention_days ?? null,
    // Each feature's keys, resolved by the feature (section.ts).
    sections: new Map(endpoints.sections.map((section) => [section.slot, section.resolve(raw as unknown as ValidDocument)])),
    log: {
      level: raw.log?.level ?? LOG_DEFAULTS.level,
      access: raw.log?.access ?? LOG_DEFAULTS.access,
    },
    locate,
  };
}

function resolveChannel(channel: Channel, endpoints: EndpointRegistry, health: Health | undefined): ResolvedChannel {
  const formats = channel.formats ?? endpoints.nativeFormats(channel.type);
  return {
    name: channel.name,
    type: channel.type,
    formats,
    dialect: formats.find((format) => endpoints.codecOf(format) !== undefined) ?? null,
    dropParams: [...(channel.drop_params ?? [])],
    // The schema requires base_url for the types that call out; a mock never calls out, whatever the file says.
    baseUrl: channel.type === 'mock' || channel.base_url === undefined ? null : channel.base_url.replace(/\/+$/, ''),
    keys: [...(channel.keys ?? [])],
    models: resolveModels(channel.models),
    priority: channel.priority ?? CHANNEL_DEFAULTS.priority,
    weight: channel.weight ?? CHANNEL_DEFAULTS.weight,
    timeoutMs: channel.timeout_ms ?? CHANNEL_DEFAULTS.timeoutMs,
    idleTimeoutMs: channel.idle_timeout_ms ?? CHANNEL_DEFAULTS.idleTimeoutMs,
    cooldownMs: channel.cooldown_ms ?? CHANNEL_DEFAULTS.cooldownMs,
    health: healthOf(channel.health, health),
    modelsRefreshMs: channel.models_refresh_ms ?? CHANNEL_DEFAULTS.modelsRefreshMs,
    headers: Object.fromEntries(definedEntries(channel.headers ?? {})),
    mock: {
      chunkDelayMs: channel.mock?.chunk_delay_ms ?? MOCK_DEFAULTS.chunkDelayMs,
      reply: channel.mock?.reply ?? MOCK_DEFAULTS.reply,
    },
  };
}

/** The channel's own values, else the top-level ones, else the defaults; the cap never below the first wait. */
function healthOf(own: Health | undefined, fleet: Health | undefined): ResolvedHealth {
  const probeAfterMs = own?.probe_after_ms ?? fleet?.probe_after_ms ?? HEALTH_DEFAULTS.probeAfterMs;
  return {
    errors: own?.errors ?? fleet?.errors ?? HEALTH_DEFAULTS.errors,
    window: own?.window ?? fleet?.window ?? HEALTH_DEFAULTS.window,
    probeAfterMs,
    probeMaxMs: Math.max(probeAfterMs, own?.probe_max_ms ?? fleet?.probe_max_ms ?? HEALTH_DEFAULTS.probeMaxMs),
  };
}

// A list serves names as written (globs allowed); a map renames client names to upstream ones.
function resolveModels(models: ModelList): ResolvedModels {
  if (Array.isArray(models)) return { patterns: [...models], aliases: new Map() };
  return { patterns: [], aliases: new Map(definedEntries(models)) };
}

function resolveRoute(route: Route, i: number): ResolvedRoute {
  return {
    path: route.path,
    plugins: route.plugins.map((plugin, j) => ({
      use: plugin.use,
      with: plugin.with ?? {},
      path: ['routes', i, 'plugins', j],
    })),
    at: ['routes', i],
  };
}

/** `127.0.0.1:9090` or `[::1]:9090` (the schema checked the form). */
function hostAndPort(text: string): { host: string; port: number } {
  const at = text.lastIndexOf(':');
  return { host: text.slice(0, at).replace(/^\[(.*)\]$/, '$1'), port: Number(text.slice(at + 1)) };
}

// Generated index signatures allow undefined (strictIndexSignatures); parsed YAML never has it.
function definedEntries<T>(record: Readonly<Record<string, T | undefined>>): [string, T][] {
  return Object.entries(record).flatMap(([k, v]): [string, T][] => (v === undefined ? [] : [[k, v]]));
}

/** The limits given (absent ones are no limit). */
function limitsOf(limits: Limits | GroupLimits | undefined): ResolvedLimits {
  const resolved: { rpm?: number; tpm?: number; concurrency?: number; tpd?: DailyTokens } = {};
  if (limits?.rpm !== undefined) resolved.rpm = limits.rpm;
  if (limits?.tpm !== undefined) resolved.tpm = limits.tpm;
  if (limits?.concurrency !== undefined) resolved.concurrency = limits.concurrency;
  const daily = limits?.tokens_per_day;
  if (daily !== undefined) resolved.tpd = typeof daily === 'number' ? dailyTokens(daily, undefined) : dailyTokens(daily.tokens, daily.timezone, daily.period);
  return resolved;
}

function modelLimitsOf(limits: GroupLimits | undefined): ResolvedModelLimits[] {
  return definedEntries(limits?.models ?? {}).map(([pattern, l]) => ({ pattern, limits: limitsOf(l) }));
}
