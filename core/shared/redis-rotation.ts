// Channel rotation shared by the fleet (issue 45): each attempt's outcome runs one script that appends it to the
// channel's window on Redis, trims it, counts, and flips the channel's state when the count (or a probe) says so; a
// flip is published and every instance (its own included) copies it into its ChannelRotation, which the router reads
// from memory. Only the instance whose script flipped the state is told of the change (logged, counted, webhook):
// once per fleet. The probe is taken with SET NX PX: one instance sends it. Outcomes are fire and forget; while
// Redis is out each instance keeps its own window (said once in the log), as without Redis.

import type { ResolvedHealth } from '../config/resolved.js';
import type { ChannelRotation, Outcome, RotationChange, RotationSink } from '../routing/rotation.js';
import type { RedisState } from './redis-state.js';

// KEYS: the window list, the state hash. ARGV: channel, outcome (1 failed, 0 served, n neutral),
// probe (1/0), window, errors, probe_after_ms, probe_max_ms, topic. The hash holds "<backoff>:<due, Redis ms>:<serial>" per
// channel out, and "#<channel>" its count of changes. Returns '' or the change as JSON (also published).
const OUTCOME = `
redis.replicate_commands()
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local channel = ARGV[1]
local cur = redis.call('HGET', KEYS[2], channel)
local function flip(state, reason, backoff, failures)
  local serial = redis.call('HINCRBY', KEYS[2], '#' .. channel, 1)
  if state == 'in' then redis.call('HDEL', KEYS[2], channel) else redis.call('HSET', KEYS[2], channel, backoff .. ':' .. (now + backoff) .. ':' .. serial) end
  redis.call('DEL', KEYS[1])
  local news = cjson.encode({channel = channel, state = state, reason = reason, backoffMs = backoff, failures = failures, serial = tostring(serial)})
  redis.call('PUBLISH', ARGV[8], news)
  return news
end
if ARGV[3] == '1' then
  if not cur then return '' end
  if ARGV[2] ~= '1' then return flip('in', 'probe_served', 0, 0) end
  local prev = tonumber(string.match(cur, '^(%d+)'))
  return flip('out', 'probe_failed', math.min(prev * 2, tonumber(ARGV[7])), 0)
end
if cur or ARGV[2] == 'n' then return '' end
redis.call('RPUSH', KEYS[1], ARGV[2])
redis.call('LTRIM', KEYS[1], -tonumber(ARGV[4]), -1)
redis.call('PEXPIRE', KEYS[1], 86400000)
local failures = 0
for _, v in ipairs(redis.call('LRANGE', KEYS[1], 0, -1)) do if v == '1' then failures = failures + 1 end end
if failures < tonumber(ARGV[5]) then return '' end
return flip('out', 'errors', tonumber(ARGV[6]), failures)
`;

// KEYS: the state hash. Returns {channel, ms until due, serial, ...} of the channels out.
const LOAD = `
redis.replicate_commands()
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local all = redis.call('HGETALL', KEYS[1])
local out = {}
for i = 1, #all, 2 do
  local backoff, due, serial = string.match(all[i + 1], '^(%d+):(%d+):(%d+)$')
  if backoff then
    out[#out + 1] = all[i]
    out[#out + 1] = tostring(math.max(1, tonumber(due) - now))
    out[#out + 1] = serial
  end
end
return out
`;

/** The longest wait taken from the fleet's news, ms: a day. */
const MAX_BACKOFF_MS = 86_400_000;

export interface RedisRotationOptions {
  readonly prefix: string;
  /** Whether a channel name is one of the current config's: news of any other is ignored (bounded memory). */
  readonly known: (channel: string) => boolean;
  /** `first`: the first failure since Redis last answered (logged once). */
  readonly onError: (err: unknown, first: boolean) => void;
  readonly onRecovered: () => void;
}

export class RedisRotation implements RotationSink {
  readonly #state: RedisState;
  readonly #rotation: ChannelRotation;
  readonly #options: RedisRotationOptions;
  readonly #hash: string;
  readonly #topic: string;
  readonly #subscriber: RedisState['client'];
  #subscribed = false;
  #failing = false;

  constructor(state: RedisState, rotation: ChannelRotation, options: RedisRotationOptions) {
    this.#state = state;
    this.#rotation = rotation;
    this.#options = options;
    this.#hash = `${options.prefix}health`;
    this.#topic = `${options.prefix}health`;
    // A subscribed connection can do nothing else: a second one (as redis-cooldowns.ts).
    this.#subscriber = state.client.duplicate();
    this.#subscriber.on('error', () => undefined);
    this.#subscriber.on('ready', () => void this.#subscribeThenLoad());
    state.onRecycled(() => {
      if (this.#subscriber.isOpen) this.#subscriber.destroy();
      this.#subscribed = false;
      this.#subscriber.connect().catch((err: unknown) => this.#failed(err));
    });
  }

  start(): void {
    this.#rotation.sink = this;
    this.#subscriber.connect().catch((err: unknown) => this.#failed(err));
  }

  async close(): Promise<void> {
    this.#rotation.sink = null;
    this.#subscriber.destroy();
    return Promise.resolve();
  }

  outcome(channel: string, health: ResolvedHealth, outcome: Outcome, probe: boolean): boolean {
    if (!this.#state.client.isReady) {
      this.#failed(new Error('Redis is not connected'));
      return false;
    }
    const key = (part: string): string => `${this.#options.prefix}health:${part}:${channel}`;
    const args = [channel, outcome === 'failed' ? '1' : outcome === 'served' ? '0' : 'n', probe ? '1' : '0', String(health.window), String(health.errors), String(health.probeAfterMs), String(health.probeMaxMs), this.#topic];
    this.#state.client
      .eval(OUTCOME, { keys: [key('window'), this.#hash], arguments: args })
      .then((answer) => {
        this.#answered();
        // A probe's outcome on a channel the fleet has back in already (this instance missed the news): in here too.
        if (answer === '' && probe) this.#rotation.taken(channel, 0);
        if (typeof answer !== 'string' || answer === '') return;
        const change = parseChange(answer);
        if (change !== null) this.#rotation.onChange(change);
      })
      .catch((err: unknown) => {
        // Not lost: counted in this instance's window, as while Redis is out.
        this.#failed(err);
        this.#rotation.recordHere(channel, health, outcome, probe);
      });
    return true;
  }

  async claimProbe(channel: string, serial: string, leaseMs: number): Promise<boolean> {
    if (!this.#state.client.isReady) return true;
    const taken = await this.#state.client.set(`${this.#options.prefix}health:probe:${channel}:${serial}`, '1', { NX: true, PX: leaseMs });
    return taken === 'OK';
  }

  /** Every instance applies every flip, its own too, in Redis's order. */
  #receive(message: string): void {
    const change = parseChange(message);
    if (change === null || !this.#options.known(change.channel)) return;
    this.#rotation.taken(change.channel, change.state === 'in' ? 0 : Math.min(change.backoffMs, MAX_BACKOFF_MS), change.serial);
  }

  async #subscribeThenLoad(): Promise<void> {
    if (!this.#subscribed) {
      try {
        await this.#subscriber.subscribe(this.#topic, (message) => this.#receive(message));
        this.#subscribed = true;
      } catch (err) {
        this.#failed(err);
        return;
      }
    }
    await this.refresh();
  }

  /** The channels out now (at start, every reconnection, a reload): what was missed meanwhile. */
  async refresh(): Promise<void> {
    if (!this.#state.client.isReady) return;
    try {
      const flat = (await this.#state.client.eval(LOAD, { keys: [this.#hash], arguments: [] })) as string[];
      const out = new Set<string>();
      for (let i = 0; i + 2 < flat.length; i += 3) {
        const channel = String(flat[i]);
        const left = Number(flat[i + 1]);
        if (!this.#options.known(channel) || !Number.isFinite(left)) continue;
        out.add(channel);
        this.#rotation.taken(channel, Math.min(left, MAX_BACKOFF_MS), String(flat[i + 2]));
      }
      // Back in while this instance did not hear it.
      for (const channel of this.#rotation.outChannels()) if (!out.has(channel)) this.#rotation.taken(channel, 0);
    } catch (err) {
      this.#failed(err);
    }
  }

  #failed(err: unknown): void {
    this.#options.onError(err, !this.#failing);
    this.#failing = true;
  }

  #answered(): void {
    if (!this.#failing) return;
    this.#failing = false;
    this.#options.onRecovered();
  }
}

function parseChange(text: string): RotationChange | null {
  let news: Partial<RotationChange>;
  try {
    news = JSON.parse(text) as Partial<RotationChange>;
  } catch {
    return null;
  }
  const { channel, state, reason, backoffMs, failures, serial } = news;
  if (typeof channel !== 'string' || (state !== 'in' && state !== 'out') || typeof backoffMs !== 'number' || !Number.isFinite(backoffMs)) return null;
  if (reason !== 'errors' && reason !== 'probe_failed' && reason !== 'probe_served') return null;
  return { channel, state, reason, backoffMs, failures: typeof failures === 'number' ? failures : 0, serial: typeof serial === 'string' ? serial : '0' };
}
