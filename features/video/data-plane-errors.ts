// How a call to Ark's data plane (or to a video file's host) fails, as a VideoUpstreamError: Ark's own error body
// when it sent one, bounded and scrubbed of the key; a transport failure as `unavailable`. No message names the
// key, the Authorization header or a file's URL (its query is a signature).

import { errors as undiciErrors } from 'undici';
import { VideoUpstreamError } from './upstream.js';
import { scrubSecrets } from '../../core/scrub-secrets.js';

/** Longest message kept from an upstream's text: enough to read, too little to relay a page of HTML. */
export const MAX_MESSAGE_CHARS = 500;
export const MAX_CODE_CHARS = 100;

/** `text` cut to `max` characters (an ellipsis says it was). */
export function bounded(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/**
 * A non-2xx answer: `refused` for a 4xx but 408 and 429 (the request is wrong, so another channel would refuse it
 * too), else `unavailable`. Code and message from Ark's `{"error":{"code","message","param","type"}}`.
 */
export function answerError(status: number, text: string, key: string): VideoUpstreamError {
  const refused = status >= 400 && status < 500 && status !== 408 && status !== 429;
  const error = errorMember(text);
  const code = typeof error?.['code'] === 'string' && error['code'] !== '' ? error['code'] : 'UpstreamError';
  const said = typeof error?.['message'] === 'string' && error['message'] !== '' ? error['message'] : `Ark answered HTTP ${status}`;
  // Scrubbed before it is cut: half a key is no longer recognised as one.
  const message = bounded(scrubSecrets(said, [key]), MAX_MESSAGE_CHARS);
  return new VideoUpstreamError(refused ? 'refused' : 'unavailable', status >= 400 ? status : 502, bounded(code, MAX_CODE_CHARS), message);
}

/** An answer that is not what the API promises (a 2xx that is not JSON, an unknown status): the upstream is broken. */
export function protocolError(message: string): VideoUpstreamError {
  return new VideoUpstreamError('unavailable', 502, 'UpstreamError', message);
}

/**
 * A failed request or body read, by what failed: `who` names the peer ("Ark"). An abort is the caller's own doing,
 * not the upstream's failure: it is rethrown as it came.
 */
export function transportError(err: unknown, signal: AbortSignal, who: string): unknown {
  if (signal.aborted || err instanceof VideoUpstreamError) return err;
  if (err instanceof undiciErrors.HeadersTimeoutError || err instanceof undiciErrors.BodyTimeoutError || err instanceof undiciErrors.ConnectTimeoutError) {
    return new VideoUpstreamError('unavailable', 502, 'UpstreamTimeout', `${who} did not answer in time`, { cause: err });
  }
  if (err instanceof undiciErrors.UndiciError) {
    return new VideoUpstreamError('unavailable', 502, 'UpstreamUnavailable', `${who}'s connection failed (${err.code})`, { cause: err });
  }
  const code = (err as { code?: unknown } | null)?.code;
  const why = typeof code === 'string' ? code : err instanceof Error ? err.name : 'unknown error';
  return new VideoUpstreamError('unavailable', 502, 'UpstreamUnavailable', `${who} could not be reached (${why})`, { cause: err });
}

/** The `error` object of an error body, or null when the body is not JSON or has none. */
function errorMember(text: string): Readonly<Record<string, unknown>> | null {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return null;
  }
  const error = isObject(json) ? json['error'] : null;
  return isObject(error) ? error : null;
}

export function isObject(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
