// The database out of reach (connection refused, reset or ended, the server shutting down), told apart from a
// request that was wrong or a bug: the caller's answer is then a 503 to retry, not a 500. Only errors of the store's
// own driver are judged (postgres-store.ts wraps them as they come out of node-postgres): a reset of an upstream's
// connection has the same code and must stay an upstream's failure.

/** Socket errors of a connection that could not be made or was lost. */
const SOCKET_CODES: ReadonlySet<string> = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);

/** node-postgres's own words for a connection it lost or could not get in time. */
const PG_MESSAGES = /^(Connection terminated|Client has encountered a connection error|timeout exceeded when trying to connect|Connection ended)/;

/** A store call that failed because the database could not be reached; `cause` is the driver's error. */
export class StoreUnreachableError extends Error {
  constructor(cause: unknown) {
    super('the database cannot be reached', { cause });
    this.name = 'StoreUnreachableError';
  }
}

/** Whether a driver's error says the connection failed (rather than the statement). */
export function isConnectionFailure(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string') {
    if (SOCKET_CODES.has(code)) return true;
    // SQLSTATE class 08 (connection exception), and 57P01..57P03 (the server shutting down or starting).
    if (/^08[0-9A-Z]{3}$/.test(code) || code === '57P01' || code === '57P02' || code === '57P03') return true;
  }
  const message = (err as { message?: unknown }).message;
  return typeof message === 'string' && PG_MESSAGES.test(message);
}

export function isStoreUnreachable(err: unknown): boolean {
  return err instanceof StoreUnreachableError;
}
