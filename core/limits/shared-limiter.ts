// Limits shared through Redis, with the policy for when Redis cannot answer: no request waits on it longer than
// `timeoutMs`; then `closed` answers 503 (in the caller's shape), `open` admits under this process's own limits,
// each the shared one divided by the instances last seen alive (so the fleet stays near the limit, not instances
// times it). Either way the failure is reported once per outage, and counted. A request admitted on Redis is
// finished there (a failure leaves its slot to expire); one admitted locally, locally.

import { GatewayError } from '../errors.js';
import type { RedisGate } from '../shared/redis-gate.js';
import { RedisTimeout, within } from '../shared/within.js';
import type { Admission, LimitCheck, Limiter, Ticket } from './limiter.js';
import type { MemoryLimiter } from './memory-limiter.js';
import type { RedisLimiter } from './redis-limiter.js';

export interface SharedLimiterOptions {
  readonly onFailure: 'open' | 'closed';
  /** The longest a request waits on Redis, ms. */
  readonly timeoutMs: number;
  /** Instances alive when Redis last said (at least 1). */
  readonly liveInstances: () => number;
  /** Redis failed (every failure: the caller counts them; `first` when it was answering before). */
  readonly onError: (err: unknown, first: boolean) => void;
  /** Redis answered again after failing. */
  readonly onRecovered?: () => void;
  /** Whether to wait on Redis at all now (one that timed out is only probed); always, without. */
  readonly gate?: RedisGate;
}

/**
 * How long a shutdown waits for Redis to answer the last requests' ends. Longer than a request's wait: nobody waits
 * on it but the exit, and a Redis slower than the request's bound (a loaded host) still frees the slots it is sent.
 */
const SETTLE_MS = 1000;

/** Tickets admitted by this process's own limiter while Redis was out. */
const LOCAL = Symbol('local');
type LocalTicket = Ticket & { readonly [LOCAL]: true };

export class SharedLimiter implements Limiter {
  readonly #redis: RedisLimiter;
  readonly #local: MemoryLimiter;
  readonly #options: SharedLimiterOptions;
  #failing = false;
  readonly #finishing = new Set<Promise<void>>();

  constructor(redis: RedisLimiter, local: MemoryLimiter, options: SharedLimiterOptions) {
    this.#redis = redis;
    this.#local = local;
    this.#options = options;
  }

  async admit(checks: readonly LimitCheck[], tokens: number): Promise<Admission> {
    const gate = this.#options.gate;
    if (gate !== undefined && !gate.open()) return this.#withoutRedis(checks, tokens, new Error('Redis is not connected or not answering'));
    const pending = this.#redis.admit(checks, tokens);
    try {
      const admission = await within(pending, this.#options.timeoutMs);
      gate?.answered();
      if (this.#failing) {
        this.#failing = false;
        this.#options.onRecovered?.();
      }
      return admission;
    } catch (err) {
      // An answer that comes after the timeout may have admitted the request there: nobody holds that ticket, so
      // its slot goes back at once (and its tokens: it was not served on them).
      pending.then(
        (late) => {
          if (late.admitted) this.#redis.finish(late.ticket, 0).catch(() => undefined);
        },
        () => undefined,
      );
      if (err instanceof RedisTimeout) gate?.timedOut();
      return this.#withoutRedis(checks, tokens, err);
    }
  }

  /** Redis failed, or is not to be waited on: `closed` refuses, `open` admits under this instance's share. */
  #withoutRedis(checks: readonly LimitCheck[], tokens: number, err: unknown): Admission {
    this.#options.onError(err, !this.#failing);
    this.#failing = true;
    // A calendar cap is a quota, exact as max_spend is: an instance cannot know what the fleet counted today, so a
    // request under one waits for Redis whatever on_failure says (counting a share from zero would give a key a
    // whole extra day, and the tokens counted here would never reach Redis's count).
    if (this.#options.onFailure === 'closed' || checks.some((c) => c.tpd !== undefined)) {
      throw unavailable(err);
    }
    const share = Math.max(1, this.#options.liveInstances());
    const local = this.#local.admit(checks.map((c) => divided(c, share)), tokens);
    return local.admitted ? { admitted: true, ticket: Object.assign({}, local.ticket, { [LOCAL]: true as const }), states: local.states } : local;
  }

  finish(ticket: Ticket, usedTokens: number | null): Promise<void> {
    if ((ticket as Partial<LocalTicket>)[LOCAL] === true) {
      this.#local.finish(ticket, usedTokens);
      return Promise.resolve();
    }
    // Sent even while the gate is closed: RedisLimiter stops renewing the slot either way (it expires if not freed).
    const sent = this.#redis.finish(ticket, usedTokens);
    const done = within(sent, this.#options.timeoutMs).catch((err: unknown) => {
      // Its slot expires by itself; its correction is lost.
      if (err instanceof RedisTimeout) this.#options.gate?.timedOut();
      this.#options.onError(err, !this.#failing);
      this.#failing = true;
    });
    // Kept until answered, so that a shutdown frees the last requests' slots before it closes the connection: the
    // answer itself, which may come after the request stopped waiting for it.
    const answered = within(sent, SETTLE_MS).catch(() => undefined);
    this.#finishing.add(answered);
    void answered.finally(() => this.#finishing.delete(answered));
    return done;
  }

  /** Resolves once every finish sent to Redis has been answered (each waited for at most SETTLE_MS). */
  async settled(): Promise<void> {
    await Promise.all([...this.#finishing]);
  }

  /** Redis's count; this instance's own while Redis does not answer (what it admits meanwhile). */
  async usedToday(check: LimitCheck): Promise<number> {
    if (this.#options.gate !== undefined && !this.#options.gate.open()) throw unavailable(new Error('Redis is not connected or not answering'));
    try {
      return await within(this.#redis.usedToday(check), this.#options.timeoutMs);
    } catch (err) {
      if (err instanceof RedisTimeout) this.#options.gate?.timedOut();
      this.#options.onError(err, !this.#failing);
      this.#failing = true;
      throw unavailable(err);
    }
  }

  inFlight(subject: string): number {
    return this.#redis.inFlight(subject) + this.#local.inFlight(subject);
  }
}

/** A check's limits divided among `share` instances (rounded up: never below 1). */
function divided(check: LimitCheck, share: number): LimitCheck {
  if (share === 1) return check;
  const part = (n: number | undefined): number | undefined => (n === undefined ? undefined : Math.max(1, Math.ceil(n / share)));
  const tpd = check.tpd === undefined ? undefined : { tokens: part(check.tpd.tokens) as number, period: check.tpd.period };
  return Object.assign({}, check, { rpm: part(check.rpm), tpm: part(check.tpm), concurrency: part(check.concurrency), tpd });
}

function unavailable(cause: unknown): GatewayError {
  return new GatewayError('GW_ERR_LIMITS_UNAVAILABLE', 'The gateway cannot check rate limits right now; retry shortly.', { cause, retryAfter: 1 });
}
