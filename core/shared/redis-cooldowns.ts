// Channel cool-downs shared by the fleet: a channel one instance saw fail is tried last by every instance for its
// cool-down. The router asks its ChannelHealth on every request, from memory; this copies the fleet's news into it.
// A cool-down (or its end) is written to a hash on Redis's clock (for instances that connect later or reconnect)
// and published; every instance subscribes and applies every message, its own too (in Redis's order). While Redis is out each instance keeps its own
// cool-downs, as without Redis, and the hash is read again when the subscription comes back.

import type { ChannelHealth, CooldownSink } from '../routing/health.js';
import { RedisNews } from './redis-news.js';
import type { RedisState } from './redis-state.js';

// KEYS: the hash. ARGV: channel, ms (0: cleared), the message to publish, the pub/sub channel.
const COOL = `
redis.replicate_commands()
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
if tonumber(ARGV[2]) > 0 then
  redis.call('HSET', KEYS[1], ARGV[1], now + tonumber(ARGV[2]))
else
  redis.call('HDEL', KEYS[1], ARGV[1])
end
redis.call('PUBLISH', ARGV[4], ARGV[3])
return 1
`;

// KEYS: the hash. Returns {channel, ms left, ...} of the cool-downs still running; drops the others.
const LOAD = `
redis.replicate_commands()
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local all = redis.call('HGETALL', KEYS[1])
local out = {}
for i = 1, #all, 2 do
  local left = tonumber(all[i + 1]) - now
  if left > 0 then
    out[#out + 1] = all[i]
    out[#out + 1] = tostring(left)
  else
    redis.call('HDEL', KEYS[1], all[i])
  end
end
return out
`;

/** The longest cool-down taken from the fleet's news, ms: a day (cooldown_ms is minutes at most in practice). */
const MAX_COOLDOWN_MS = 86_400_000;

interface CooldownNews {
  readonly channel: string;
  readonly ms: number;
}

export interface RedisCooldownsOptions {
  readonly prefix: string;
  /** Whether a channel name is one of the current config's: news of any other is ignored (bounded memory). */
  readonly known: (channel: string) => boolean;
  readonly onError: (err: unknown) => void;
}

export class RedisCooldowns implements CooldownSink {
  readonly #state: RedisState;
  readonly #health: ChannelHealth;
  readonly #hash: string;
  readonly #topic: string;
  readonly #options: RedisCooldownsOptions;
  readonly #news: RedisNews;

  constructor(state: RedisState, health: ChannelHealth, options: RedisCooldownsOptions) {
    this.#state = state;
    this.#health = health;
    this.#hash = `${options.prefix}cooldowns`;
    this.#topic = `${options.prefix}cooldowns`;
    this.#options = options;
    // Every (re)connection of either connection: what was missed meanwhile is in the hash.
    this.#news = new RedisNews(state, { topic: this.#topic, onMessage: (message) => this.#receive(message), reload: () => this.refresh(), onError: options.onError });
    this.#state.client.on('ready', () => void this.refresh());
  }

  /** Connects in the background (a Redis that is down is retried by the client) and tells `health` to publish. */
  start(): void {
    this.#health.sink = this;
    this.#news.start();
  }

  cooled(channel: string, ms: number): void {
    this.#publish(channel, ms);
  }

  cleared(channel: string): void {
    this.#publish(channel, 0);
  }

  async close(): Promise<void> {
    this.#health.sink = null;
    this.#news.close();
    return Promise.resolve();
  }

  #publish(channel: string, ms: number): void {
    if (!this.#state.client.isReady) return this.#options.onError(new Error('Redis is not connected'));
    const news: CooldownNews = { channel, ms };
    this.#state.client
      .eval(COOL, { keys: [this.#hash], arguments: [channel, String(ms), JSON.stringify(news), this.#topic] })
      .catch((err: unknown) => this.#options.onError(err));
  }

  /**
   * Every instance applies every message, its own too, in the order Redis ran them: a cool-down and a recovery
   * of one channel told by two instances at once end the same way everywhere (re-applying its own is harmless).
   */
  #receive(message: string): void {
    let news: Partial<CooldownNews>;
    try {
      news = JSON.parse(message) as Partial<CooldownNews>;
    } catch {
      return;
    }
    if (typeof news.channel === 'string' && typeof news.ms === 'number') this.#take(news.channel, news.ms);
  }

  #take(channel: string, ms: number): void {
    if (!Number.isFinite(ms) || !this.#options.known(channel)) return;
    this.#health.apply(channel, Math.min(ms, MAX_COOLDOWN_MS));
  }

  /**
   * Reads the hash on the main connection (the subscriber's is in subscribe mode), once it is connected: at every
   * (re)connection, and after a reload (a channel it adds may be cooling already). Its answer
   * may cross a newer message (a recovery told meanwhile): the channel is then tried last for the rest of a
   * cool-down that had ended, no worse than before the news.
   */
  async refresh(): Promise<void> {
    if (!this.#state.client.isReady) return;
    try {
      const flat = (await this.#state.client.eval(LOAD, { keys: [this.#hash], arguments: [] })) as string[];
      for (let i = 0; i + 1 < flat.length; i += 2) this.#take(String(flat[i]), Number(flat[i + 1]));
    } catch (err) {
      this.#options.onError(err);
    }
  }
}
