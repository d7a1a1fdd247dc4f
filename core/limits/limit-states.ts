// Where each limit of one check stands, for the answer's headers and a refusal's message: shared by the limiters.

import type { BucketResult } from './bucket.js';
import type { LimitCheck, LimitKind, LimitState } from './limiter.js';

/** The states of one check: after this request when admitted, else as they stand. */
export function statesOf(check: LimitCheck, rpm: BucketResult | null, tpm: BucketResult | null, held: number, admitted: boolean): LimitState[] {
  const states: LimitState[] = [];
  if (rpm !== null && check.rpm !== undefined) states.push(stateOf('rpm', check, check.rpm, admitted ? rpm.remaining : rpm.remainingBefore, rpm.resetMs));
  if (tpm !== null && check.tpm !== undefined) states.push(stateOf('tpm', check, check.tpm, admitted ? tpm.remaining : tpm.remainingBefore, tpm.resetMs));
  if (check.concurrency !== undefined) states.push(stateOf('concurrency', check, check.concurrency, Math.max(0, check.concurrency - held - (admitted ? 1 : 0)), 0));
  return states;
}

function stateOf(kind: LimitKind, check: LimitCheck, limit: number, remaining: number, resetMs: number): LimitState {
  return { kind, scope: check.scope, label: check.label, limit, remaining, resetMs };
}

/** tokens_per_day's state: what is left of the day's tokens after `used`, until the day ends at `end` (epoch ms). */
export function dailyState(check: LimitCheck, limit: number, used: number, end: number, today: number): LimitState {
  return Object.assign(stateOf('tpd', check, limit, Math.max(0, limit - used), Math.max(0, end - today)), { resetsAt: end, period: check.tpd?.period.unit ?? 'day' });
}
