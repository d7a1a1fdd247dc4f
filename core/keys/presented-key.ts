// The key a caller presents: `Authorization: Bearer sk-...` or `x-api-key: sk-...`; both present must agree.

import { GatewayError } from '../errors.js';

type Headers = Readonly<Record<string, string | string[] | undefined>>;

function first(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** Throws a 401 GatewayError when no key is presented, or when the two headers disagree. */
export function presentedKey(headers: Headers): string {
  const authorization = first(headers['authorization']);
  const match = authorization === undefined ? null : /^bearer\s+(.+)$/i.exec(authorization.trim());
  const bearer = match?.[1]?.trim();
  const apiKey = first(headers['x-api-key'])?.trim();
  if (bearer !== undefined && apiKey !== undefined && apiKey !== '' && bearer !== apiKey) {
    throw new GatewayError(
      'GW_ERR_AUTH_KEY_CONFLICT',
      'The Authorization header and the x-api-key header name different API keys.',
    );
  }
  const key = bearer ?? apiKey;
  if (key === undefined || key === '') {
    throw new GatewayError(
      'GW_ERR_AUTH_MISSING_KEY',
      "You didn't provide an API key. Send it as 'Authorization: Bearer sk-...' or in an 'x-api-key' header.",
    );
  }
  return key;
}
