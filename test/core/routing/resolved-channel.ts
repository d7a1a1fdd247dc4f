// A ResolvedChannel for routing tests: an openai channel with test defaults, any field overridden.

import type { ResolvedChannel } from '../../../core/config/resolved.js';

export interface ChannelOverrides extends Partial<Omit<ResolvedChannel, 'models'>> {
  readonly patterns?: readonly string[];
  readonly aliases?: Readonly<Record<string, string>>;
}

export function resolvedChannel(name: string, overrides: ChannelOverrides = {}): ResolvedChannel {
  const { patterns, aliases, ...rest } = overrides;
  // As resolve does: the first chat API of its formats (core's three here), unless the test says.
  const formats = overrides.formats ?? ['openai-chat'];
  const dialect = formats.find((format) => ['openai-chat', 'openai-responses', 'anthropic-messages'].includes(format)) ?? null;
  return Object.assign(
    {
      name,
      type: 'openai' as const,
      formats: ['openai-chat' as const],
      dialect,
      dropParams: [],
      baseUrl: `https://${name}.example.test`,
      keys: [`sk-${name}`],
      models: { patterns: patterns ?? ['*'], aliases: new Map(Object.entries(aliases ?? {})) },
      priority: 0,
      weight: 1,
      timeoutMs: 60_000,
      idleTimeoutMs: 30_000,
      cooldownMs: 30_000,
      health: { errors: 5, window: 10, probeAfterMs: 30_000, probeMaxMs: 600_000 },
      modelsRefreshMs: 600_000,
      headers: {},
      mock: { chunkDelayMs: 0, reply: null },
      assets: false,
    },
    rest,
  );
}
