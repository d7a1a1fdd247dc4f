// Whether a request carries an operator's token (admin, metrics) as `Authorization: Bearer <token>`.

import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

export function carriesToken(req: IncomingMessage, token: string): boolean {
  const presented = /^bearer\s+(.+)$/i.exec(req.headers.authorization ?? '')?.[1] ?? '';
  // Digests have equal length, so the comparison is constant-time whatever was presented.
  return timingSafeEqual(digest(presented), digest(token));
}
