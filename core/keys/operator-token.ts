// Whether a request carries an operator's token (admin, metrics) as `Authorization: Bearer <token>`.

import { createHash, timingSafeEqual } from 'node:crypto';

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

export function carriesToken(headers: { readonly authorization?: string | string[] | undefined }, token: string): boolean {
  const header = headers.authorization;
  const presented = /^bearer\s+(.+)$/i.exec(typeof header === 'string' ? header : '')?.[1] ?? '';
  // Digests have equal length, so the comparison is constant-time whatever was presented.
  return timingSafeEqual(digest(presented), digest(token));
}
