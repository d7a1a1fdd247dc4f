// Top-up code material: made with 130 random bits (26 Crockford base32 characters: no I, L, O or U to misread),
// stored and compared only as a digest, shown whole once and masked after. What a person types is normalised first
// (case, spaces and dashes, and the letters Crockford reads as digits), so a code read aloud or retyped still works.

import { hash, randomBytes, randomUUID } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const PREFIX = 'TOPUP';
const LENGTH = 26;
const GROUPS = [5, 5, 5, 5, 6] as const;
const BODY = /^[0-9A-HJKMNP-TV-Z]{26}$/;

/** A new code as shown to the operator: `TOPUP-XXXXX-XXXXX-XXXXX-XXXXX-XXXXXX`. */
export function generateCode(): string {
  // 32 symbols divide 256: every character is uniform, 5 bits each.
  const body = Array.from(randomBytes(LENGTH), (byte) => ALPHABET[byte % 32]).join('');
  const parts: string[] = [PREFIX];
  let at = 0;
  for (const size of GROUPS) {
    parts.push(body.slice(at, at + size));
    at += size;
  }
  return parts.join('-');
}

/** A code as typed, in its one stored form (`TOPUP` and the 26 characters), or null when it cannot be one. */
export function normalizeCode(text: string): string | null {
  if (text.length > 100) return null;
  const compact = text.toUpperCase().replace(/[\s-]/g, '');
  if (!compact.startsWith(PREFIX)) return null;
  const body = compact.slice(PREFIX.length).replace(/O/g, '0').replace(/[IL]/g, '1');
  return BODY.test(body) ? PREFIX + body : null;
}

/** Hex SHA-256 of a normalised code: what the store keeps and looks up. */
export function digestCode(normalized: string): string {
  return hash('sha256', normalized, 'hex');
}

/** The last four characters: enough to tell codes apart in a list, 108 bits short of using one. */
export function lastFour(normalized: string): string {
  return normalized.slice(-4);
}

export function maskedCode(last4: string): string {
  return `${PREFIX}-****-${last4}`;
}

export function newBatchId(): string {
  return `tb_${randomUUID().replace(/-/g, '').slice(0, 16)}`;
}

export function newCodeId(): string {
  return `tc_${randomUUID().replace(/-/g, '').slice(0, 16)}`;
}
