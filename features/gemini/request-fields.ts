// How a refused field of a Gemini client's request is worded (Google's "Invalid value at 'contents[0].parts[1]'"),
// for every read below the shallow check: the codec's decoding of a generateContent body.

import { GatewayError } from '../../core/errors.js';
import { FieldReader, type JsonType } from '../../core/formats/field-reader.js';

/** Google names protobuf types in its messages. */
const NAMES: Readonly<Record<JsonType, string>> = {
  object: 'TYPE_MESSAGE',
  array: 'TYPE_LIST',
  string: 'TYPE_STRING',
  number: 'TYPE_NUMBER',
  integer: 'TYPE_INT32',
  boolean: 'TYPE_BOOL',
  null: 'null',
};

export function missingField(param: string): GatewayError {
  return new GatewayError('GW_ERR_REQUEST_MISSING_FIELD', `Invalid JSON payload received. Missing required field at '${param}'.`, { param });
}

export function wrongType(param: string, expected: readonly JsonType[], got: JsonType): GatewayError {
  const want = expected.filter((t) => t !== 'null').map((t) => NAMES[t]).join(' or ');
  return new GatewayError('GW_ERR_REQUEST_INVALID_FIELD', `Invalid value at '${param}' (${want}), got ${got}.`, { param });
}

export function invalidField(param: string, detail: string): GatewayError {
  return new GatewayError('GW_ERR_REQUEST_INVALID_FIELD', `Invalid value at '${param}': ${detail}.`, { param });
}

/** Reads of a Gemini request's fields; `param` in Google's notation (`contents[0].parts[1].functionCall.name`). */
export const geminiFields = new FieldReader({ missing: missingField, wrongType, invalid: invalidField });

/** What the IR cannot carry across, named by its field (the relay may still serve it natively on the next channel). */
export function unsupported(param: string, message: string): GatewayError {
  return new GatewayError('GW_ERR_TRANSLATION_UNSUPPORTED', message, { param });
}
