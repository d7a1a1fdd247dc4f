// Which error shape a request gets when no chain answers it (404s, body errors, shutdown): its route's format,
// else Anthropic's for requests that look like an Anthropic client's, else OpenAI's.

import type { IncomingHttpHeaders } from 'node:http';
import { looksAnthropic } from '../formats/caller-api.js';
import type { ClientFormat } from '../formats/format.js';
import { routeKeyOf } from '../endpoints/registry.js';
import type { Gateway } from '../gateway.js';

export function errorFormatFor(gateway: Gateway, url: string, headers: IncomingHttpHeaders): ClientFormat | undefined {
  const path = url.split('?')[0] ?? url;
  const [endpoint] = gateway.endpoints.at(path);
  const own = endpoint === undefined ? undefined : gateway.formats.get(routeKeyOf(endpoint));
  return own?.forCaller?.(path, headers) ?? own ?? gateway.formats.get(looksAnthropic(path, headers) ? '/v1/messages' : '/v1/chat/completions');
}
