// Channel candidates for a model: priority tiers first, weighted random order inside a tier, cooled channels last.

import type { ApiFormat, ResolvedChannel } from '../config/resolved.js';
import { compileGlob, compileGlobs, isGlob, type ModelMatcher } from './glob.js';
import { ChannelHealth } from './health.js';
import { KeyRotation } from './key-rotation.js';
import { ChannelOverrides, type OverrideSnapshot } from './overrides.js';
import { ChannelRotation } from './rotation.js';

/** One way to serve a request: a channel and the model name to send it. */
export interface Attempt {
  readonly channel: ResolvedChannel;
  readonly upstreamModel: string;
  /** The one request that probes a channel out of rotation (its sender claims it first: ChannelRotation.claimProbe). */
  readonly probe?: boolean;
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
  /** The process's channel rotation (out after too many failures), kept across config loads; a new one without. */
  readonly rotation?: ChannelRotation | undefined;
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
  readonly rotation: ChannelRotation;
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
    this.rotation = options.rotation ?? new ChannelRotation(options.now);
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
    if (found.length <= 1) return this.inRotation(found);
    const tiers = new Map<number, Weighted[]>();
    found.forEach((attempt, i) => {
      const tier = tiers.get(attempt.channel.priority);
      const weighted = { attempt, weight: weights[i] ?? attempt.channel.weight };
      if (tier === undefined) tiers.set(attempt.channel.priority, [weighted]);
      else tier.push(weighted);
    });
    const ordered = this.inRotation([...tiers.entries()].sort((a, b) => b[0] - a[0]).flatMap(([, tier]) => this.shuffle(tier)));
    // Asked once per channel: a cool-down expiring between two passes would otherwise drop the channel from both.
    // A probe stays first: last, it would seldom be sent (it is the channel's only way back).
    const cooling = ordered.map((a) => a.probe !== true && this.health.isCooling(a.channel.name));
    const healthy = ordered.filter((_, i) => cooling[i] !== true);
    return healthy.length === ordered.length ? healthy : [...healthy, ...ordered.filter((_, i) => cooling[i] === true)];
  }

  /**
   * The plan (in tier order, highest first) without the channels out of rotation; one that is due for its probe goes
   * first of its own tier, marked (one per plan: the others wait for the next request). Never before a higher tier's
   * channel in rotation: a probe is one real request, sent where that request would go anyway. A memory read per
   * channel; the plan as it is when every channel is in.
   */
  private inRotation(ordered: Attempt[]): Attempt[] {
    // Every channel in rotation (nearly always): nothing to look at, nothing allocated.
    if (!this.rotation.anyOut) return ordered;
    const checks = ordered.map((a) => this.rotation.check(a.channel.name));
    if (checks.every((c) => c === 'in')) return ordered;
    const due = ordered.findIndex((_, i) => checks[i] === 'due');
    const kept = ordered.filter((_, i) => checks[i] === 'in');
    const probe = ordered[due];
    if (probe === undefined) return kept;
    const tierStart = kept.findIndex((a) => a.channel.priority <= probe.channel.priority);
    const at = tierStart === -1 ? kept.length : tierStart;
    kept.splice(at, 0, { channel: probe.channel, upstreamModel: probe.upstreamModel, probe: true });
    return kept;
  }

  /**
   * ms until the first probe of the model's channels when the config has channels for it (as plan() asks), the
   * operator disabled none of those left, and every one is out of rotation; null otherwise. Asked only when plan()
   * found none: the caller is refused at once (503, retry-after), nothing is sent. `only`: that channel alone (a
   * request bound to it).
   */
  outOfRotationMs(model: string, format?: ApiFormat | 'any', only?: string): number | null {
    this.refresh();
    const serving = this.entries.filter((entry) => (only === undefined || entry.channel.name === only) && upstreamModelOf(entry, model, format) !== null);
    if (serving.length === 0 || serving.some((entry) => this.rotation.check(entry.channel.name) !== 'out')) return null;
    return Math.min(...serving.map((entry) => this.rotation.dueInMs(entry.channel.name)));
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
