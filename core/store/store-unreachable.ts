// Whether an error a store call threw means the database is out of reach (connection refused, reset or ended,
// the server shutting down), not that the request was wrong or the gateway is broken: the caller's answer is then a
// 503 to retry, not a 500.

/** Socket errors of a connection that could not be made or was lost. */
const SOCKET_CODES: ReadonlySet<string> = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);

/** node-postgres's own words for a connection it lost or could not get in time. */
const PG_MESSAGES = /^(Connection terminated|Client has encountered a connection error|timeout exceeded when trying to connect|Connection ended)/;

export function isStoreUnreachable(err: unknown): boolean {
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
