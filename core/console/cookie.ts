// The console's session cookie: HttpOnly (no script reads it), SameSite=Strict (no other site's page sends it),
// Path=/console, Secure when the request came over HTTPS (directly or through a proxy that says so).

import type { HeaderValue } from '../pipeline/context.js';

type Headers = Readonly<Record<string, HeaderValue>>;

export const COOKIE = 'gw_console';

/** The session token the request's Cookie header carries, or ''. */
export function sessionToken(headers: Headers): string {
  const header = headers['cookie'];
  const text = Array.isArray(header) ? header.join('; ') : (header ?? '');
  const found: string[] = [];
  for (const part of text.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === COOKIE) found.push(part.slice(eq + 1).trim());
  }
  // Two of them: one was planted (a sibling subdomain can set a cookie for this host); trust neither.
  return found.length === 1 ? (found[0] ?? '') : '';
}

/** Set-Cookie for a session token (`maxAgeS` 0 ends it). */
export function sessionCookie(headers: Headers, token: string, maxAgeS: number): string {
  const secure = headers['x-forwarded-proto'] === 'https' ? '; Secure' : '';
  return `${COOKIE}=${token}; Path=/console; HttpOnly; SameSite=Strict; Max-Age=${maxAgeS}${secure}`;
}
