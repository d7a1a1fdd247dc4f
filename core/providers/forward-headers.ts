// Which client headers go on to an upstream: end-to-end headers only, never the caller's credentials or account.

/** Hop-by-hop (RFC 9110 7.6.1) and framing headers, which belong to one connection, not to the request. */
const HOP_BY_HOP: ReadonlySet<string> = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'host',
  'content-length',
  'expect',
]);

/**
 * Set by the gateway itself, or the caller's identity: the caller's key, cookies, and the addresses a proxy in
 * front of us adds (the upstream should see the gateway, not our callers).
 */
const OWN: ReadonlySet<string> = new Set([
  'authorization',
  'x-api-key',
  // Google's SDKs and Gemini CLI send the caller's key here.
  'x-goog-api-key',
  'cookie',
  'accept-encoding',
  'forwarded',
  'x-real-ip',
  'via',
  // The caller's OpenAI organization and project would not match the channel's key.
  'openai-organization',
  'openai-project',
]);

/** The client's end-to-end headers, as a new object the caller may add to. */
export function forwardableHeaders(headers: Readonly<Record<string, string | string[] | undefined>>): Record<string, string> {
  const named = connectionNamed(headers['connection']);
  const out: Record<string, string> = {};
  for (const name in headers) {
    const value = headers[name];
    if (value === undefined || HOP_BY_HOP.has(name) || OWN.has(name) || named?.has(name) === true || name.startsWith('x-forwarded-')) continue;
    out[name] = typeof value === 'string' ? value : value.join(', ');
  }
  return out;
}

/** Headers the Connection header names as hop-by-hop, beyond the usual keep-alive/close (rare, so no Set for those). */
function connectionNamed(connection: string | string[] | undefined): Set<string> | null {
  // What nearly every client sends, answered without splitting it.
  if (connection === undefined || connection === 'keep-alive' || connection === 'close' || connection === 'Keep-Alive') return null;
  let named: Set<string> | null = null;
  for (const value of typeof connection === 'string' ? [connection] : connection) {
    for (const token of value.split(',')) {
      const name = token.trim().toLowerCase();
      if (name !== '' && name !== 'keep-alive' && name !== 'close') (named ??= new Set()).add(name);
    }
  }
  return named;
}
