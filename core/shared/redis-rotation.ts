// Channel rotation shared by the fleet (issue 45): each attempt's outcome runs one script (EVALSHA) that adds it to the
// channel's compact window on Redis (its last outcomes as a string of 0s and 1s, and their count of failures), and
// flips the channel's state when the count (or a probe) says so; a flip is published and every instance (its own
// included) copies it into its ChannelRotation, which the router reads from memory. Only the instance whose script
// flipped the state is told of the change (logged, counted, webhook): once per fleet. An outcome about a channel the
// fleet has out already answers that state, applied here at once (before the notice arrives). A success is sent only
// while the fleet's window of its channel holds a failure (a clean window stays clean: nothing to count), which the
// script's answers and the topic's window notices tell. The probe is taken with SET NX PX: one instance sends it; one
// given back (its request sent nothing) is deleted and said, so an instance that lost the claim may take it.
// Outcomes are fire and forget; while Redis is out each instance keeps its own window (said once in the log).

import type { ResolvedHealth } from '../config/resolved.js';
import type { ChannelRotation, Outcome, RotationChange, RotationSink } from '../routing/rotation.js';
import { RedisNews } from './redis-news.js';
import { runScript } from './redis-script.js';
import type { RedisState } from './redis-state.js';

// Shared by the scripts: a flip of the channel's state, published; and the window's notices.
const FLIP = `
redis.replicate_commands()
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local channel = ARGV[1]
local cur = redis.call('HGET', KEYS[2], channel)
local function flip(state, reason, backoff, failures, by)
  local serial = redis.call('HINCRBY', KEYS[2], '#' .. channel, 1)
  if state == 'in' then redis.call('HDEL', KEYS[2], channel) else redis.call('HSET', KEYS[2], channel, backoff .. ':' .. (now + backoff) .. ':' .. serial) end
  redis.call('DEL', KEYS[1])
  redis.call('SREM', KEYS[3], channel)
  local change = {channel = channel, state = state, reason = reason, backoffMs = backoff, failures = failures, serial = tostring(serial)}
  if by then change.by = by end
  local news = cjson.encode(change)
  redis.call('PUBLISH', ARGV[2], news)
  return news
end
`;

// KEYS: the channel's window (a hash: s, its outcomes oldest first; f, the failures among them), the state hash, the
// set of channels whose window holds a failure. ARGV: channel, topic, outcome (1 failed, 0 served), probe (1/0),
// window, errors, probe_after_ms, probe_max_ms. The state hash holds "<backoff>:<due, Redis ms>:<serial>" per channel
// out, and "#<channel>" its count of changes. Answers {kind, ...}: change (the flip, as published), out (the fleet's
// time out: backoff, ms until due, serial), in (a probe of a channel the fleet has back in), window (failures left).
const OUTCOME = `${FLIP}
if ARGV[4] == '1' then
  if not cur then return {'in'} end
  if ARGV[3] ~= '1' then return {'change', flip('in', 'probe_served', 0, 0)} end
  local prev = tonumber(string.match(cur, '^(%d+)'))
  return {'change', flip('out', 'probe_failed', math.min(prev * 2, tonumber(ARGV[8])), 0)}
end
if cur then
  local backoff, due, serial = string.match(cur, '^(%d+):(%d+):(%d+)$')
  return {'out', backoff, tostring(math.max(1, tonumber(due) - now)), serial}
end
local w = tonumber(ARGV[5])
local kept = redis.call('HMGET', KEYS[1], 's', 'f')
local s = (kept[1] or '') .. ARGV[3]
local f = tonumber(kept[2] or '0')
if ARGV[3] == '1' then f = f + 1 end
if #s > w then
  local gone = string.sub(s, 1, #s - w)
  local _, n = string.gsub(gone, '1', '')
  f = f - n
  s = string.sub(s, #s - w + 1)
end
if f >= tonumber(ARGV[6]) then return {'change', flip('out', 'errors', tonumber(ARGV[7]), f)} end
if f == 0 then
  redis.call('DEL', KEYS[1])
  if redis.call('SREM', KEYS[3], channel) == 1 then redis.call('PUBLISH', ARGV[2], cjson.encode({channel = channel, window = 'clean'})) end
  return {'window', '0'}
end
redis.call('HSET', KEYS[1], 's', s, 'f', tostring(f))
redis.call('PEXPIRE', KEYS[1], 86400000)
if redis.call('SADD', KEYS[3], channel) == 1 then redis.call('PUBLISH', ARGV[2], cjson.encode({channel = channel, window = 'dirty'})) end
return {'window', tostring(f)}
`;

// KEYS: as OUTCOME's. ARGV: channel, topic, who. An operator's word: back in now, its window empty. The flip as
// published, or '' when it was in.
const RESET = `${FLIP}
if not cur then
  redis.call('DEL', KEYS[1])
  if redis.call('SREM', KEYS[3], channel) == 1 then redis.call('PUBLISH', ARGV[2], cjson.encode({channel = channel, window = 'clean'})) end
  return ''
end
return flip('in', 'reset', 0, 0, ARGV[3])
`;

// KEYS: the state hash, the set of windows with failures. Returns {{channel, ms until due, serial, backoff, ...}, {the
// channels whose window holds a failure}}.
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
    out[#out + 1] = backoff
  end
end
return {out, redis.call('SMEMBERS', KEYS[2])}
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
  readonly #dirtySet: string;
  readonly #news: RedisNews;
  readonly #shas = new Map<string, string>();
  /** Channels whose fleet window holds a failure, as last heard: only their successes are sent. */
  readonly #dirty = new Set<string>();
  /** Notices received so far: a state read that a notice overtook is read again (refresh). */
  #heard = 0;
  #failing = false;

  constructor(state: RedisState, rotation: ChannelRotation, options: RedisRotationOptions) {
    this.#state = state;
    this.#rotation = rotation;
    this.#options = options;
    this.#hash = `${options.prefix}health`;
    this.#topic = `${options.prefix}health`;
    this.#dirtySet = `${options.prefix}health:dirty`;
    this.#news = new RedisNews(state, { topic: this.#topic, onMessage: (message) => this.#receive(message), reload: () => this.refresh(), onError: (err) => this.#failed(err) });
  }

  start(): void {
    this.#rotation.sink = this;
    this.#news.start();
  }

  async close(): Promise<void> {
    this.#rotation.sink = null;
    this.#news.close();
    return Promise.resolve();
  }

  outcome(channel: string, health: ResolvedHealth, outcome: Outcome, probe: boolean): boolean {
    // A success on a window without failures changes no count: nothing to send (the request path's usual case).
    if (outcome === 'served' && !probe && !this.#dirty.has(channel)) return true;
    if (!this.#state.client.isReady) {
      this.#failed(new Error('Redis is not connected'));
      return false;
    }
    const args = [channel, this.#topic, outcome === 'failed' ? '1' : '0', probe ? '1' : '0', String(health.window), String(health.errors), String(health.probeAfterMs), String(health.probeMaxMs)];
    this.#run(OUTCOME, channel, args)
      .then((answer) => {
        this.#answered();
        this.#apply(channel, answer);
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
    const taken = await this.#state.client.set(this.#probeKey(channel, serial), '1', { NX: true, PX: leaseMs });
    return taken === 'OK';
  }

  /** The claim dropped, and said (the instances that lost it hold it locally until told). Rare: one round trip. */
  releaseProbe(channel: string, serial: string): void {
    if (!this.#state.client.isReady) return;
    const notice = JSON.stringify({ channel, released: serial });
    this.#state.client
      .multi()
      .del(this.#probeKey(channel, serial))
      .publish(this.#topic, notice)
      .exec()
      .catch((err: unknown) => this.#failed(err));
  }

  async reset(channel: string, by: string): Promise<RotationChange | null> {
    if (!this.#state.client.isReady) throw new Error('Redis is not connected');
    const answer = await this.#run(RESET, channel, [channel, this.#topic, by]);
    this.#dirty.delete(channel);
    return typeof answer === 'string' && answer !== '' ? parseChange(answer) : null;
  }

  /** What the script said of the channel, applied here at once. */
  #apply(channel: string, answer: unknown): void {
    if (!Array.isArray(answer)) return;
    const [kind, a, b, c] = answer.map(String);
    if (kind === 'change' && a !== undefined) {
      const change = parseChange(a);
      if (change === null) return;
      this.#dirty.delete(channel);
      // Applied now, not when the notice comes back: this instance routes by it from its next request.
      this.#take(change);
      this.#rotation.onChange(change);
    } else if (kind === 'out' && a !== undefined && b !== undefined && c !== undefined) {
      // Out in the fleet, not yet here (the notice is on its way): out here now, on the fleet's back-off and due time.
      if (this.#options.known(channel)) this.#rotation.taken(channel, Math.min(Number(a), MAX_BACKOFF_MS), c, Math.min(Number(b), MAX_BACKOFF_MS));
    } else if (kind === 'in') {
      // A probe's outcome on a channel the fleet has back in already (this instance missed the news): in here too.
      this.#rotation.taken(channel, 0);
    } else if (kind === 'window') {
      if (a === '0') this.#dirty.delete(channel);
      else if (this.#options.known(channel)) this.#dirty.add(channel);
    }
  }

  /** Every instance applies every flip, its own too, in Redis's order; and the window notices. */
  #receive(message: string): void {
    this.#heard++;
    const notice = parseNotice(message);
    if (notice !== null) {
      if (notice.released !== null) this.#rotation.probeReleased(notice.channel, notice.released);
      else if (notice.dirty && this.#options.known(notice.channel)) this.#dirty.add(notice.channel);
      else this.#dirty.delete(notice.channel);
      return;
    }
    const change = parseChange(message);
    if (change === null || !this.#options.known(change.channel)) return;
    this.#dirty.delete(change.channel);
    this.#take(change);
  }

  #take(change: RotationChange): void {
    this.#rotation.taken(change.channel, change.state === 'in' ? 0 : Math.min(change.backoffMs, MAX_BACKOFF_MS), change.serial);
  }

  /** Subscribed to the fleet's notices, and its state read once since. */
  loaded(): Promise<void> {
    return this.#news.loaded();
  }

  /** The channels out now, and the windows with failures (at start, every reconnection, a reload). */
  async refresh(): Promise<void> {
    if (!this.#state.client.isReady) return;
    try {
      // A notice applied while the read was on its way may be newer than what it read (a flip, a window turned
      // dirty): the read is made again then, so that a stale one never undoes it (a few times at most).
      let flat: string[] = [];
      let dirty: string[] = [];
      for (let reads = 0; reads < 3; reads++) {
        const heard = this.#heard;
        [flat, dirty] = (await runScript(this.#state.client, this.#shas, LOAD, [this.#hash, this.#dirtySet], [])) as [string[], string[]];
        if (this.#heard === heard) break;
      }
      const out = new Set<string>();
      for (let i = 0; i + 3 < flat.length; i += 4) {
        const channel = String(flat[i]);
        const left = Number(flat[i + 1]);
        const backoff = Number(flat[i + 3]);
        if (!this.#options.known(channel) || !Number.isFinite(left) || !Number.isFinite(backoff)) continue;
        out.add(channel);
        this.#rotation.taken(channel, Math.min(Math.max(backoff, 1), MAX_BACKOFF_MS), String(flat[i + 2]), Math.min(left, MAX_BACKOFF_MS));
      }
      // Back in while this instance did not hear it.
      for (const channel of this.#rotation.outChannels()) if (!out.has(channel)) this.#rotation.taken(channel, 0);
      this.#dirty.clear();
      for (const channel of dirty) if (this.#options.known(String(channel))) this.#dirty.add(String(channel));
    } catch (err) {
      this.#failed(err);
    }
  }

  #run(script: string, channel: string, args: string[]): Promise<unknown> {
    const keys = [`${this.#options.prefix}health:window:${channel}`, this.#hash, this.#dirtySet];
    return runScript(this.#state.client, this.#shas, script, keys, args);
  }

  #probeKey(channel: string, serial: string): string {
    return `${this.#options.prefix}health:probe:${channel}:${serial}`;
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

/** A window's notice ({channel, window: dirty|clean}) or a probe given back ({channel, released: serial}); null else. */
function parseNotice(text: string): { channel: string; dirty: boolean; released: string | null } | null {
  if (!text.includes('"window"') && !text.includes('"released"')) return null;
  try {
    const notice = JSON.parse(text) as { channel?: unknown; window?: unknown; released?: unknown };
    if (typeof notice.channel !== 'string') return null;
    if (typeof notice.released === 'string') return { channel: notice.channel, dirty: false, released: notice.released };
    return notice.window === 'dirty' || notice.window === 'clean' ? { channel: notice.channel, dirty: notice.window === 'dirty', released: null } : null;
  } catch {
    return null;
  }
}

function parseChange(text: string): RotationChange | null {
  let news: Partial<RotationChange>;
  try {
    news = JSON.parse(text) as Partial<RotationChange>;
  } catch {
    return null;
  }
  const { channel, state, reason, backoffMs, failures, serial, by } = news;
  if (typeof channel !== 'string' || (state !== 'in' && state !== 'out') || typeof backoffMs !== 'number' || !Number.isFinite(backoffMs)) return null;
  if (reason !== 'errors' && reason !== 'probe_failed' && reason !== 'probe_served' && reason !== 'reset') return null;
  const change: RotationChange = { channel, state, reason, backoffMs, failures: typeof failures === 'number' ? failures : 0, serial: typeof serial === 'string' ? serial : '0' };
  return typeof by === 'string' ? Object.assign(change, { by }) : change;
}
