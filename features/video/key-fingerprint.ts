// Which upstream key made a task, without keeping the key: the first 16 hex digits of its SHA-256. A task is read,
// cancelled and downloaded with the key that made it (a channel's keys may belong to different Ark projects).

import { createHash } from 'node:crypto';

export function keyFingerprint(key: string): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 16);
}
