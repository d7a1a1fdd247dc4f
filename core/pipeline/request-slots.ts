// The slots the built-in plugins hand one another a request's money and usage through (slot.ts). Each plugin
// declares which it provides, requires and reads, in which phase (PluginFactory), and the chain builder checks from
// those declarations that what one reads is provided earlier (pipeline/build.ts).

import type { Usage } from '../ir/usage.js';
import type { HoldDraw, UsageAttempt } from '../store/store.js';
import { slot, type Slot } from '../slot.js';

/** A request's price, for its usage record (core/money). */
export interface Charge {
  /** Nano-units. */
  readonly cost: bigint;
  readonly priceVersion: string;
  /** The account charged; absent for an unmetered key (its cost is recorded, not charged). */
  readonly account?: string;
  /** The holds the charge uses up (money/leases.ts). */
  readonly draws: readonly HoldDraw[];
  /** The output tokens were estimated from what was delivered. */
  readonly estimated: boolean;
}

/** The usage the upstream reported (meter reads it from the answer), or the estimate that replaced it (quota). */
export const USAGE: Slot<Usage> = slot('usage');
/** The stream's final usage was read (FrameUsage.final): a cut after it needs no estimate. */
export const USAGE_FINAL: Slot<true> = slot('usage-final');
/** What the request cost and who pays (quota, at its finish), for the usage record. */
export const CHARGE: Slot<Charge> = slot('charge');
/**
 * The output cap reserved for a request that named none (pricing.default_output_reserve; quota): a translated
 * request carries it upstream, so the upstream writes no more than was paid for.
 */
export const OUTPUT_RESERVE: Slot<number> = slot('output-reserve');
/**
 * The request's upstream attempts (relay), for its usage record: set on the first failure only (then every later
 * attempt is added, the one that answered too), so the usual single attempt that succeeds allocates nothing.
 */
export const ATTEMPTS: Slot<UsageAttempt[]> = slot('attempts');
/**
 * What the request made or acted on, `<kind>:<id>` (a task it started, a stored thing it made): set by its route's handler, kept in its
 * usage record, linked from the console's request detail.
 */
export const SUBJECT: Slot<string> = slot('subject');
