// The one way the pages talk to /console/api: same origin, the session cookie, JSON both ways, the session's CSRF
// token on every change, and the server's error message carried to the page as it was written.

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
  /** The token every non-GET call carries; set from each session answer. */
  setCsrf(csrf: string): void;
}

/**
 * One client per app: it holds the session's CSRF token (the cookie itself is HttpOnly: never seen here), and calls
 * `onSignedOut` on a 401 not_signed_in so the app can go to the sign-in page.
 */
export function createApi(onSignedOut: () => void): Api {
  let csrf = '';
  async function call<T>(method: string, url: string, body?: unknown): Promise<T> {
    const headers: Record<string, string> = { accept: 'application/json' };
    // The server takes only JSON on changes (a cross-site form cannot send it), and the CSRF token proves this page.
    if (method !== 'GET') {
      headers['content-type'] = 'application/json';
      if (csrf !== '') headers['x-csrf-token'] = csrf;
    }
    const init: RequestInit = { method, headers, credentials: 'same-origin', cache: 'no-store' };
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
    if (isSignedOut(err)) onSignedOut();
    throw err;
  }
  return {
    get: (path, query) => call('GET', apiUrl(path, query)),
    post: (path, body) => call('POST', apiUrl(path), body),
    patch: (path, body) => call('PATCH', apiUrl(path), body),
    del: (path) => call('DELETE', apiUrl(path)),
    setCsrf(value) {
      csrf = value;
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
