// Which error shape a request gets when no chain answers it (404s, body errors, shutdown): its route's format,
// else Anthropic's for requests that look like an Anthropic client's, else OpenAI's.

import type { IncomingHttpHeaders } from 'node:http';
import type { ClientFormat } from '../formats/format.js';
import { routeKeyOf } from '../endpoints/registry.js';
import type { Gateway } from '../gateway.js';

/**
 * Anthropic clients send anthropic-version (the SDKs always) or x-api-key; a path naming messages is one too
 * (Claude Code with a base URL ending in /v1 calls /v1/v1/messages and must understand our 404).
 */
export function looksAnthropic(path: string, headers: IncomingHttpHeaders): boolean {
  return headers['anthropic-version'] !== undefined || headers['x-api-key'] !== undefined || /\/messages(\/|$)/.test(path);
}

export function errorFormatFor(gateway: Gateway, url: string, headers: IncomingHttpHeaders): ClientFormat | undefined {
  const path = url.split('?')[0] ?? url;
  const [endpoint] = gateway.endpoints.at(path);
  const own = endpoint === undefined ? undefined : gateway.formats.get(routeKeyOf(endpoint));
  return own ?? gateway.formats.get(looksAnthropic(path, headers) ? '/v1/messages' : '/v1/chat/completions');
}
