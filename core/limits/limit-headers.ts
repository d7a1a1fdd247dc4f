// The rate-limit headers clients read to pace themselves, on every answer of a limited key: OpenAI's on the OpenAI
// routes (x-ratelimit-limit-requests, -remaining-, -reset-, and the -tokens ones; resets as durations such as "6s",
// "1m0s", "644ms"), Anthropic's on its own (anthropic-ratelimit-requests-limit, -remaining, -reset as an RFC 3339
// time, and the -tokens ones). Of several limits of one kind (a key's, its account's), the one with the least left.

import type { LimitState } from './limiter.js';

/** OpenAI's duration notation: "644ms", "6s", "1m30s", "5h2m0s". */
export function openAIDuration(ms: number): string {
  if (ms < 1000) return `${Math.max(0, Math.ceil(ms))}ms`;
  const seconds = Math.ceil(ms / 1000);
  if (seconds < 60) return `${seconds}s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m${seconds % 60}s`;
  return `${Math.floor(seconds / 3600)}h${Math.floor((seconds % 3600) / 60)}m${seconds % 60}s`;
}

function tightest(states: readonly LimitState[], kind: 'rpm' | 'tpm'): LimitState | undefined {
  let found: LimitState | undefined;
  for (const state of states) if (state.kind === kind && (found === undefined || state.remaining < found.remaining)) found = state;
  return found;
}

/** The headers for `states` in the shape of the route's API; null when no rate (rpm, tpm) applies. */
export function limitHeaders(states: readonly LimitState[], anthropic: boolean, now: number): Record<string, string> | null {
  const requests = tightest(states, 'rpm');
  const tokens = tightest(states, 'tpm');
  if (requests === undefined && tokens === undefined) return null;
  const headers: Record<string, string> = {};
  for (const [state, noun] of [
    [requests, 'requests'],
    [tokens, 'tokens'],
  ] as const) {
    if (state === undefined) continue;
    if (anthropic) {
      headers[`anthropic-ratelimit-${noun}-limit`] = String(state.limit);
      headers[`anthropic-ratelimit-${noun}-remaining`] = String(state.remaining);
      headers[`anthropic-ratelimit-${noun}-reset`] = new Date(Math.ceil((now + state.resetMs) / 1000) * 1000).toISOString().replace('.000Z', 'Z');
    } else {
      headers[`x-ratelimit-limit-${noun}`] = String(state.limit);
      headers[`x-ratelimit-remaining-${noun}`] = String(state.remaining);
      headers[`x-ratelimit-reset-${noun}`] = openAIDuration(state.resetMs);
    }
  }
  return headers;
}
