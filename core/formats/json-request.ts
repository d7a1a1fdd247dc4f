// Decoding a JSON request body: one JSON.parse, a shallow ajv check against schemas/api/<name>, and the first
// problem handed to the format, which words it the way its real API does.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { findSchemaDir } from '../config/schema-dir.js';
import type { GatewayError } from '../errors.js';

/** The first thing wrong with a body, independent of any API's wording. */
export type BodyProblem =
  | { readonly kind: 'json'; readonly detail: string }
  | { readonly kind: 'not_object' }
  | { readonly kind: 'missing'; readonly path: readonly string[] }
  | { readonly kind: 'invalid'; readonly path: readonly string[]; readonly keyword: string; readonly detail: string };

export type ProblemWording = (problem: BodyProblem) => GatewayError;

/** Returns the parsed object; throws the format's GatewayError for the first problem. */
export type JsonBodyReader = (raw: Buffer) => Record<string, unknown>;

export function createJsonBodyReader(schemaFile: string, word: ProblemWording): JsonBodyReader {
  const schema: unknown = JSON.parse(readFileSync(join(findSchemaDir(), 'api', schemaFile), 'utf8'));
  const validate = new Ajv({ allErrors: false, strict: false }).compile(schema as object) as ValidateFunction;

  return function readJsonBody(raw: Buffer): Record<string, unknown> {
    let json: unknown;
    try {
      json = JSON.parse(raw.toString('utf8'));
    } catch (err) {
      throw word({ kind: 'json', detail: (err as Error).message });
    }
    if (!validate(json)) throw word(toProblem(validate.errors?.[0]));
    return json as Record<string, unknown>;
  };
}

function pathOf(pointer: string): string[] {
  return pointer
    .split('/')
    .slice(1)
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function toProblem(e: ErrorObject | undefined): BodyProblem {
  if (e === undefined || (e.instancePath === '' && e.keyword === 'type')) return { kind: 'not_object' };
  if (e.keyword === 'required') {
    return { kind: 'missing', path: [...pathOf(e.instancePath), String(e.params['missingProperty'])] };
  }
  let detail = e.message ?? 'is invalid';
  if (e.keyword === 'enum') detail = `must be one of: ${(e.params['allowedValues'] as unknown[]).join(', ')}`;
  if (e.keyword === 'minItems') detail = 'must not be empty';
  return { kind: 'invalid', path: pathOf(e.instancePath), keyword: e.keyword, detail };
}
