// The key a caller presents: `Authorization: Bearer sk-...`, `x-api-key: sk-...` (Anthropic's SDKs) or
// `x-goog-api-key: sk-...` (Google's); all those present must agree.

import { GatewayError } from '../errors.js';

type Headers = Readonly<Record<string, string | string[] | undefined>>;

function first(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** The headers a key may come in, each with the words of a refusal that names it. */
const KEY_HEADERS: readonly { readonly name: string; readonly label: string }[] = [
  { name: 'x-api-key', label: 'x-api-key' },
  { name: 'x-goog-api-key', label: 'x-goog-api-key' },
];

/**
 * Throws a 401 GatewayError when no key is presented, or when two of the places it may come in disagree.
 * `fallback`: a key from elsewhere (a route's `?key=` query parameter), taken only when no header names one.
 */
export function presentedKey(headers: Headers, fallback?: string): string {
  const authorization = first(headers['authorization']);
  const match = authorization === undefined ? null : /^bearer\s+(.+)$/i.exec(authorization.trim());
  let key = match?.[1]?.trim();
  let from = 'Authorization';
  for (const header of KEY_HEADERS) {
    const value = first(headers[header.name])?.trim();
    if (value === undefined || value === '') continue;
    if (key !== undefined && key !== value) {
      throw new GatewayError('GW_ERR_AUTH_KEY_CONFLICT', `The ${from} header and the ${header.label} header name different API keys.`);
    }
    key = value;
    from = header.label;
  }
  key ??= fallback;
  if (key === undefined || key === '') {
    throw new GatewayError(
      'GW_ERR_AUTH_MISSING_KEY',
      "You didn't provide an API key. Send it as 'Authorization: Bearer sk-...' or in an 'x-api-key' header.",
    );
  }
  return key;
}
