// Decoding a JSON request body: a shallow ajv check against schemas/api/<name> of what routing reads, and the
// first problem handed to the format, which words it the way its real API does. Small bodies are parsed whole;
// large ones as a skeleton (json-skeleton.ts) whose deep long strings stay undecoded until someone asks for the
// whole body (translation does; a pass-through request never does, its original bytes are forwarded).

import { readFileSync } from 'node:fs';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { schemaFile as findSchemaFile } from '../config/schema-files.js';
import { schemaCompiler } from '../config/schema-compiler.js';
import type { GatewayError } from '../errors.js';
import type { BodyBytes } from './body-bytes.js';
import { jsonTypeOf, type JsonType } from './field-reader.js';
import { fillUndecoded, readSkeleton, type Skeleton } from './json-skeleton.js';
import { RepeatedKeys } from './repeated-keys.js';
import type { ScanMemory } from './scan-memory.js';

/** The first thing wrong with a body, independent of any API's wording. */
export type BodyProblem =
  | { readonly kind: 'json'; readonly detail: string }
  | { readonly kind: 'not_object' }
  | { readonly kind: 'missing'; readonly path: readonly string[] }
  | { readonly kind: 'type'; readonly path: readonly string[]; readonly expected: readonly JsonType[]; readonly got: JsonType }
  | { readonly kind: 'invalid'; readonly path: readonly string[]; readonly keyword: string; readonly detail: string };

export type ProblemWording = (problem: BodyProblem) => GatewayError;

export interface JsonBody {
  /**
   * The body for routing and the schema: exact everywhere except long strings nested three or more levels
   * down, which may be UNDECODED (json-skeleton.ts).
   */
  readonly head: Record<string, unknown>;
  /**
   * The whole body, made on the first call (for a skeleton, by filling its undecoded strings in: `head` becomes
   * that same object, unless fillUndecoded refused and the body was parsed whole); throws the format's
   * invalid-JSON error if a skipped string is bad.
   */
  whole(): Record<string, unknown>;
}

/** Returns the checked body; throws the format's GatewayError for the first problem. */
export type JsonBodyReader = (body: BodyBytes) => JsonBody;

/**
 * Fields the gateway reads beside the schema's (the output caps, Responses' `store`, the conversation): a repeat of
 * any of them is refused like a repeat of a field the schema names.
 */
const ALSO_READ: readonly string[] = ['max_tokens', 'max_completion_tokens', 'max_output_tokens', 'store', 'prompt_cache_key', 'metadata', 'stream', 'model'];

/** Bodies up to this size are parsed whole at once: JSON.parse is native and, this small, cheaper than a skeleton. */
const WHOLE_PARSE_MAX_BYTES = 8 * 1024;

export function createJsonBodyReader(schemaFile: string, word: ProblemWording, memory: ScanMemory): JsonBodyReader {
  const schema: unknown = JSON.parse(readFileSync(findSchemaFile('api', schemaFile), 'utf8'));
  const validate = schemaCompiler({ allErrors: false, strict: false }).compile(schema as object) as ValidateFunction;
  const properties = (schema as { properties?: Record<string, unknown> }).properties ?? {};
  const repeats = new RepeatedKeys([...Object.keys(properties), ...ALSO_READ]);

  const parseText = (text: string): unknown => {
    try {
      return JSON.parse(text);
    } catch (err) {
      throw word({ kind: 'json', detail: (err as Error).message });
    }
  };
  const parseWhole = (raw: Buffer): unknown => parseText(raw.toString('utf8'));

  // The head becomes the whole body (its undecoded strings filled in); where filling cannot give JSON.parse's
  // result (fillUndecoded says when), or a string is bad, the whole body is parsed, which also words the error
  // as if the whole body had been parsed at once.
  const fillHead = (skeleton: Skeleton, raw: Buffer): unknown => {
    try {
      if (fillUndecoded(skeleton, raw)) return skeleton.value;
    } catch {
      // parseWhole words it.
    }
    return parseWhole(raw);
  };

  return function readJsonBody(body: BodyBytes): JsonBody {
    let whole: unknown;
    let head: unknown;
    let skeleton: Skeleton | null = null;
    let repeated: string | null;
    if (body.length <= WHOLE_PARSE_MAX_BYTES) {
      const raw = body.joined();
      const text = raw.toString('utf8');
      head = whole = parseText(text);
      repeated = repeats.find(raw, text);
    } else {
      try {
        skeleton = readSkeleton(body, memory);
        head = skeleton.value;
        // Edits of this body (json-edit.ts) start from these positions instead of walking it again.
        body.topLevel = skeleton.topLevel;
        repeated = skeleton.topLevel === null ? repeats.find(body.joined(), null) : repeats.find(body.joined(), null, skeleton.topLevel);
      } catch {
        // The real parser words the syntax error (and should it accept what the skeleton refused, its result stands).
        head = whole = parseWhole(body.joined());
        repeated = repeats.find(body.joined(), null);
      }
    }
    if (repeated !== null) throw word({ kind: 'invalid', path: [repeated], keyword: 'uniqueKeys', detail: 'is given more than once; send each field once' });
    if (!validate(head)) throw word(toProblem(validate.errors?.[0], head));
    const checked = head as Record<string, unknown>;
    return {
      head: checked,
      whole(): Record<string, unknown> {
        whole ??= skeleton === null ? parseWhole(body.joined()) : fillHead(skeleton, body.joined());
        return whole as Record<string, unknown>;
      },
    };
  };
}

function pathOf(pointer: string): string[] {
  return pointer
    .split('/')
    .slice(1)
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** The value at `path` (a refused one: this runs only for an error). */
function valueAt(body: unknown, path: readonly string[]): unknown {
  let value = body;
  for (const key of path) value = typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined;
  return value;
}

function toProblem(e: ErrorObject | undefined, body: unknown): BodyProblem {
  if (e === undefined || (e.instancePath === '' && e.keyword === 'type')) return { kind: 'not_object' };
  if (e.keyword === 'required') {
    return { kind: 'missing', path: [...pathOf(e.instancePath), String(e.params['missingProperty'])] };
  }
  if (e.keyword === 'type') {
    const path = pathOf(e.instancePath);
    const type: unknown = e.params['type'];
    const expected = (Array.isArray(type) ? type : [type]) as JsonType[];
    return { kind: 'type', path, expected, got: jsonTypeOf(valueAt(body, path)) };
  }
  let detail = e.message ?? 'is invalid';
  if (e.keyword === 'enum') detail = `must be one of: ${(e.params['allowedValues'] as unknown[]).join(', ')}`;
  if (e.keyword === 'minItems') detail = 'must not be empty';
  return { kind: 'invalid', path: pathOf(e.instancePath), keyword: e.keyword, detail };
}
