// The admin API (/admin/keys): a JSON object body for a create, none otherwise; errors in OpenAI's shape.

import { GatewayError } from '../../errors.js';
import type { BodyBytes } from '../body-bytes.js';
import type { ClientFormat, ParsedRequest } from '../format.js';
import { LazyRequest } from '../lazy-request.js';
import { encodeError, encodeStreamError, isErrorFrame } from '../openai-chat/errors.js';
import { plainFormat } from '../plain-format.js';
import { RepeatedKeys } from '../repeated-keys.js';

function decodeRequest(raw: BodyBytes, repeats: RepeatedKeys): ParsedRequest {
  let body: Record<string, unknown> = {};
  if (raw.length > 0) {
    let value: unknown;
    try {
      value = JSON.parse(raw.joined().toString('utf8'));
    } catch {
      value = null;
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      throw new GatewayError('GW_ERR_REQUEST_INVALID_JSON', 'The body must be a JSON object such as {"name":"ci","group":"default"}.');
    }
    body = value as Record<string, unknown>;
    // Every field of these small bodies is read: none may be given twice (JSON.parse would keep the last silently).
    const repeated = repeats.find(raw.joined(), null);
    if (repeated !== null) {
      throw new GatewayError('GW_ERR_REQUEST_INVALID_FIELD', `Invalid '${repeated.slice(0, 64)}': it is given more than once; send each field once.`, { param: repeated });
    }
  }
  // About no one model: the admin token alone admits it.
  return new LazyRequest(raw, body, { whole: () => body }, '', false, null);
}

export function createAdminFormat(): ClientFormat {
  const repeats = new RepeatedKeys(null);
  return plainFormat({ name: 'openai-chat', decodeRequest: (raw: BodyBytes) => decodeRequest(raw, repeats), encodeError, encodeStreamError, isErrorFrame });
}
