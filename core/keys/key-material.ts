// Gateway key material: generation, digest and display prefix. Keys are stored and compared only as digests.

import { createHash, randomBytes, randomUUID } from 'node:crypto';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** `sk-` and 40 base62 characters (~238 bits); rejection sampling keeps every character uniform. */
export function generateKey(): string {
  let out = 'sk-';
  while (out.length < 43) {
    for (const byte of randomBytes(48)) {
      if (byte < 248 && out.length < 43) out += ALPHABET[byte % 62];
    }
  }
  return out;
}

export function digestKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** Enough to recognise a key in a list, far too little to use it. */
export function keyPrefix(key: string): string {
  return key.slice(0, 7);
}

export function newKeyId(): string {
  return `key_${randomUUID().replace(/-/g, '').slice(0, 16)}`;
}
