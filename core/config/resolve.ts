// Turns schema-valid config data into ResolvedConfig: camelCase, defaults filled, model lists split.

import { AFFINITY_DEFAULTS, CHANNEL_DEFAULTS, MOCK_DEFAULTS, NATIVE_FORMATS, SERVER_DEFAULTS, STORE_DEFAULT_URL } from './defaults.js';
import { defaultRoutesExcept } from './default-routes.js';
import type { Channel, GatewayConfig, ModelList, Route } from './gateway.gen.js';
import type {
  ConfigPath,
  ResolvedChannel,
  ResolvedConfig,
  ResolvedGroup,
  ResolvedModels,
  ResolvedRoute,
} from './resolved.js';

export function resolveConfig(
  raw: GatewayConfig,
  file: string | null,
  locate: (path: ConfigPath) => string,
): ResolvedConfig {
  const server = raw.server ?? {};
  const written = (raw.routes ?? []).map(resolveRoute);
  return {
    file,
    server: {
      port: server.port ?? SERVER_DEFAULTS.port,
      host: server.host ?? SERVER_DEFAULTS.host,
      bodyLimit: server.body_limit ?? SERVER_DEFAULTS.bodyLimit,
      adminToken: server.admin_token ?? SERVER_DEFAULTS.adminToken,
      shutdownGraceMs: server.shutdown_grace_ms ?? SERVER_DEFAULTS.shutdownGraceMs,
    },
    store: { url: raw.store?.url ?? STORE_DEFAULT_URL },
    channels: raw.channels.map(resolveChannel),
    groups: new Map(
      definedEntries(raw.groups ?? {}).map(([name, group]): [string, ResolvedGroup] => [
        name,
        { name, models: [...group.models] },
      ]),
    ),
    keys: (raw.keys ?? []).map((k) => ({ name: k.name, key: k.key, group: k.group })),
    routes: [...written, ...defaultRoutesExcept(new Set(written.map((r) => r.path)))],
    affinity: {
      ttlMs: raw.affinity?.ttl_ms ?? AFFINITY_DEFAULTS.ttlMs,
      maxEntries: raw.affinity?.max_entries ?? AFFINITY_DEFAULTS.maxEntries,
    },
    locate,
  };
}

function resolveChannel(channel: Channel): ResolvedChannel {
  return {
    name: channel.name,
    type: channel.type,
    formats: channel.formats ?? NATIVE_FORMATS[channel.type],
    dropParams: [...(channel.drop_params ?? [])],
    // The schema requires base_url for openai and anthropic; a mock never calls out, whatever the file says.
    baseUrl: channel.type === 'mock' || channel.base_url === undefined ? null : channel.base_url.replace(/\/+$/, ''),
    keys: [...(channel.keys ?? [])],
    models: resolveModels(channel.models),
    priority: channel.priority ?? CHANNEL_DEFAULTS.priority,
    weight: channel.weight ?? CHANNEL_DEFAULTS.weight,
    timeoutMs: channel.timeout_ms ?? CHANNEL_DEFAULTS.timeoutMs,
    idleTimeoutMs: channel.idle_timeout_ms ?? CHANNEL_DEFAULTS.idleTimeoutMs,
    cooldownMs: channel.cooldown_ms ?? CHANNEL_DEFAULTS.cooldownMs,
    modelsRefreshMs: channel.models_refresh_ms ?? CHANNEL_DEFAULTS.modelsRefreshMs,
    headers: Object.fromEntries(definedEntries(channel.headers ?? {})),
    mock: {
      chunkDelayMs: channel.mock?.chunk_delay_ms ?? MOCK_DEFAULTS.chunkDelayMs,
      reply: channel.mock?.reply ?? MOCK_DEFAULTS.reply,
    },
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

// Generated index signatures allow undefined (strictIndexSignatures); parsed YAML never has it.
function definedEntries<T>(record: Readonly<Record<string, T | undefined>>): [string, T][] {
  return Object.entries(record).flatMap(([k, v]): [string, T][] => (v === undefined ? [] : [[k, v]]));
}
