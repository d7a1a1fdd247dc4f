// POST /console/api/topup/redeem: a signed-in user of an account redeems a code into that account. Failed attempts
// are limited per user and per client address through the gateway's Limiter (shared by the fleet with Redis), as
// sign-ins are: each attempt takes one from both buckets, a success gives it back, and an attempt finding either
// empty is refused (429, retry-after) before the code is looked up. With 130-bit codes and five guesses a minute per
// user and per address, guessing one is not practical.

import { GatewayError } from '../../core/errors.js';
import { addressKey } from '../../core/console/sign-in.js';
import { consoleJson } from '../../core/console/console-answer.js';
import { sessionOf } from '../../core/console/session-slot.js';
import type { LimitCheck, Limiter, Ticket } from '../../core/limits/limiter.js';
import { describeEntry } from '../../core/money/account-admin.js';
import { formatMoney } from '../../core/money/decimal.js';
import { BalanceOverflowError } from '../../core/store/ledger-store.js';
import type { RequestContext } from '../../core/pipeline/context.js';
import type { GatewayServices, RelayResult } from '../../core/pipeline/plugin.js';
import { digestCode, maskedCode, normalizeCode } from './code-material.js';
import { TOPUP_ERRORS } from './errors.js';
import { shownCode } from './shown.js';
import { TOPUP_STORE } from './store-part.js';
import type { Redemption, TopupCode } from './topup-store.js';

/** Failed redemptions allowed per user and per address: five at once, then one every 12 s as the bucket refills. */
export const REDEEM_FAILURES_PER_MINUTE = 5;

/** Failure buckets: tpm, not rpm, because a success gives its token back and a request's count cannot be. */
function buckets(userId: string, address: string): LimitCheck[] {
  const bucket = (subject: string): LimitCheck => ({ subject: `topup-redeem:${subject}`, scope: 'key', label: 'top-up code redemptions', tpm: REDEEM_FAILURES_PER_MINUTE });
  return [bucket(`user:${userId}`), bucket(`address:${addressKey(address)}`)];
}

async function admit(limiter: Limiter, checks: readonly LimitCheck[]): Promise<Ticket> {
  const admission = await limiter.admit(checks, 1);
  if (admission.admitted) return admission.ticket;
  const retryAfter = Math.max(1, Math.ceil(admission.retryAfterMs / 1000));
  throw new GatewayError('GW_ERR_RATE_LIMITED', `Too many failed top-up codes; try again in ${retryAfter} s.`, { retryAfter });
}

const REFUSALS = {
  unknown: () => new GatewayError(TOPUP_ERRORS.GW_ERR_TOPUP_CODE_INVALID, 'This is not a valid top-up code.', { param: 'code' }),
  used: () => new GatewayError(TOPUP_ERRORS.GW_ERR_TOPUP_CODE_USED, 'This top-up code was already redeemed.', { param: 'code' }),
  expired: () => new GatewayError(TOPUP_ERRORS.GW_ERR_TOPUP_CODE_EXPIRED, 'This top-up code has expired.', { param: 'code' }),
  disabled: () => new GatewayError(TOPUP_ERRORS.GW_ERR_TOPUP_CODE_DISABLED, 'This top-up code was disabled.', { param: 'code' }),
} as const;

/** The ledger entry's note: the code by its id and masked form (never its secret), and its batch. */
function noteOf(code: TopupCode): string {
  return `top-up code ${code.id} (${maskedCode(code.last4)}) of batch ${code.batchId}`;
}

export async function redeemAnswer(ctx: RequestContext, services: GatewayServices): Promise<RelayResult> {
  const { user } = sessionOf(ctx);
  const account = user.account;
  if (account === null) throw new GatewayError(TOPUP_ERRORS.GW_ERR_TOPUP_NO_ACCOUNT, 'The operator has no balance: a code is redeemed by a user of the account it credits.');
  const ticket = await admit(services.limiter, buckets(user.id, ctx.clientAddress));
  let redeemed = false;
  try {
    const text = ctx.request.head['code'];
    const normalized = typeof text === 'string' ? normalizeCode(text) : null;
    if (normalized === null) throw REFUSALS.unknown();
    const now = Date.now();
    let result: Redemption;
    try {
      result = await services.store.part(TOPUP_STORE).redeem(digestCode(normalized), { account, user: user.name }, now, noteOf);
    } catch (err) {
      // Rolled back whole: the code stays unredeemed.
      if (err instanceof BalanceOverflowError) throw new GatewayError('GW_ERR_REQUEST_INVALID_FIELD', 'This code would take your balance past the most an account holds; ask the operator.', { param: 'code' });
      throw err;
    }
    if (result.outcome !== 'redeemed') throw REFUSALS[result.outcome]();
    redeemed = true;
    const balance = (await services.store.ledger.getAccount(account))?.balance ?? 0n;
    const currency = services.config.pricing.currency;
    return consoleJson(200, {
      code: shownCode(result.code, currency, now),
      entry: describeEntry(result.entry),
      account: { name: account, balance: formatMoney(balance), currency },
    });
  } finally {
    await services.limiter.finish(ticket, redeemed ? 0 : 1);
  }
}
