// How OpenAI words a refused request field, for Chat Completions and Responses alike: the shallow check's problems
// (request.ts) and every deeper read of a body (ir-request.ts of both formats, the mock channel).

import { GatewayError } from '../../errors.js';
import { FieldReader, type JsonType } from '../field-reader.js';

const NAMES: Readonly<Record<JsonType, string>> = {
  object: 'an object',
  array: 'an array',
  string: 'a string',
  number: 'a number',
  integer: 'an integer',
  boolean: 'a boolean',
  null: 'null',
};

/** "a string or an array"; null is left out where something else is allowed (it then means absent). */
function named(types: readonly JsonType[]): string {
  const shown = types.length > 1 ? types.filter((t) => t !== 'null') : types;
  return shown.map((t) => NAMES[t]).join(' or ');
}

export function missingField(param: string): GatewayError {
  return new GatewayError('GW_ERR_REQUEST_MISSING_FIELD', `Missing required parameter: '${param}'.`, { param });
}

export function wrongType(param: string, expected: readonly JsonType[], got: JsonType): GatewayError {
  return new GatewayError('GW_ERR_REQUEST_INVALID_FIELD', `Invalid type for '${param}': expected ${named(expected)}, but got ${NAMES[got]} instead.`, {
    param,
  });
}

export function invalidField(param: string, detail: string): GatewayError {
  return new GatewayError('GW_ERR_REQUEST_INVALID_FIELD', `Invalid value for '${param}': ${detail}.`, { param });
}

/** Reads of an OpenAI request's fields; `param` in OpenAI's notation (`messages[0].content[1].text`). */
export const openaiFields = new FieldReader({ missing: missingField, wrongType, invalid: invalidField });
