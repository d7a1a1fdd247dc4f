// Hash routes (#/tokens, #/password/<token>): the server serves one index.html, and a hash never reaches it, so a
// password link's token stays out of its access logs.

import { useEffect, useState } from 'preact/hooks';

export interface HashRoute {
  /** "/tokens": the hash without "#", before any "?". */
  readonly path: string;
  readonly query: URLSearchParams;
}

export function readHash(hash: string): HashRoute {
  const text = hash.replace(/^#/, '');
  const mark = text.indexOf('?');
  const path = mark === -1 ? text : text.slice(0, mark);
  return { path: path === '' ? '/' : path, query: new URLSearchParams(mark === -1 ? '' : text.slice(mark + 1)) };
}

/** The pattern's `:name` parameters when `path` matches it ("/password/:token"), else null. */
export function matchPath(pattern: string, path: string): Record<string, string> | null {
  const want = pattern.split('/');
  const got = path.split('/');
  if (want.length !== got.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < want.length; i++) {
    const part = want[i] ?? '';
    const value = got[i] ?? '';
    if (part.startsWith(':')) {
      if (value === '') return null;
      params[part.slice(1)] = safeDecode(value);
    } else if (part !== value) {
      return null;
    }
  }
  return params;
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

export function hrefOf(path: string): string {
  return `#${path}`;
}

export function navigate(path: string): void {
  location.hash = path;
}

/** The current hash route, re-rendering on every change. */
export function useLocation(): HashRoute {
  const [where, setWhere] = useState(() => readHash(location.hash));
  useEffect(() => {
    const onChange = (): void => setWhere(readHash(location.hash));
    addEventListener('hashchange', onChange);
    return () => removeEventListener('hashchange', onChange);
  }, []);
  return where;
}
