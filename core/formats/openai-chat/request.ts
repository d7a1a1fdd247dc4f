// Reads a Chat Completions request: one JSON.parse, a shallow schema check, field-named errors.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { findSchemaDir } from '../../config/schema-dir.js';
import { GatewayError } from '../../errors.js';
import type { ParsedRequest } from '../format.js';

export type RequestDecoder = (raw: Buffer) => ParsedRequest;

export function createRequestDecoder(): RequestDecoder {
  const schema: unknown = JSON.parse(
    readFileSync(join(findSchemaDir(), 'api', 'openai-chat.request.schema.json'), 'utf8'),
  );
  const validate = new Ajv({ allErrors: false, strict: false }).compile(schema as object) as ValidateFunction;

  return function decodeChatRequest(raw: Buffer): ParsedRequest {
    let json: unknown;
    try {
      json = JSON.parse(raw.toString('utf8'));
    } catch (err) {
      throw new GatewayError(
        'GW_ERR_REQUEST_INVALID_JSON',
        `We could not parse the JSON body of your request: ${(err as Error).message}. The body must be a JSON object.`,
      );
    }
    if (!validate(json)) throw toFieldError(validate.errors?.[0]);
    const body = json as Record<string, unknown> & { model: string };
    return { raw, json: body, model: body.model, stream: body['stream'] === true };
  };
}

/** `/messages/0/role` -> `messages[0].role`, the notation OpenAI uses in `param`. */
function toParam(pointer: string): string {
  return pointer
    .split('/')
    .slice(1)
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((acc, part) => (/^\d+$/.test(part) ? `${acc}[${part}]` : acc === '' ? part : `${acc}.${part}`), '');
}

function toFieldError(e: ErrorObject | undefined): GatewayError {
  if (e === undefined) return new GatewayError('GW_ERR_REQUEST_INVALID_FIELD', 'Invalid request body.');
  if (e.instancePath === '' && e.keyword === 'type') {
    return new GatewayError('GW_ERR_REQUEST_INVALID_FIELD', 'The request body must be a JSON object.');
  }
  if (e.keyword === 'required') {
    const field = toParam(`${e.instancePath}/${String(e.params['missingProperty'])}`);
    return new GatewayError('GW_ERR_REQUEST_MISSING_FIELD', `Missing required parameter: '${field}'.`, {
      param: field,
    });
  }
  const param = toParam(e.instancePath);
  let detail = e.message ?? 'is invalid';
  if (e.keyword === 'enum') detail = `must be one of: ${(e.params['allowedValues'] as unknown[]).join(', ')}`;
  if (e.keyword === 'minItems') detail = 'must not be empty';
  return new GatewayError('GW_ERR_REQUEST_INVALID_FIELD', `Invalid value for '${param}': ${detail}.`, { param });
}
