// Channel cool-downs shared by the fleet: a channel one instance saw fail is tried last by every instance for its
// cool-down. The router asks its ChannelHealth on every request, from memory; this copies the fleet's news into it.
// A cool-down (or its end) is written to a hash on Redis's clock (for instances that connect later or reconnect)
// and published; every instance subscribes and applies the others'. While Redis is out each instance keeps its own
// cool-downs, as without Redis, and the hash is read again when the subscription comes back.

import type { ChannelHealth, CooldownSink } from '../routing/health.js';
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

interface CooldownNews {
  readonly from: string;
  readonly channel: string;
  readonly ms: number;
}

export class RedisCooldowns implements CooldownSink {
  readonly #state: RedisState;
  readonly #health: ChannelHealth;
  readonly #hash: string;
  readonly #topic: string;
  readonly #onError: (err: unknown) => void;
  readonly #subscriber: RedisState['client'];

  constructor(state: RedisState, health: ChannelHealth, options: { prefix: string; onError: (err: unknown) => void }) {
    this.#state = state;
    this.#health = health;
    this.#hash = `${options.prefix}cooldowns`;
    this.#topic = `${options.prefix}cooldowns`;
    this.#onError = options.onError;
    // A subscribed connection can do nothing else: a second one, which reconnects and resubscribes by itself.
    this.#subscriber = state.client.duplicate();
    // Its errors are the main connection's too (same server), which logs them; this one only counts.
    this.#subscriber.on('error', () => undefined);
    // Every (re)connection of either: what was missed meanwhile is in the hash.
    this.#subscriber.on('ready', () => void this.#load());
    this.#state.client.on('ready', () => void this.#load());
  }

  /** Subscribes (in the background: a Redis that is down is retried by the client) and tells `health` to publish. */
  start(): void {
    this.#health.sink = this;
    this.#subscriber
      .connect()
      .then(() => this.#subscriber.subscribe(this.#topic, (message) => this.#receive(message)))
      .catch((err: unknown) => this.#onError(err));
  }

  cooled(channel: string, ms: number): void {
    this.#publish(channel, ms);
  }

  cleared(channel: string): void {
    this.#publish(channel, 0);
  }

  async close(): Promise<void> {
    this.#health.sink = null;
    this.#subscriber.destroy();
    return Promise.resolve();
  }

  #publish(channel: string, ms: number): void {
    if (!this.#state.client.isReady) return this.#onError(new Error('Redis is not connected'));
    const news: CooldownNews = { from: this.#state.id, channel, ms };
    this.#state.client
      .eval(COOL, { keys: [this.#hash], arguments: [channel, String(ms), JSON.stringify(news), this.#topic] })
      .catch((err: unknown) => this.#onError(err));
  }

  #receive(message: string): void {
    let news: Partial<CooldownNews>;
    try {
      news = JSON.parse(message) as Partial<CooldownNews>;
    } catch {
      return;
    }
    if (news.from === this.#state.id || typeof news.channel !== 'string' || typeof news.ms !== 'number') return;
    this.#health.apply(news.channel, news.ms);
  }

  /** Reads the hash on the main connection (the subscriber's is in subscribe mode), once it is connected. */
  async #load(): Promise<void> {
    if (!this.#state.client.isReady) return;
    try {
      const flat = (await this.#state.client.eval(LOAD, { keys: [this.#hash], arguments: [] })) as string[];
      for (let i = 0; i + 1 < flat.length; i += 2) this.#health.apply(String(flat[i]), Number(flat[i + 1]));
    } catch (err) {
      this.#onError(err);
    }
  }
}
