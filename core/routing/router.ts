// Channel candidates for a model: priority tiers first, weighted random order inside a tier, cooled channels last.

import type { ApiFormat, ResolvedChannel } from '../config/resolved.js';
import { compileGlob, compileGlobs, isGlob, type ModelMatcher } from './glob.js';
import { ChannelHealth } from './health.js';
import { KeyRotation } from './key-rotation.js';
import { ChannelOverrides, type OverrideSnapshot } from './overrides.js';

/** One way to serve a request: a channel and the model name to send it. */
export interface Attempt {
  readonly channel: ResolvedChannel;
  readonly upstreamModel: string;
}

interface Entry {
  readonly channel: ResolvedChannel;
  readonly matches: ModelMatcher;
  /** It speaks a chat API, so a chat request of any of them can be served on it (translated if need be). */
  readonly chat: boolean;
  /** The YAML weight, or the operator's override of it. */
  readonly weight: number;
}

export interface RouterOptions {
  readonly random?: () => number;
  readonly now?: () => number;
  /** The process's channel health, kept across config loads (and shared with the fleet); a new one without. */
  readonly health?: ChannelHealth | undefined;
  /** The operator's run-time overrides, kept across config loads; none without. */
  readonly overrides?: ChannelOverrides | undefined;
}

export class Router {
  /** Every configured channel, as compiled once. */
  private readonly all: readonly Entry[];
  /** `all` with the overrides of `appliedFrom` applied: disabled channels left out, weights replaced. */
  private entries: readonly Entry[];
  private appliedFrom: OverrideSnapshot;
  /** Configured model names (exact names and alias client names), as metric labels. */
  private readonly names: ReadonlySet<string>;
  /** Configured glob patterns in file order, each the label of the names it matches. */
  private readonly globs: readonly { readonly pattern: string; readonly matches: ModelMatcher }[];
  private readonly random: () => number;
  readonly health: ChannelHealth;
  readonly keys = new KeyRotation();
  readonly overrides: ChannelOverrides;

  constructor(channels: readonly ResolvedChannel[], options: RouterOptions = {}) {
    this.all = channels.map((channel) => ({
      channel,
      matches: compileGlobs(channel.models.patterns),
      chat: channel.dialect !== null,
      weight: channel.weight,
    }));
    this.overrides = options.overrides ?? new ChannelOverrides();
    this.appliedFrom = this.overrides.snapshot;
    this.entries = applied(this.all, this.appliedFrom);
    const patterns = channels.flatMap((c) => c.models.patterns);
    this.names = new Set([...patterns.filter((p) => !isGlob(p)), ...channels.flatMap((c) => [...c.models.aliases.keys()])]);
    this.globs = [...new Set(patterns.filter(isGlob))].map((pattern) => ({ pattern, matches: compileGlob(pattern) }));
    this.random = options.random ?? Math.random;
    this.health = options.health ?? new ChannelHealth(options.now);
  }

  /**
   * The channels that serve `model`, in the order to try them; empty when none does. With `format`, only
   * channels whose upstream speaks it natively; without, channels that speak a chat API (translation serves
   * the others); with 'any', every channel of the model.
   */
  plan(model: string, format?: ApiFormat | 'any'): Attempt[] {
    this.refresh();
    const found: Attempt[] = [];
    const weights: number[] = [];
    for (const entry of this.entries) {
      const upstreamModel = upstreamModelOf(entry, model, format);
      if (upstreamModel === null) continue;
      found.push({ channel: entry.channel, upstreamModel });
      weights.push(entry.weight);
    }
    if (found.length <= 1) return found;
    const tiers = new Map<number, Weighted[]>();
    found.forEach((attempt, i) => {
      const tier = tiers.get(attempt.channel.priority);
      const weighted = { attempt, weight: weights[i] ?? attempt.channel.weight };
      if (tier === undefined) tiers.set(attempt.channel.priority, [weighted]);
      else tier.push(weighted);
    });
    const ordered = [...tiers.entries()].sort((a, b) => b[0] - a[0]).flatMap(([, tier]) => this.shuffle(tier));
    // Asked once per channel: a cool-down expiring between two passes would otherwise drop the channel from both.
    const cooling = ordered.map((a) => this.health.isCooling(a.channel.name));
    const healthy = ordered.filter((_, i) => cooling[i] !== true);
    return healthy.length === ordered.length ? healthy : [...healthy, ...ordered.filter((_, i) => cooling[i] === true)];
  }

  /**
   * true when the config has channels for `model` (as plan() asks) but the operator disabled every one of them: the
   * model exists and is out of service, which the caller is told apart from a model that does not exist.
   */
  disabledByOperator(model: string, format?: ApiFormat | 'any'): boolean {
    this.refresh();
    if (this.entries === this.all) return false;
    const serves = (entry: Entry): boolean => upstreamModelOf(entry, model, format) !== null;
    return !this.entries.some(serves) && this.all.some(serves);
  }

  /** A pointer comparison per request; the rebuild happens once per change of the operator's overrides. */
  private refresh(): void {
    if (this.overrides.snapshot === this.appliedFrom) return;
    this.appliedFrom = this.overrides.snapshot;
    this.entries = applied(this.all, this.appliedFrom);
  }

  /**
   * The model as a metric label, from a set the config bounds: a configured name, else the first configured
   * pattern it matches, else "other". Never the client's string as such: every distinct name would be a new
   * series, and /metrics (and the process) would grow without bound.
   */
  modelLabel(model: string): string {
    if (this.names.has(model)) return model;
    for (const glob of this.globs) if (glob.matches(model)) return glob.pattern;
    return 'other';
  }

  /** Weighted random order without replacement: each pick is proportional to the remaining weights. */
  private shuffle(tier: Weighted[]): Attempt[] {
    const pool = [...tier];
    const out: Attempt[] = [];
    while (pool.length > 0) {
      const total = pool.reduce((sum, a) => sum + a.weight, 0);
      let r = this.random() * total;
      let i = 0;
      for (; i < pool.length - 1; i++) {
        r -= pool[i]?.weight ?? 0;
        if (r < 0) break;
      }
      out.push(...pool.splice(i, 1).map((w) => w.attempt));
    }
    return out;
  }
}

interface Weighted {
  readonly attempt: Attempt;
  readonly weight: number;
}

/** The model name `entry` serves `model` under (its alias, or the name itself), or null when it does not in `format`. */
function upstreamModelOf(entry: Entry, model: string, format: ApiFormat | 'any' | undefined): string | null {
  const { channel } = entry;
  if (format === undefined ? !entry.chat : format !== 'any' && !channel.formats.includes(format)) return null;
  const alias = channel.models.aliases.get(model);
  if (alias !== undefined) return alias;
  return entry.matches(model) ? model : null;
}

/** The entries routing uses under `overrides`: a disabled channel is left out entirely (no last resort). */
function applied(all: readonly Entry[], overrides: OverrideSnapshot): readonly Entry[] {
  if (overrides.size === 0) return all;
  const out: Entry[] = [];
  for (const entry of all) {
    const override = overrides.get(entry.channel.name);
    if (override === undefined) out.push(entry);
    else if (!override.disabled) out.push({ channel: entry.channel, matches: entry.matches, chat: entry.chat, weight: override.weight ?? entry.weight });
  }
  return out;
}
