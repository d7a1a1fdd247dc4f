// Rate limits shared by every instance through Redis: the same GCRA buckets and slots as MemoryLimiter, decided by
// one Lua script per admission (atomic: every limit of the request at once, all or none) on Redis's own clock, so
// instances with skewed clocks agree. A slot is a member of a sorted set scored by its expiry: the instance renews
// the slots of its requests in flight, so the slots of an instance that died expire after slotTtlMs; a request's
// end removes its slot. Whether Redis is reachable, and what to do when it is not, is the caller's (a failed call
// rejects; nothing here waits for a reconnection).

import { randomUUID } from 'node:crypto';
import type { Admission, LimitCheck, LimitKind, Limiter, LimitState, Ticket } from './limiter.js';
import { gcra } from './gcra.js';

/** The commands this limiter needs of a Redis client (node-redis's, or a test's). */
export interface RedisScripting {
  evalSha(sha: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>;
  eval(script: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>;
  scriptLoad(script: string): Promise<string>;
}

export interface RedisLimiterOptions {
  /** Prefix of every key (a deployment's, or a test run's own). */
  readonly prefix: string;
  /** How long a slot outlives its last renewal (an instance killed mid-request frees it after this). */
  readonly slotTtlMs?: number;
  /** The buckets' period; 60 s. Tests only: a shorter one, documented as such. */
  readonly periodMs?: number;
}

const DEFAULT_SLOT_TTL_MS = 30_000;

// KEYS: for each check, its bucket (a hash: r = the rpm TAT, t = the tpm TAT) and its slots (a sorted set).
// ARGV: tokens, slot id, slot ttl, period, then for each check: rpm, tpm, concurrency (0: none).
// Returns: {admitted (1|0), now, refused check index (0: none), refused kind, then per check: r, t, slots held}
// with the buckets as they were before this request, which the caller turns into the headers' counts.
const ADMIT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local tokens, slot, ttl, period = tonumber(ARGV[1]), ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4])
local n = #KEYS / 2
local out = {1, tostring(now), 0, ''}
local nextR, nextT = {}, {}
for i = 1, n do
  local rpm, tpm, conc = tonumber(ARGV[3 * i + 2]), tonumber(ARGV[3 * i + 3]), tonumber(ARGV[3 * i + 4])
  local tats = redis.call('HMGET', KEYS[2 * i - 1], 'r', 't')
  local r, tt = tonumber(tats[1]) or 0, tonumber(tats[2]) or 0
  local held = 0
  if conc > 0 then
    redis.call('ZREMRANGEBYSCORE', KEYS[2 * i], '-inf', now)
    held = redis.call('ZCARD', KEYS[2 * i])
  end
  out[#out + 1] = tostring(r)
  out[#out + 1] = tostring(tt)
  out[#out + 1] = held
  if out[1] == 1 then
    nextR[i], nextT[i] = r, tt
    if rpm > 0 then
      local nr = math.max(r, now) + period / rpm
      if nr - period > now then out[1], out[3], out[4] = 0, i, 'rpm' else nextR[i] = nr end
    end
    if out[1] == 1 and tpm > 0 then
      local nt = math.max(tt, now) + tokens * period / tpm
      if nt - period > now then out[1], out[3], out[4] = 0, i, 'tpm' else nextT[i] = nt end
    end
    if out[1] == 1 and conc > 0 and held >= conc then out[1], out[3], out[4] = 0, i, 'concurrency' end
  end
end
if out[1] == 0 then return out end
for i = 1, n do
  local rpm, tpm, conc = tonumber(ARGV[3 * i + 2]), tonumber(ARGV[3 * i + 3]), tonumber(ARGV[3 * i + 4])
  if rpm > 0 or tpm > 0 then
    redis.call('HSET', KEYS[2 * i - 1], 'r', tostring(nextR[i]), 't', tostring(nextT[i]))
    redis.call('PEXPIRE', KEYS[2 * i - 1], math.ceil(math.max(nextR[i], nextT[i]) - now) + 1000)
  end
  if conc > 0 then
    redis.call('ZADD', KEYS[2 * i], now + ttl, slot)
    redis.call('PEXPIRE', KEYS[2 * i], ttl + 1000)
  end
end
return out
`;

// KEYS: as ADMIT's. ARGV: slot id (or ''), token correction, period, then for each check: tpm (0: none).
const FINISH = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local slot, delta, period = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
for i = 1, #KEYS / 2 do
  if slot ~= '' then redis.call('ZREM', KEYS[2 * i], slot) end
  local tpm = tonumber(ARGV[3 + i])
  if delta ~= 0 and tpm > 0 then
    local tt = tonumber(redis.call('HGET', KEYS[2 * i - 1], 't'))
    if tt ~= nil then redis.call('HSET', KEYS[2 * i - 1], 't', tostring(math.max(tt + delta * period / tpm, now))) end
  end
end
return 1
`;

// KEYS: slot sets. ARGV: slot ttl, then for each key the slot id to renew (only if still there).
const RENEW = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
for i = 1, #KEYS do
  if redis.call('ZSCORE', KEYS[i], ARGV[i + 1]) then
    redis.call('ZADD', KEYS[i], 'XX', now + tonumber(ARGV[1]), ARGV[i + 1])
    redis.call('PEXPIRE', KEYS[i], tonumber(ARGV[1]) + 1000)
  end
end
return 1
`;

interface RedisTicket extends Ticket {
  /** This request's slot id in every slot set of its checks with a concurrency limit. */
  readonly slotId: string;
}

export class RedisLimiter implements Limiter {
  readonly #redis: RedisScripting;
  readonly #prefix: string;
  readonly #slotTtlMs: number;
  readonly #periodMs: number;
  readonly #shas = new Map<string, string>();
  /** Slots of this instance's requests in flight, by slot id: what renew() keeps alive. */
  readonly #held = new Map<string, readonly string[]>();

  constructor(redis: RedisScripting, options: RedisLimiterOptions) {
    this.#redis = redis;
    this.#prefix = options.prefix;
    this.#slotTtlMs = options.slotTtlMs ?? DEFAULT_SLOT_TTL_MS;
    this.#periodMs = options.periodMs ?? 60_000;
  }

  async admit(checks: readonly LimitCheck[], tokens: number): Promise<Admission> {
    const slotId = randomUUID();
    const args = [String(tokens), slotId, String(this.#slotTtlMs), String(this.#periodMs)];
    for (const c of checks) args.push(String(c.rpm ?? 0), String(c.tpm ?? 0), String(c.concurrency ?? 0));
    const reply = (await this.#run(ADMIT, this.#keysOf(checks), args)) as (string | number)[];
    const admittedNow = reply[0] === 1;
    const now = Number(reply[1]);
    const states: LimitState[] = [];
    let refused: { state: LimitState; retryAfterMs: number; requested: number } | null = null;
    for (let i = 0; i < checks.length; i++) {
      const check = checks[i] as LimitCheck;
      const r = Number(reply[4 + 3 * i]);
      const t = Number(reply[5 + 3 * i]);
      const held = Number(reply[6 + 3 * i]);
      const refusedHere = !admittedNow && reply[2] === i + 1 ? (reply[3] as LimitKind) : null;
      // The counts the headers show, from the buckets as they were: the same arithmetic as the script's.
      for (const [kind, limit, tat, cost] of [
        ['rpm', check.rpm, r, 1],
        ['tpm', check.tpm, t, tokens],
      ] as const) {
        if (limit === undefined) continue;
        const result = gcra(tat, now, { limit, periodMs: this.#periodMs }, cost);
        const state = stateOf(kind, check, limit, result.remaining, result.resetMs);
        states.push(state);
        if (refusedHere === kind) refused = { state, retryAfterMs: result.retryAfterMs, requested: cost };
      }
      if (check.concurrency !== undefined) {
        const state = stateOf('concurrency', check, check.concurrency, Math.max(0, check.concurrency - held - 1), 0);
        states.push(state);
        if (refusedHere === 'concurrency') refused = { state, retryAfterMs: 1000, requested: 1 };
      }
      if (refused !== null) break;
    }
    if (!admittedNow) {
      // The script refused; were the numbers here to disagree (a rounding apart), the script's verdict stands.
      const r = refused ?? { state: states[states.length - 1] as LimitState, retryAfterMs: 1000, requested: 1 };
      return { admitted: false, refused: r.state, retryAfterMs: r.retryAfterMs, requested: r.requested, states };
    }
    const slots = checks.filter((c) => c.concurrency !== undefined).map((c) => this.#slotsKey(c.subject));
    const ticket: RedisTicket = { checks, tokens, slots, slotId };
    if (slots.length > 0) this.#held.set(slotId, slots);
    return { admitted: true, ticket, states };
  }

  async finish(ticket: Ticket, usedTokens: number | null): Promise<void> {
    const { slotId } = ticket as RedisTicket;
    this.#held.delete(slotId);
    const delta = usedTokens === null ? 0 : usedTokens - ticket.tokens;
    if (ticket.slots.length === 0 && delta === 0) return;
    const args = [ticket.slots.length === 0 ? '' : slotId, String(delta), String(this.#periodMs)];
    for (const c of ticket.checks) args.push(String(c.tpm ?? 0));
    await this.#run(FINISH, this.#keysOf(ticket.checks), args);
  }

  /** Renews the slots of this instance's requests in flight: call well within slotTtlMs (a third of it). */
  async renew(): Promise<void> {
    if (this.#held.size === 0) return;
    const keys: string[] = [];
    const args = [String(this.#slotTtlMs)];
    for (const [slotId, sets] of this.#held) {
      for (const set of sets) {
        keys.push(set);
        args.push(slotId);
      }
    }
    await this.#run(RENEW, keys, args);
  }

  /** Requests holding a slot of `subject` from this instance. */
  inFlight(subject: string): number {
    const set = this.#slotsKey(subject);
    let n = 0;
    for (const sets of this.#held.values()) if (sets.includes(set)) n++;
    return n;
  }

  #keysOf(checks: readonly LimitCheck[]): string[] {
    const keys: string[] = [];
    for (const c of checks) keys.push(`${this.#prefix}rl:{${c.subject}}`, this.#slotsKey(c.subject));
    return keys;
  }

  #slotsKey(subject: string): string {
    return `${this.#prefix}rs:{${subject}}`;
  }

  /** EVALSHA, loading the script on NOSCRIPT (a restarted or flushed Redis). */
  async #run(script: string, keys: string[], args: string[]): Promise<unknown> {
    let sha = this.#shas.get(script);
    if (sha === undefined) {
      sha = await this.#redis.scriptLoad(script);
      this.#shas.set(script, sha);
    }
    try {
      return await this.#redis.evalSha(sha, { keys, arguments: args });
    } catch (err) {
      if (!(err instanceof Error) || !err.message.startsWith('NOSCRIPT')) throw err;
      return this.#redis.eval(script, { keys, arguments: args });
    }
  }
}

function stateOf(kind: LimitKind, check: LimitCheck, limit: number, remaining: number, resetMs: number): LimitState {
  return { kind, scope: check.scope, label: check.label, limit, remaining, resetMs };
}
