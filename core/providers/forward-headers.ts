// Which client headers go on to an upstream: end-to-end headers only, never the caller's credentials or account.

/** Hop-by-hop (RFC 9110 7.6.1) and framing headers, which belong to one connection, not to the request. */
const HOP_BY_HOP = new Set([
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
const OWN = new Set([
  'authorization',
  'x-api-key',
  'cookie',
  'accept-encoding',
  'forwarded',
  'x-real-ip',
  'via',
  // The caller's OpenAI organization and project would not match the channel's key.
  'openai-organization',
  'openai-project',
]);

export function forwardableHeaders(headers: Readonly<Record<string, string | string[] | undefined>>): Record<string, string> {
  const named = new Set<string>();
  const connection = headers['connection'];
  for (const value of Array.isArray(connection) ? connection : [connection ?? '']) {
    for (const name of value.split(',')) if (name.trim() !== '') named.add(name.trim().toLowerCase());
  }
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || HOP_BY_HOP.has(name) || OWN.has(name) || named.has(name) || name.startsWith('x-forwarded-')) continue;
    out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}
