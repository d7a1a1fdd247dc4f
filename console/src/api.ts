// The one way the pages talk to /console/api: same origin, the session cookie, JSON both ways, the session's CSRF
// token on every change, and the server's error message carried to the page as it was written.

import type { Session, User } from './api-types.js';

const BASE = '/console/api';

/** An answer that was not a 2xx (or no answer at all: status 0), with the server's own message. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string | null,
    message: string,
    readonly param: string | null = null,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** The session ended: the app already went to the sign-in page, so no page shows this one as an error. */
export function isSignedOut(err: unknown): boolean {
  return err instanceof ApiError && err.status === 401 && err.code === 'not_signed_in';
}

/** The CSRF token sent is not the session's: signing in again (in another tab) made a new session. */
function isStaleCsrf(err: ApiError): boolean {
  return err.status === 403 && err.code === 'csrf_token_invalid';
}

/** The same person in the same role: what makes a change meant for one session right for the other. */
export function sameUser(a: User | null, b: User | null): boolean {
  return a !== null && b !== null && a.name === b.name && a.account === b.account && a.operator === b.operator;
}

export type Query = Readonly<Record<string, string | number | null | undefined>>;

/** A console API URL with the query's non-empty values (also the href of the CSV export link). */
export function apiUrl(path: string, query: Query = {}): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value !== undefined && value !== null && value !== '') params.set(name, String(value));
  }
  const text = params.toString();
  return `${BASE}${path}${text === '' ? '' : `?${text}`}`;
}

export interface Api {
  get<T>(path: string, query?: Query): Promise<T>;
  post<T>(path: string, body: unknown): Promise<T>;
  patch<T>(path: string, body: unknown): Promise<T>;
  del<T>(path: string): Promise<T>;
  /** The session every call after belongs to (its CSRF token goes on every change); null once signed out. */
  setSession(session: Pick<Session, 'user' | 'csrf'> | null): void;
}

export interface ApiHooks {
  /** A 401 not_signed_in: the app goes to the sign-in page. */
  onSignedOut(): void;
  /** The session as read again after a stale CSRF token (someone signed in again in another tab). */
  onSession(session: Session): void;
}

/**
 * One client per app: it holds the session's CSRF token (the cookie itself is HttpOnly: never seen here). A change
 * refused for a stale token (the cookie now belongs to a newer sign-in) reads the session again and, when it is
 * still the same person, is sent once more with the new token: the server refused it before doing anything.
 */
export function createApi(hooks: ApiHooks): Api {
  let csrf = '';
  let user: User | null = null;
  // Changes refused together share one read of the session.
  let renewing: Promise<Session> | null = null;

  function readSession(): Promise<Session> {
    renewing ??= call<Session>('GET', apiUrl('/session')).finally(() => (renewing = null));
    return renewing;
  }

  /**
   * True when the change may be sent again: the session read now is the person's the change was sent as (`sentAs`,
   * taken when it went out: another change's renewal may have switched `user` meanwhile).
   */
  async function renewCsrf(sentAs: User | null): Promise<boolean> {
    const read = await readSession();
    csrf = read.csrf;
    user = read.user;
    hooks.onSession(read);
    return sameUser(sentAs, read.user);
  }

  async function call<T>(method: string, url: string, body?: unknown, retried = false): Promise<T> {
    const headers: Record<string, string> = { accept: 'application/json' };
    // The server takes only JSON on changes (a cross-site form cannot send it), and the CSRF token proves this page.
    if (method !== 'GET') {
      headers['content-type'] = 'application/json';
      if (csrf !== '') headers['x-csrf-token'] = csrf;
    }
    const init: RequestInit = { method, headers, credentials: 'same-origin', cache: 'no-store' };
    const sentAs = user;
    if (body !== undefined) init.body = JSON.stringify(body);
    let res: Response;
    try {
      res = await fetch(url, init);
    } catch {
      throw new ApiError(0, 'network', 'Could not reach the gateway. Check the connection and try again.');
    }
    const parsed = await readJson(res);
    if (res.ok) return parsed as T;
    const err = errorOf(res, parsed);
    if (isSignedOut(err)) hooks.onSignedOut();
    if (isStaleCsrf(err) && !retried) {
      // A 401 here (the session is gone) has already sent the app to the sign-in page, and rejects this call.
      if (await renewCsrf(sentAs)) return call<T>(method, url, body, true);
      throw new ApiError(403, err.code, `You are now signed in as ${user?.name ?? 'someone else'} (from another tab): nothing was changed. Check this page and try again.`);
    }
    throw err;
  }

  return {
    get: (path, query) => call('GET', apiUrl(path, query)),
    post: (path, body) => call('POST', apiUrl(path), body),
    patch: (path, body) => call('PATCH', apiUrl(path), body),
    del: (path) => call('DELETE', apiUrl(path)),
    setSession(session) {
      csrf = session?.csrf ?? '';
      user = session?.user ?? null;
    },
  };
}

/** The body as JSON, or undefined when it is empty or not JSON (a proxy's HTML error page). */
async function readJson(res: Response): Promise<unknown> {
  const text = await res.text().catch(() => '');
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** The OpenAI-shaped error body narrowed once; anything else gets a message naming the status. */
function errorOf(res: Response, body: unknown): ApiError {
  const error = typeof body === 'object' && body !== null ? (body as { error?: unknown }).error : undefined;
  if (typeof error === 'object' && error !== null) {
    const { message, code, param } = error as { message?: unknown; code?: unknown; param?: unknown };
    if (typeof message === 'string' && message !== '') {
      return new ApiError(res.status, typeof code === 'string' ? code : null, message, typeof param === 'string' ? param : null);
    }
  }
  const status = `${res.status}${res.statusText === '' ? '' : ` ${res.statusText}`}`;
  return new ApiError(res.status, null, `The gateway answered ${status}.`);
}
