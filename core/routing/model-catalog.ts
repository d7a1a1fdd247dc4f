// The models of one config load for GET /v1/models: what each channel's upstream last listed, read in the
// background at start and every models_refresh_ms, expanded over the configured patterns (model-list.ts).

import type { ResolvedChannel } from '../config/resolved.js';
import type { Logger } from '../logging/logger.js';
import { isGlob } from './glob.js';
import { buildModelList } from './model-list.js';

/** Reads the model ids of a channel's upstream; rejects with an Error whose message is safe to log. */
export type ModelLister = (channel: ResolvedChannel, signal: AbortSignal) => Promise<readonly string[]>;

/** setTimeout fires at once (with a warning) beyond this; a longer refresh waits this long instead. */
const MAX_TIMER_MS = 2 ** 31 - 1;

interface Discovery {
  readonly channel: ResolvedChannel;
  readonly list: ModelLister;
}

/**
 * Only a channel with a glob pattern has something to expand: a list of exact names or an alias map makes no
 * upstream call, so most configs make none.
 */
export function discoversModels(channel: ResolvedChannel): boolean {
  return channel.modelsRefreshMs > 0 && channel.models.patterns.some(isGlob);
}

/** Another config's discovered list is valid for this channel only if it came from the same upstream and keys. */
function sameUpstream(a: ResolvedChannel, b: ResolvedChannel): boolean {
  return a.type === b.type && a.baseUrl === b.baseUrl && a.keys.length === b.keys.length && a.keys.every((key, i) => key === b.keys[i]);
}

export class ModelCatalog {
  /** The last good list of each discovering channel, by name; a failed read keeps it. */
  private readonly discovered = new Map<string, readonly string[]>();
  private readonly discoveries: readonly Discovery[];
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly reading = new Set<AbortController>();
  private state: 'new' | 'started' | 'stopped' = 'new';
  private firstRound: Promise<void> = Promise.resolve();
  /** Built on first ask after a change: /v1/models may be asked often, the lists change every few minutes. */
  private list: string[] | null = null;

  /** `listerFor` gives a channel's lister, or undefined when its type has no model list (mock). No I/O here. */
  constructor(
    private readonly channels: readonly ResolvedChannel[],
    listerFor: (channel: ResolvedChannel) => ModelLister | undefined,
    private readonly logger: Logger,
  ) {
    this.discoveries = channels.flatMap((channel): Discovery[] => {
      const list = discoversModels(channel) ? listerFor(channel) : undefined;
      return list === undefined ? [] : [{ channel, list }];
    });
  }

  /** The client-visible models, sorted (before any caller's group filter). */
  models(): readonly string[] {
    return (this.list ??= buildModelList(this.channels, this.discovered));
  }

  /** Takes the previous config's lists for channels on the same upstream, so a reload does not make the list flicker. */
  seedFrom(previous: ModelCatalog): void {
    for (const { channel } of this.discoveries) {
      const before = previous.channels.find((c) => c.name === channel.name);
      const ids = previous.discovered.get(channel.name);
      if (before !== undefined && ids !== undefined && sameUpstream(before, channel)) this.discovered.set(channel.name, ids);
    }
    this.list = null;
  }

  /** The first read of every discovering channel now, then one every models_refresh_ms; timers never hold the process. */
  start(): void {
    if (this.state !== 'new') return;
    this.state = 'started';
    this.firstRound = Promise.all(this.discoveries.map((d) => this.discover(d))).then(() => undefined);
  }

  /** Resolves once each channel's first read (after start) has ended, well or not. */
  settled(): Promise<void> {
    return this.firstRound;
  }

  /** Clears the timers and aborts reads in progress; the lists stay readable (a retiring config still answers). */
  stop(): void {
    this.state = 'stopped';
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    for (const controller of this.reading) controller.abort();
    this.reading.clear();
  }

  private async discover(discovery: Discovery): Promise<void> {
    const { channel, list } = discovery;
    const controller = new AbortController();
    this.reading.add(controller);
    let timedOut = false;
    const deadline = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, channel.timeoutMs);
    deadline.unref();
    try {
      const ids = await list(channel, controller.signal);
      if (this.state === 'stopped') return;
      this.discovered.set(channel.name, ids);
      this.list = null;
      this.logger.debug({ channel: channel.name, models: ids.length }, 'upstream model list read');
    } catch (err) {
      if (this.state === 'stopped') return;
      // One line per failed read; the reason never holds the key or the upstream's body (model-discovery.ts).
      const reason = timedOut ? `no answer within ${channel.timeoutMs} ms` : err instanceof Error ? err.message : String(err);
      this.logger.warn({ channel: channel.name, reason }, 'reading the upstream model list failed; the last list stays');
    } finally {
      clearTimeout(deadline);
      this.reading.delete(controller);
      this.schedule(discovery);
    }
  }

  /** The next read is timed from the end of this one, so a slow upstream never has two reads at once. */
  private schedule(discovery: Discovery): void {
    if (this.state !== 'started') return;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      void this.discover(discovery);
    }, Math.min(discovery.channel.modelsRefreshMs, MAX_TIMER_MS));
    timer.unref();
    this.timers.add(timer);
  }
}
