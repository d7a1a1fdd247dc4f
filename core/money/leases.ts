// Balance an instance holds, so a request far from zero is admitted without a database round trip. The instance
// takes holds from the store (LedgerStore.acquireHold: money set aside for it under a row lock, a quarter of what is
// left, in steps of the request), and admits requests against them in memory. Near zero the store grants one
// request's worth per hold, so every admission is decided by the store itself, across instances. A charge draws on
// the hold it was admitted against (the usage record carries the draw, applied in the record's own transaction), all
// of it: what a request cost past its reservation is held at once (the hold grows in the store), so a balance at or
// below zero admits nothing more on any instance, and the overdraft is at most what the requests then in flight
// overrun; what a hold has left unused for a while is given back, and every hold is renewed while the instance
// lives, so the holds of an instance that was killed expire (pricing.reservation_timeout_ms) and their money is
// free again.

import { randomUUID } from 'node:crypto';
import { budgetName, type Budget, type LedgerStore } from '../store/ledger-store.js';
import type { HoldDraw } from '../store/store.js';

/** A hold covers up to this many requests like the one that asked for it (less as the budget nears zero). */
const LEASE_REQUESTS = 1024n;
/** A hold nobody has reserved from for this long gives its unused money back. */
const IDLE_MS = 2000;
/** How often holds are renewed, idle ones returned and expired ones (of dead instances) dropped, at most. */
const TICK_MS = 1000;

interface LocalHold {
  readonly id: string;
  readonly budget: string;
  /** A periodic cap's spend row (Budget's spendId), which the draws on this hold name; undefined otherwise. */
  readonly spendId: string | undefined;
  /** What this instance may still spend from it: granted, less what was charged or given back. */
  held: bigint;
  /** Reserved by requests in flight. */
  reserved: bigint;
  /**
   * Charged on it by requests whose usage records (which carry the draws to the store) are not written yet. Until
   * they are, the store's hold still counts that money: the hold is kept and renewed, never given back or left to
   * expire, or the money would be free to spend again before its charge is written.
   */
  unwritten: bigint;
  lastUsed: number;
  /**
   * Nothing is admitted on it after this (ms, this process's clock): a third of the timeout before the store could
   * count it as expired, measured from its grant or last renewal. An instance whose renewals stall (the store out of
   * reach, the event loop blocked) stops spending money another instance may by then have taken.
   */
  validUntil: number;
  /**
   * Nothing more is admitted on it: its budget went below zero (every instance's holds add up to more than the budget
   * has), and what it had free went back. Requests admitted on it still settle on it; it goes once they are written.
   */
  stopped: boolean;
}

interface BudgetState {
  /** As last asked for (a key's max_spend may change with a reload). */
  budget: Budget;
  readonly holds: LocalHold[];
  /**
   * Overruns being added to this budget's holds in the store. Until the store answers what the budget has left,
   * nothing is admitted on it from memory: an overrun may have taken it below zero.
   */
  growing: Promise<void> | null;
  /** The acquisition under way, which others wanting this budget wait for instead of starting their own. */
  acquiring: Promise<boolean> | null;
}

/** A request's admission: what it set aside, on which hold of each budget. */
export interface Reservation {
  readonly amount: bigint;
  readonly parts: readonly LocalHold[];
}

/** Thrown by reserve(): the budget that does not cover the request. */
export class BudgetRefused extends Error {
  constructor(
    readonly budget: Budget,
    readonly available: bigint,
  ) {
    super(budget.kind === 'account' ? `account "${budget.account}" cannot cover the request` : `the key's max_spend cannot cover the request`);
  }
}

export interface LeasesOptions {
  /** How long a hold outlives its last renewal (the time a killed instance's money stays held). */
  readonly holdTtlMs: number;
  readonly now?: () => number;
  /** Failures of the background renewals (the store unreachable): reported, retried on the next tick. */
  readonly onError?: (err: unknown) => void;
}


export class Leases {
  /** This process: the owner of its holds. */
  readonly owner = `gw-${randomUUID()}`;
  readonly #ledger: LedgerStore;
  readonly #budgets = new Map<string, BudgetState>();
  /** Every hold tracked, by id: where written() finds the hold a record's draw was on. */
  readonly #byId = new Map<string, LocalHold>();
  readonly #now: () => number;
  readonly #onError: (err: unknown) => void;
  #ttlMs: number;
  #timer: NodeJS.Timeout | null = null;
  #ticking = false;
  #closed = false;

  constructor(ledger: LedgerStore, options: LeasesOptions) {
    this.#ledger = ledger;
    this.#ttlMs = options.holdTtlMs;
    this.#now = options.now ?? Date.now;
    this.#onError = options.onError ?? (() => undefined);
  }

  /** A reload may change pricing.reservation_timeout_ms: holds renewed from now on use it. */
  set holdTtlMs(ms: number) {
    if (ms === this.#ttlMs) return;
    this.#ttlMs = ms;
    // The renewals' pace follows the timeout: a shorter one must not let holds expire between two renewals.
    if (this.#timer !== null) {
      clearInterval(this.#timer);
      this.#timer = null;
      this.start();
    }
  }

  /**
   * Sets `amount` aside on every budget, or throws BudgetRefused naming the first that cannot cover it. At once
   * when this instance's holds cover it; otherwise after asking the store for more.
   */
  reserve(budgets: readonly Budget[], amount: bigint): Reservation | Promise<Reservation> {
    const parts: LocalHold[] = [];
    for (let i = 0; i < budgets.length; i++) {
      const hold = this.#takeLocal(budgets[i] as Budget, amount);
      if (hold === null) return this.#reserveSlow(budgets, amount, parts, i);
      parts.push(hold);
    }
    return { amount, parts };
  }

  /**
   * The request ended having cost `cost`: its reservation is released, and the draws its usage record carries (each
   * hold gives up all the request cost). A cost past the reservation comes off the hold at once: from what it has
   * free, and past that the hold grows in the store by the rest, so the balance every instance admits against drops
   * now, not when the record is written; the hold then has nothing free, and the next request asks the store.
   */
  settle(reservation: Reservation, cost: bigint): HoldDraw[] {
    const now = this.#now();
    const draws: HoldDraw[] = [];
    for (const hold of reservation.parts) {
      hold.reserved -= reservation.amount;
      if (cost > 0n) {
        const free = hold.held - hold.reserved;
        if (cost > free) {
          const past = cost - free;
          hold.held += past;
          this.#grow(hold, past);
        }
        hold.held -= cost;
        hold.unwritten += cost;
        // A periodic cap's hold: the charge adds to the spend of the period the request was admitted in.
        draws.push(hold.spendId === undefined ? { holdId: hold.id, amount: cost } : { holdId: hold.id, amount: cost, spendId: hold.spendId });
      }
      hold.lastUsed = now;
      // A stopped hold admits nothing: what the request set aside and did not spend goes back now, not when the last
      // request on the hold (a long stream) has ended.
      if (hold.stopped) void this.#giveBackFree(hold);
    }
    return draws;
  }

  /**
   * Adds `past` to the hold in the store. Meanwhile no hold of its budget admits from memory; where the store answers
   * that the budget is below zero (or cannot answer), none of them admits again: the overdraft stops at the requests
   * already in flight. (The request's record may be written before the growth: its draw then empties the hold, and the
   * growth leaves it holding `past` too much, which errs toward 402 and is freed when the hold is given back.)
   */
  #grow(hold: LocalHold, past: bigint): void {
    const state = this.#budgets.get(hold.budget);
    if (state === undefined) return;
    // Done once the stopped holds' free money is back in the store too: the requests waiting on it then ask the
    // store, which must count that money as free.
    const growth = this.#ledger.growHold(hold.id, state.budget, past, this.#now()).then(
      (available) => (available < 0n ? this.#stop(state.holds) : undefined),
      (err: unknown) => {
        this.#onError(err);
        return this.#stop(state.holds);
      },
    );
    const growing = state.growing === null ? growth : Promise.all([state.growing, growth]).then(() => undefined);
    state.growing = growing;
    void growing.then(() => {
      if (state.growing === growing) state.growing = null;
    });
  }

  /**
   * The budget is below zero: these holds admit nothing more, and what they have free goes back at once (held, it would
   * keep the budget below zero for every instance; given back, the store decides whether anything is left). What the
   * requests in flight on them overrun past their reservations is grown again.
   */
  async #stop(holds: readonly LocalHold[]): Promise<void> {
    const returns: Promise<void>[] = [];
    for (const hold of holds) {
      if (hold.stopped) continue;
      hold.stopped = true;
      returns.push(this.#giveBackFree(hold));
    }
    await Promise.all(returns);
  }

  /** What a hold has neither reserved nor spent goes back to the store. */
  async #giveBackFree(hold: LocalHold): Promise<void> {
    const free = hold.held - hold.reserved;
    if (free <= 0n) return;
    hold.held -= free;
    await this.#ledger.shrinkHold(hold.id, free).catch(this.#onError);
  }

  /** These usage records are written, with their draws: the holds they drew on may be given back once idle. */
  written(records: readonly { readonly draws?: readonly HoldDraw[] | undefined }[]): void {
    for (const record of records) {
      if (record.draws === undefined) continue;
      for (const draw of record.draws) {
        const hold = this.#byId.get(draw.holdId);
        if (hold !== undefined) hold.unwritten -= draw.amount;
      }
    }
  }

  /** Renews, returns and drops in the background from now on. */
  start(): void {
    if (this.#timer !== null || this.#closed) return;
    this.#timer = setInterval(() => void this.tick(), Math.min(TICK_MS, Math.max(100, Math.floor(this.#ttlMs / 3))));
    this.#timer.unref();
  }

  /** One round of upkeep (exported for tests; the timer calls it): renew, then give back what is idle, then drop the dead's. */
  async tick(): Promise<void> {
    if (this.#ticking) return;
    this.#ticking = true;
    try {
      const now = this.#now();
      // The holds this instance tracks now: one granted while the renewal runs is not among them, nor judged by it.
      const tracked = [...this.#budgets.values()].flatMap((state) => state.holds);
      const held = tracked.map((h) => ({ id: h.id, budget: (this.#budgets.get(h.budget) as BudgetState).budget }));
      const { renewed, available } = await this.#ledger.renewHolds(this.owner, held, now, now + this.#ttlMs).catch((err: unknown) => {
        // Unsure whether its holds are still there, or whether their budgets went below zero elsewhere, this instance
        // admits nothing from memory until a renewal answers; every admission asks the store meanwhile.
        for (const hold of tracked) hold.validUntil = 0;
        throw err;
      });
      this.#confirm(tracked, renewed, now);
      // A budget another instance's overruns took below zero: what this one still holds of it admits nothing more.
      await this.#stop(tracked.filter((hold) => (available.get(hold.budget) ?? 0n) < 0n));
      for (const [name, state] of [...this.#budgets]) {
        for (const hold of [...state.holds]) {
          if (hold.reserved === 0n && hold.unwritten === 0n && (hold.stopped || now - hold.lastUsed >= IDLE_MS)) await this.#giveBack(hold);
        }
        // A budget with nothing held is forgotten (the next request asks the store again): a periodic cap is a new
        // budget each period, and the past periods' must not pile up in memory.
        if (state.holds.length === 0 && state.acquiring === null && state.growing === null) this.#budgets.delete(name);
      }
      await this.#ledger.dropExpiredHolds(now);
    } catch (err) {
      this.#onError(err);
    } finally {
      this.#ticking = false;
    }
  }

  /** After a renewal at `now` of `tracked`: those renewed stay admissible; one the store no longer has admits nothing more. */
  #confirm(tracked: readonly LocalHold[], renewed: ReadonlySet<string>, now: number): void {
    const validUntil = now + this.#validFor();
    for (const hold of tracked) {
      if (renewed.has(hold.id)) {
        hold.validUntil = validUntil;
        continue;
      }
      // Gone from the store (expired): requests admitted on it still settle, nothing more is admitted.
      hold.validUntil = 0;
      if (hold.reserved === 0n && hold.unwritten === 0n) this.#forget(hold);
    }
  }

  #forget(hold: LocalHold): void {
    this.#byId.delete(hold.id);
    const holds = this.#budgets.get(hold.budget)?.holds;
    const at = holds?.indexOf(hold) ?? -1;
    if (holds !== undefined && at !== -1) holds.splice(at, 1);
  }

  /**
   * An idle hold goes back: nothing is in flight on it and every draw on it is written, so its row holds only what it
   * has left, and is deleted.
   */
  async #giveBack(hold: LocalHold): Promise<void> {
    hold.held = 0n;
    // Forgotten first, whatever the store answers: a give-back whose answer was lost may have happened, so nothing
    // more is admitted on the hold either way. Not renewed any more, its row (if still there) expires.
    this.#forget(hold);
    await this.#ledger.releaseHold(hold.id);
  }

  /** Stops the upkeep and keeps every hold: they expire after the timeout (the usage records drawing on them were not written). */
  abandon(): void {
    this.#closed = true;
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#timer = null;
  }

  /** Stops the upkeep and deletes every hold of this instance: call once its usage records are written. */
  async close(): Promise<void> {
    this.#closed = true;
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#timer = null;
    this.#budgets.clear();
    this.#byId.clear();
    await this.#ledger.releaseHolds(this.owner);
  }

  /** How long after a grant or renewal a hold may be admitted on: two thirds of the timeout. */
  #validFor(): number {
    return Math.floor((this.#ttlMs * 2) / 3);
  }

  #takeLocal(budget: Budget, amount: bigint): LocalHold | null {
    const state = this.#budgets.get(budgetName(budget));
    if (state === undefined || state.growing !== null) return null;
    // As the request names it: a reload may have changed a key's max_spend, which growths and renewals check against.
    state.budget = budget;
    const now = this.#now();
    for (const hold of state.holds) {
      if (hold.held - hold.reserved >= amount && hold.validUntil > now && !hold.stopped) {
        hold.reserved += amount;
        return hold;
      }
    }
    return null;
  }

  async #reserveSlow(budgets: readonly Budget[], amount: bigint, parts: LocalHold[], from: number): Promise<Reservation> {
    try {
      for (let i = from; i < budgets.length; i++) {
        const budget = budgets[i] as Budget;
        const key = budgetName(budget);
        for (;;) {
          const hold = this.#takeLocal(budget, amount);
          if (hold !== null) {
            parts.push(hold);
            break;
          }
          const growing = this.#budgets.get(key)?.growing;
          if (growing !== null && growing !== undefined) await growing;
          else await this.#acquire(budget, key, amount);
        }
      }
      return { amount, parts };
    } catch (err) {
      // What was taken on the other budgets goes back.
      for (const hold of parts) hold.reserved -= amount;
      throw err;
    }
  }

  /** Asks the store for a hold on `budget`; resolves once one was added, or throws BudgetRefused. */
  async #acquire(budget: Budget, key: string, amount: bigint): Promise<void> {
    let state = this.#budgets.get(key);
    if (state === undefined) {
      state = { budget, holds: [], acquiring: null, growing: null };
      this.#budgets.set(key, state);
    }
    state.budget = budget;
    // One acquisition per budget at a time: the others wait for it and then look again.
    if (state.acquiring !== null) {
      await state.acquiring.catch(() => false);
      return;
    }
    const now = this.#now();
    const acquiring = this.#ledger
      .acquireHold({ budget, min: amount, want: amount * LEASE_REQUESTS, owner: this.owner, now, expiresAt: now + this.#ttlMs })
      .then((result) => {
        if (!result.granted) throw new BudgetRefused(budget, result.available);
        const spendId = budget.kind === 'key' ? budget.spendId : undefined;
        const hold: LocalHold = { id: result.holdId, budget: key, spendId, held: result.amount, reserved: 0n, unwritten: 0n, lastUsed: now, validUntil: now + this.#validFor(), stopped: false };
        (state as BudgetState).holds.push(hold);
        this.#byId.set(hold.id, hold);
        return true;
      });
    state.acquiring = acquiring;
    try {
      await acquiring;
    } finally {
      state.acquiring = null;
    }
  }
}
