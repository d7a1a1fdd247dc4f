// How Anthropic words a refused request field ("messages.0.content: Input should be a valid list"): the shallow
// check's problems (request.ts) and every deeper read of a body (ir-request.ts, the mock channel).

import { GatewayError } from '../../errors.js';
import { FieldReader, type JsonType } from '../field-reader.js';

/** The names Anthropic's validation gives types. */
const NAMES: Readonly<Record<JsonType, string>> = {
  object: 'dictionary',
  array: 'list',
  string: 'string',
  number: 'number',
  integer: 'integer',
  boolean: 'boolean',
  null: 'null',
};

export function missingField(param: string): GatewayError {
  return new GatewayError('GW_ERR_REQUEST_MISSING_FIELD', `${param}: Field required`, { param });
}

/** `got` is not named: Anthropic says only what was expected. */
export function wrongType(param: string, expected: readonly JsonType[], _got: JsonType): GatewayError {
  const types = expected.length > 1 ? expected.filter((t) => t !== 'null') : expected;
  return new GatewayError('GW_ERR_REQUEST_INVALID_FIELD', `${param}: Input should be a valid ${types.map((t) => NAMES[t]).join(' or ')}`, { param });
}

export function invalidField(param: string, detail: string): GatewayError {
  return new GatewayError('GW_ERR_REQUEST_INVALID_FIELD', `${param}: ${detail}`, { param });
}

/** Reads of a Messages request's fields; `param` in Anthropic's notation (`messages.0.content.1.text`). */
export const anthropicFields = new FieldReader({ missing: missingField, wrongType, invalid: invalidField });
