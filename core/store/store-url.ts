// Store URLs: the one place that knows their schemes, where a relative sqlite path points, and how a URL is shown.

import { resolve } from 'node:path';

/** better-sqlite3's name for a private in-memory database. */
export const SQLITE_MEMORY = ':memory:';

export const SUPPORTED_STORE_URLS = "sqlite:<path> (absolute, or relative to the config file's folder), sqlite::memory:, postgres://user[:password]@host[:port]/database";

const SQLITE = 'sqlite:';
/** Query parameters that carry a secret in database URLs (libpq's `password`, `sslpassword`, tokens). */
const SECRET_PARAM = /pass|secret|token/i;

/**
 * `sqlite:./data/gateway.db` -> `sqlite:<relativeTo>/data/gateway.db`, so the server and the CLI open the same file
 * whatever their working directory. Absolute paths, `sqlite::memory:`, an empty path (openStore names that
 * problem) and other schemes are returned as they are.
 */
export function resolveStoreUrl(url: string, relativeTo: string): string {
  if (!url.startsWith(SQLITE)) return url;
  const path = url.slice(SQLITE.length);
  if (path === '' || path === SQLITE_MEMORY) return url;
  return `${SQLITE}${resolve(relativeTo, path)}`;
}

/**
 * The better-sqlite3 filename of a sqlite URL (undefined for another scheme). URLs from a config arrive absolute
 * (resolveConfig); a relative one given here directly is taken from the working directory.
 */
export function parseSqliteUrl(url: string): string | undefined {
  if (!url.startsWith(SQLITE)) return undefined;
  const rest = url.slice(SQLITE.length);
  if (rest === SQLITE_MEMORY) return SQLITE_MEMORY;
  if (rest === '') throw new Error(`store URL "sqlite:" has no path; supported: ${SUPPORTED_STORE_URLS}`);
  return resolve(rest);
}

export function isPostgresUrl(url: string): boolean {
  return url.startsWith('postgres://') || url.startsWith('postgresql://');
}

/** The URL's scheme (`postgres:`), or `(none)`: all of a URL that may be shown when it cannot be parsed. */
export function storeUrlScheme(url: string): string {
  return /^[a-z][a-z0-9+.-]*:/i.exec(url)?.[0] ?? '(none)';
}

/**
 * The URL as it may be logged: a sqlite URL whole (a path holds no secret), any other with its password and
 * secret-bearing query parameters replaced by `***`. One without `//` after the scheme has no user or password
 * to find (`postgres:user:secret@db` is all path to the URL parser), so it shows only its scheme, as does one
 * that does not parse.
 */
export function describeStoreUrl(url: string): string {
  if (url.startsWith(SQLITE)) return url;
  const scheme = storeUrlScheme(url);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `${scheme}***`;
  }
  if (!url.startsWith('//', scheme.length)) return `${scheme}***`;
  if (parsed.password !== '') parsed.password = '***';
  for (const name of [...parsed.searchParams.keys()]) {
    if (SECRET_PARAM.test(name)) parsed.searchParams.set(name, '***');
  }
  return parsed.href;
}
