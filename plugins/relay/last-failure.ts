// What the caller hears when every channel failed: the last failure, as the right gateway error.

import { GatewayError } from '../../core/errors.js';
import { UpstreamFailure } from '../../core/providers/provider.js';

export type Failure =
  | { readonly kind: 'transport'; readonly error: UpstreamFailure }
  | { readonly kind: 'status'; readonly status: number; readonly retryAfter: number | null }
  /** The request could not be translated for the channel's dialect (nothing was sent). */
  | { readonly kind: 'rejected'; readonly error: GatewayError };

export function reasonOf(failure: Failure): string {
  if (failure.kind === 'rejected') return 'untranslatable';
  return failure.kind === 'transport' ? failure.error.reason : `status_${failure.status}`;
}

export function toClientError(model: string, tried: number, last: Failure): GatewayError {
  if (last.kind === 'rejected') return last.error;
  const prefix = `${tried === 1 ? 'The upstream' : `All ${tried} upstreams`} for model "${model}" failed`;
  if (last.kind === 'transport') {
    const reason = last.error.reason;
    const code = reason === 'timeout' ? 'GW_ERR_UPSTREAM_TIMEOUT' : reason === 'redirect' ? 'GW_ERR_UPSTREAM_ERROR' : 'GW_ERR_UPSTREAM_UNAVAILABLE';
    return new GatewayError(code, `${prefix}: ${last.error.message}.`, { cause: last.error });
  }
  if (last.status === 429) {
    return new GatewayError('GW_ERR_UPSTREAM_RATE_LIMITED', `${prefix}: rate limited upstream; retry later.`, {
      upstreamStatus: 429,
      ...(last.retryAfter === null ? {} : { retryAfter: last.retryAfter }),
    });
  }
  if (last.status === 503 || last.status === 529) {
    // Anthropic's 529 and a 503 say "busy, retry": clients treat overloaded errors that way, not as faults.
    return new GatewayError('GW_ERR_UPSTREAM_OVERLOADED', `${prefix}: the upstream is overloaded (HTTP ${last.status}); retry shortly.`, {
      upstreamStatus: last.status,
      ...(last.retryAfter === null ? {} : { retryAfter: last.retryAfter }),
    });
  }
  return new GatewayError('GW_ERR_UPSTREAM_ERROR', `${prefix}: the upstream answered HTTP ${last.status}.`, {
    upstreamStatus: last.status,
  });
}
