// Console passwords, hashed with scrypt (node:crypto; no native addon): a random salt per password, the cost
// parameters kept in the stored text so they can be raised later without invalidating older hashes.

import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';

/** scrypt's cost parameters. */
export interface PasswordCost {
  readonly N: number;
  readonly r: number;
  readonly p: number;
}

/** N = 2^15, r = 8, p = 1: about 32 MiB and tens of milliseconds per hash, OWASP's floor for scrypt. */
export const PASSWORD_COST: PasswordCost = { N: 32_768, r: 8, p: 1 };
const KEY_BYTES = 32;
/** Passwords longer than this are refused (scrypt's work grows with the input; nobody types more). */
export const MAX_PASSWORD_CHARS = 256;
export const MIN_PASSWORD_CHARS = 10;

function derive(password: string, salt: Buffer, cost: PasswordCost): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFKC'), salt, KEY_BYTES, { N: cost.N, r: cost.r, p: cost.p, maxmem: 128 * cost.N * cost.r * 2 }, (err, key) => (err === null ? resolve(key) : reject(err)));
  });
}

/** `scrypt$N$r$p$<salt b64url>$<hash b64url>`, at PASSWORD_COST unless told (tests: see ConsoleSignInOptions). */
export async function hashPassword(password: string, cost: PasswordCost = PASSWORD_COST): Promise<string> {
  const salt = randomBytes(16);
  const hash = await derive(password, salt, cost);
  return ['scrypt', cost.N, cost.r, cost.p, salt.toString('base64url'), hash.toString('base64url')].join('$');
}

/** Whether `password` is the one `stored` was made from (false for anything malformed). */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [N, r, p] = [Number(parts[1]), Number(parts[2]), Number(parts[3])];
  if (![N, r, p].every((n) => Number.isSafeInteger(n) && n > 0) || N > 1_048_576) return false;
  const expected = Buffer.from(parts[5] ?? '', 'base64url');
  if (expected.length !== KEY_BYTES) return false;
  const actual = await derive(password, Buffer.from(parts[4] ?? '', 'base64url'), { N, r, p });
  return timingSafeEqual(actual, expected);
}
