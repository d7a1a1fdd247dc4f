// Reading the console API's query parameters: times, page sizes. An empty parameter is an absent one (a form's
// empty field), and every refusal names its parameter.

import { GatewayError } from '../errors.js';
import { parseIsoTime } from '../iso-time.js';

export const HOUR_MS = 3_600_000;
export const DAY_MS = 24 * HOUR_MS;

export function invalid(param: string, message: string): GatewayError {
  return new GatewayError('GW_ERR_REQUEST_INVALID_FIELD', message, { param });
}

/** An ISO date, or a time with its offset; `fallback` when absent. */
export function timeParam(query: URLSearchParams, name: string, fallback: number): number {
  // A `+` of an offset arrives as a space when the caller did not escape it (%2B).
  const text = query.get(name)?.replace(' ', '+') ?? '';
  if (text === '') return fallback;
  const at = parseIsoTime(text);
  if (at === null) throw invalid(name, `${name} must be an ISO 8601 date, or a time with its offset (Z or +01:00).`);
  return at;
}

/** A page size from 1 to `max`; `fallback` when absent. */
export function limitParam(query: URLSearchParams, max: number, fallback: number): number {
  const text = query.get('limit') ?? '';
  if (text === '') return fallback;
  const n = Number(text);
  if (!/^[0-9]+$/.test(text) || n < 1 || n > max) throw invalid('limit', `limit must be an integer from 1 to ${max}.`);
  return n;
}

/** Where an offset-paged list (a feature's records) starts: a whole number, 0 when absent. */
export function offsetParam(query: URLSearchParams): number {
  const text = query.get('offset') ?? '';
  if (text === '') return 0;
  const n = Number(text);
  if (!/^[0-9]+$/.test(text) || !Number.isSafeInteger(n)) throw invalid('offset', 'offset must be a whole number from 0.');
  return n;
}
