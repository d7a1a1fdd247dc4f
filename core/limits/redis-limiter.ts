// Rate limits shared by every instance through Redis: the same token buckets and slots as MemoryLimiter, decided by
// one Lua script per admission (atomic: every limit of the request at once, all or none) on Redis's own clock, so
// instances with skewed clocks agree. A slot is a member of a sorted set scored by its expiry: the instance renews
// the slots of its requests in flight, so the slots of an instance that died expire after slotTtlMs; a request's
// end removes its slot. tokens_per_day is a counter per subject and day (its key names the day's start, which this
// instance's calendar clock decides), kept until a day after the day ends. Whether Redis is reachable, and what to do when it is not, is the caller's (a failed call
// rejects; nothing here waits for a reconnection).

import { randomUUID } from 'node:crypto';
import type { Admission, LimitCheck, LimitKind, Limiter, LimitState, Ticket } from './limiter.js';
import { take, type Bucket, type BucketResult } from './bucket.js';
import { dailyState, statesOf } from './limit-states.js';
import { SpendCalendar } from '../money/spend-period.js';
import { runScript, type RedisScripting } from '../shared/redis-script.js';

/** The commands this limiter needs of a Redis client (node-redis's, or a test's). */
export type { RedisScripting };

export interface RedisLimiterOptions {
  /** Prefix of every key (a deployment's, or a test run's own). */
  readonly prefix: string;
  /** How long a slot outlives its last renewal (an instance killed mid-request frees it after this). */
  readonly slotTtlMs?: number;
  /** The buckets' period; 60 s. Tests only: a shorter one, documented as such. */
  readonly periodMs?: number;
  /** The calendar clock, epoch ms: which day tokens_per_day counts in (a test's, moved by hand); Date.now without. */
  readonly calendar?: () => number;
}

/** A day's counter outlives its day by this: a request admitted just before midnight is corrected in it after. */
const DAY_KEPT_AFTER_MS = 86_400_000;

const DEFAULT_SLOT_TTL_MS = 30_000;

// The bucket arithmetic of bucket.ts, in integers (exact in Lua's doubles): a level in points at a time.
const REFILL = `
redis.replicate_commands()
local function untilFull(level, limit, period)
  return math.ceil((limit * period - level) / limit)
end
local function refill(level, at, now, limit, period)
  local full = limit * period
  if level == nil then return full, now end
  if now > at then return math.min(full, level + (now - at) * limit), now end
  return level, at
end
`;

// KEYS: for each check, its buckets (a hash: rl, ra = the rpm bucket's level and time; tl, ta = the tpm one's), its
// slots (a sorted set) and its day's token count (a string). ARGV: tokens, slot id, slot ttl, period, then for each
// check: rpm, tpm, concurrency, tokens per day (0: none) and how long to keep a new day's count (ms). Returns
// {admitted (1|0), now, refused check (0: none), refused kind, then per check: rl, ra, tl, ta, slots held, the day's
// tokens}: the counts as they were before this request, which the caller turns into the headers' counts.
const ADMIT = `${REFILL}
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local tokens, slot, ttl, period = tonumber(ARGV[1]), ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4])
local n = #KEYS / 3
local out = {1, tostring(now), 0, ''}
local after = {}
for i = 1, n do
  local rpm, tpm, conc, tpd = tonumber(ARGV[5 * i]), tonumber(ARGV[5 * i + 1]), tonumber(ARGV[5 * i + 2]), tonumber(ARGV[5 * i + 3])
  local f = redis.call('HMGET', KEYS[3 * i - 2], 'rl', 'ra', 'tl', 'ta')
  local held = 0
  if conc > 0 then
    redis.call('ZREMRANGEBYSCORE', KEYS[3 * i - 1], '-inf', now)
    held = redis.call('ZCARD', KEYS[3 * i - 1])
  end
  local used = 0
  if tpd > 0 then used = tonumber(redis.call('GET', KEYS[3 * i]) or '0') end
  out[#out + 1] = f[1] or ''
  out[#out + 1] = f[2] or ''
  out[#out + 1] = f[3] or ''
  out[#out + 1] = f[4] or ''
  out[#out + 1] = held
  out[#out + 1] = used
  if out[1] == 1 then
    local b = {}
    if rpm > 0 then
      local l, a = refill(tonumber(f[1]), tonumber(f[2]), now, rpm, period)
      if l >= period then b.rl, b.ra = l - period, a else out[1], out[3], out[4] = 0, i, 'rpm' end
    end
    if out[1] == 1 and tpm > 0 then
      local l, a = refill(tonumber(f[3]), tonumber(f[4]), now, tpm, period)
      if l >= tokens * period then b.tl, b.ta = l - tokens * period, a else out[1], out[3], out[4] = 0, i, 'tpm' end
    end
    if out[1] == 1 and conc > 0 and held >= conc then out[1], out[3], out[4] = 0, i, 'concurrency' end
    if out[1] == 1 and tpd > 0 and used + tokens > tpd then out[1], out[3], out[4] = 0, i, 'tpd' end
    after[i] = b
  end
end
if out[1] == 0 then return out end
for i = 1, n do
  local b, conc, tpd = after[i], tonumber(ARGV[5 * i + 2]), tonumber(ARGV[5 * i + 3])
  local rpm, tpm = tonumber(ARGV[5 * i]), tonumber(ARGV[5 * i + 1])
  local keep = 0
  if b.rl ~= nil then
    redis.call('HSET', KEYS[3 * i - 2], 'rl', tostring(b.rl), 'ra', tostring(b.ra))
    keep = math.max(keep, untilFull(b.rl, rpm, period))
  end
  if b.tl ~= nil then
    redis.call('HSET', KEYS[3 * i - 2], 'tl', tostring(b.tl), 'ta', tostring(b.ta))
    keep = math.max(keep, untilFull(b.tl, tpm, period))
  end
  -- Kept until full again (a full bucket and no bucket read the same); never shortened below what another field needs.
  if keep > 0 and redis.call('PTTL', KEYS[3 * i - 2]) < keep + ttl then redis.call('PEXPIRE', KEYS[3 * i - 2], keep + ttl) end
  if conc > 0 then
    redis.call('ZADD', KEYS[3 * i - 1], now + ttl, slot)
    redis.call('PEXPIRE', KEYS[3 * i - 1], ttl + 1000)
  end
  if tpd > 0 then
    redis.call('INCRBY', KEYS[3 * i], tokens)
    if redis.call('PTTL', KEYS[3 * i]) < 0 then redis.call('PEXPIRE', KEYS[3 * i], tonumber(ARGV[5 * i + 4])) end
  end
end
return out
`;

// KEYS: as ADMIT's (each day's count the one the request was counted in). ARGV: slot id (or ''), token correction,
// period, then for each check: tpm (0: none), and 1 when its day's count is to be corrected.
const FINISH = `${REFILL}
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local slot, delta, period = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
for i = 1, #KEYS / 3 do
  if slot ~= '' then redis.call('ZREM', KEYS[3 * i - 1], slot) end
  local tpm, daily = tonumber(ARGV[2 + 2 * i]), ARGV[3 + 2 * i]
  if delta ~= 0 and tpm > 0 then
    local f = redis.call('HMGET', KEYS[3 * i - 2], 'tl', 'ta')
    if f[1] then
      local l, a = refill(tonumber(f[1]), tonumber(f[2]), now, tpm, period)
      local level = math.min(tpm * period, l - delta * period)
      redis.call('HSET', KEYS[3 * i - 2], 'tl', tostring(level), 'ta', tostring(a))
      -- A debt is kept until paid: the bucket lives until it is full again.
      local keep = untilFull(level, tpm, period) + 1000
      if redis.call('PTTL', KEYS[3 * i - 2]) < keep then redis.call('PEXPIRE', KEYS[3 * i - 2], keep) end
    end
  end
  -- A day's count that is gone (kept a day past its end) is not made again by a late correction.
  if delta ~= 0 and daily == '1' and redis.call('EXISTS', KEYS[3 * i]) == 1 then
    if redis.call('INCRBY', KEYS[3 * i], delta) < 0 then redis.call('SET', KEYS[3 * i], 0, 'KEEPTTL') end
  end
end
return 1
`;

// KEYS: slot sets. ARGV: slot ttl, then for each key the slot id to renew (only if still there).
const RENEW = `
redis.replicate_commands()
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

// KEYS: one day's count. Through a script as the rest: the limiter needs no other command of its client.
const READ_DAY = `return redis.call('GET', KEYS[1])`;

interface RedisTicket extends Ticket {
  /** This request's slot id in every slot set of its checks with a concurrency limit. */
  readonly slotId: string;
}

export class RedisLimiter implements Limiter {
  readonly #redis: RedisScripting;
  readonly #prefix: string;
  readonly #slotTtlMs: number;
  readonly #periodMs: number;
  readonly #calendar: () => number;
  readonly #days = new SpendCalendar();
  readonly #shas = new Map<string, string>();
  /** Slots of this instance's requests in flight, by slot id: what renew() keeps alive. */
  readonly #held = new Map<string, readonly string[]>();

  constructor(redis: RedisScripting, options: RedisLimiterOptions) {
    this.#redis = redis;
    this.#prefix = options.prefix;
    this.#slotTtlMs = options.slotTtlMs ?? DEFAULT_SLOT_TTL_MS;
    this.#periodMs = options.periodMs ?? 60_000;
    this.#calendar = options.calendar ?? Date.now;
  }

  async admit(checks: readonly LimitCheck[], tokens: number): Promise<Admission> {
    const slotId = randomUUID();
    const today = this.#calendar();
    const args = [String(tokens), slotId, String(this.#slotTtlMs), String(this.#periodMs)];
    const days: (number | null)[] = [];
    const ends: (number | null)[] = [];
    for (const c of checks) {
      const day = c.tpd === undefined ? null : this.#days.bounds(c.tpd.period, today);
      days.push(day === null ? null : day.start);
      ends.push(day === null ? null : day.end);
      args.push(String(c.rpm ?? 0), String(c.tpm ?? 0), String(c.concurrency ?? 0), String(c.tpd?.tokens ?? 0), String(day === null ? 0 : Math.ceil(day.end - today + DAY_KEPT_AFTER_MS)));
    }
    const reply = (await this.#run(ADMIT, this.#keysOf(checks, days), args)) as (string | number)[];
    const admittedNow = reply[0] === 1;
    const now = Number(reply[1]);
    const results: { check: LimitCheck; rpm: BucketResult | null; tpm: BucketResult | null; held: number; used: number }[] = [];
    for (let i = 0; i < checks.length; i++) {
      const check = checks[i] as LimitCheck;
      const at = 4 + 6 * i;
      // The counts the headers show, from the buckets as they were: the script's arithmetic (bucket.ts).
      const rpm = check.rpm === undefined ? null : take(bucketOf(reply[at], reply[at + 1]), now, { limit: check.rpm, periodMs: this.#periodMs }, 1);
      const tpm = check.tpm === undefined ? null : take(bucketOf(reply[at + 2], reply[at + 3]), now, { limit: check.tpm, periodMs: this.#periodMs }, tokens);
      results.push({ check, rpm, tpm, held: Number(reply[at + 4]), used: Number(reply[at + 5]) });
    }
    const statesAt = (i: number, admitted: boolean): LimitState[] => {
      const r = results[i] as (typeof results)[number];
      const states = statesOf(r.check, r.rpm, r.tpm, r.held, admitted);
      const end = ends[i];
      if (r.check.tpd !== undefined && end !== null && end !== undefined) states.push(dailyState(r.check, r.check.tpd.tokens, r.used + (admitted ? tokens : 0), end, today));
      return states;
    };
    if (!admittedNow) {
      const index = Number(reply[2]) - 1;
      const kind = reply[3] as LimitKind;
      const states = results.slice(0, index + 1).flatMap((_, i) => statesAt(i, false));
      const refusedCheck = results[index] as (typeof results)[number];
      const refused = states.find((s) => s.kind === kind && s.label === refusedCheck.check.label) as LimitState;
      const retryAfterMs =
        kind === 'rpm'
          ? (refusedCheck.rpm?.retryAfterMs ?? 1000)
          : kind === 'tpm'
            ? (refusedCheck.tpm?.retryAfterMs ?? 1000)
            : kind === 'tpd'
              ? tokens > (refusedCheck.check.tpd?.tokens ?? 0)
                ? Number.POSITIVE_INFINITY
                : refused.resetMs
              : 1000;
      return { admitted: false, refused, retryAfterMs, requested: kind === 'tpm' || kind === 'tpd' ? tokens : 1, states };
    }
    const states = results.flatMap((_, i) => statesAt(i, true));
    const slots = checks.filter((c) => c.concurrency !== undefined).map((c) => this.#slotsKey(c.subject));
    const ticket: RedisTicket = { checks, tokens, slots, days, slotId };
    if (slots.length > 0) this.#held.set(slotId, slots);
    return { admitted: true, ticket, states };
  }

  async finish(ticket: Ticket, usedTokens: number | null): Promise<void> {
    const { slotId } = ticket as RedisTicket;
    this.#held.delete(slotId);
    const delta = usedTokens === null ? 0 : usedTokens - ticket.tokens;
    if (ticket.slots.length === 0 && delta === 0) return;
    const args = [ticket.slots.length === 0 ? '' : slotId, String(delta), String(this.#periodMs)];
    ticket.checks.forEach((c, i) => args.push(String(c.tpm ?? 0), ticket.days[i] === null ? '0' : '1'));
    await this.#run(FINISH, this.#keysOf(ticket.checks, ticket.days), args);
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

  async usedToday(check: LimitCheck): Promise<number> {
    if (check.tpd === undefined) return 0;
    const { start } = this.#days.bounds(check.tpd.period, this.#calendar());
    return Number((await this.#run(READ_DAY, this.#keysOf([check], [start]).slice(2), [])) ?? 0);
  }

  /** Requests holding a slot of `subject` from this instance. */
  inFlight(subject: string): number {
    const set = this.#slotsKey(subject);
    let n = 0;
    for (const sets of this.#held.values()) if (sets.includes(set)) n++;
    return n;
  }

  /** Each check's bucket, slots and day count (of the day starting at `days[i]`; a name never written without one). */
  #keysOf(checks: readonly LimitCheck[], days: readonly (number | null)[]): string[] {
    const keys: string[] = [];
    checks.forEach((c, i) => {
      const day = days[i];
      keys.push(`${this.#prefix}rl:{${c.subject}}`, this.#slotsKey(c.subject), `${this.#prefix}td:{${c.subject}}:${day === null || day === undefined ? '-' : day}`);
    });
    return keys;
  }

  #slotsKey(subject: string): string {
    return `${this.#prefix}rs:{${subject}}`;
  }

  /** EVALSHA, loading the script on NOSCRIPT (a restarted or flushed Redis). */
  #run(script: string, keys: string[], args: string[]): Promise<unknown> {
    return runScript(this.#redis, this.#shas, script, keys, args);
  }
}

/** A bucket the script returned: none yet ('') reads as full. */
function bucketOf(level: string | number | undefined, at: string | number | undefined): Bucket | undefined {
  return level === undefined || level === '' || at === undefined || at === '' ? undefined : { level: Number(level), at: Number(at) };
}
