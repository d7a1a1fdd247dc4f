// Which API a caller speaks, from its request line and headers, where the route does not say (the model list,
// a 404): Anthropic's clients, or OpenAI's.

import type { IncomingHttpHeaders } from 'node:http';

/**
 * Anthropic clients send anthropic-version (the SDKs always) or x-api-key; a path naming messages is one too
 * (Claude Code with a base URL ending in /v1 calls /v1/v1/messages and must understand our 404).
 */
export function looksAnthropic(path: string, headers: IncomingHttpHeaders | Readonly<Record<string, string | string[] | undefined>>): boolean {
  return headers['anthropic-version'] !== undefined || headers['x-api-key'] !== undefined || /\/messages(\/|$)/.test(path);
}
