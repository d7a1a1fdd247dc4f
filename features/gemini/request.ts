// Reads a Gemini request: the model and the method from the path (`/v1beta/models/{model}:streamGenerateContent`),
// whether to stream from the query (`alt=sse`), the body checked as far as the gateway reads it, problems worded as
// Google words them ("Invalid JSON payload received. ...").

import { createHash } from 'node:crypto';
import { GatewayError } from '../../core/errors.js';
import type { BodyBytes } from '../../core/formats/body-bytes.js';
import type { ParsedRequest } from '../../core/formats/format.js';
import { createJsonBodyReader, type BodyProblem } from '../../core/formats/json-request.js';
import { LazyRequest } from '../../core/formats/lazy-request.js';
import { topLevelFirstElement, topLevelPairs, type Pair } from '../../core/formats/json-scan.js';
import type { ScanMemory } from '../../core/formats/scan-memory.js';

/** How a route answers: one response, a stream of them as SSE (`alt=sse`), or that stream as one JSON array (no `alt`). */
export type GeminiMethod = 'generateContent' | 'streamGenerateContent' | 'countTokens';

/** The fields the gateway reads that Google's parser takes in either case. */
const TWICE: readonly (readonly [string, string])[] = [['generationConfig', 'generation_config']];

export type GeminiDecoder = (raw: BodyBytes, contentType?: string, params?: Readonly<Record<string, string>>, query?: string) => ParsedRequest;

export function createGeminiDecoder(method: GeminiMethod, memory: ScanMemory): GeminiDecoder {
  const read = createJsonBodyReader(method === 'countTokens' ? 'gemini-count-tokens.request.schema.json' : 'gemini-generate.request.schema.json', wordProblem, memory);
  return function decodeGeminiRequest(raw, _contentType, params, query): ParsedRequest {
    const body = read(raw);
    // Two spellings of one object: which one Google reads is its own affair, and the cap reserved could be the other's.
    for (const [camel, snake] of TWICE) {
      if (body.head[camel] !== undefined && body.head[snake] !== undefined) {
        throw new GatewayError('GW_ERR_REQUEST_INVALID_FIELD', `Invalid JSON payload received. "${camel}" and "${snake}" name one field; send one of them.`, { param: camel });
      }
    }
    const config = body.head['generationConfig'] ?? body.head['generation_config'];
    if (typeof config === 'object' && config !== null) refuseRepeatedCaps(raw.joined());
    const model = params?.['model'] ?? '';
    // Google's error for a path without a model; the router never matches an empty segment, so this is a safeguard.
    if (model === '') throw new GatewayError('GW_ERR_REQUEST_MISSING_FIELD', 'Invalid model name: the path names no model.', { param: 'model' });
    const stream = method === 'streamGenerateContent' && sseAsked(query ?? '');
    const bytes = raw.joined();
    refuseProjectObjects(body.head, bytes, () => body.whole());
    return new LazyRequest(raw, body.head, body, model, stream, conversationOf(bytes));
  };
}

/**
 * The fields of generationConfig the reservation reads, given twice: JSON.parse keeps the last, and were Google to keep
 * the first, a request could be reserved for one candidate of one token and be served eight of 65,536 (as a repeated
 * top-level field is refused: json-request.ts).
 */
const READ_IN_CONFIG: ReadonlySet<string> = new Set(['maxOutputTokens', 'max_output_tokens', 'candidateCount', 'candidate_count']);

function refuseRepeatedCaps(raw: Buffer): void {
  let outer: readonly Pair[];
  try {
    outer = topLevelPairs(raw).pairs;
  } catch {
    return; // The shallow check parsed it already: nothing a walk refuses is left to find here.
  }
  for (const pair of outer) {
    if (pair.name !== 'generationConfig' && pair.name !== 'generation_config') continue;
    let inner: readonly Pair[];
    try {
      inner = topLevelPairs(raw.subarray(pair.valueStart, pair.valueEnd)).pairs;
    } catch {
      continue;
    }
    const seen = new Set<string>();
    for (const field of inner) {
      if (!READ_IN_CONFIG.has(field.name)) continue;
      if (seen.has(field.name)) {
        throw new GatewayError('GW_ERR_REQUEST_INVALID_FIELD', `Invalid JSON payload received. "${pair.name}.${field.name}" is given more than once; send each field once.`, {
          param: `${pair.name}.${field.name}`,
        });
      }
      seen.add(field.name);
    }
  }
}

/** `alt=sse`: what Google's SDKs and Gemini CLI always send on a stream; without it the stream is one JSON array. */
export function sseAsked(query: string): boolean {
  return query !== '' && new URLSearchParams(query).get('alt') === 'sse';
}

/**
 * The conversation a request continues, for affinity: Gemini's requests name none, so its opening stands for it (the
 * system instruction and the first content, which a conversation keeps as it grows), as their bytes' SHA-256.
 */
function conversationOf(raw: Buffer): string | null {
  const system = topLevelFirstElement(raw, 'systemInstruction') ?? topLevelFirstElement(raw, 'system_instruction');
  const first = topLevelFirstElement(raw, 'contents');
  if (first === undefined) return null;
  const hash = createHash('sha256');
  if (system !== undefined) hash.update(system);
  return `gemini:${hash.update(SEPARATOR).update(first).digest('base64url')}`;
}

const SEPARATOR = '\u0000';

/**
 * Names of Google's own stores (its Files API, Cloud Storage, its caches) live in the channel's Google project: the
 * gateway serves neither API, so such a name is never the caller's to use, and one caller could read another's.
 */
function refuseProjectObjects(head: Readonly<Record<string, unknown>>, raw: Buffer, whole: () => Record<string, unknown>): void {
  if (head['cachedContent'] !== undefined || head['cached_content'] !== undefined) {
    throw new GatewayError('GW_ERR_REQUEST_INVALID_FIELD', 'cachedContent names a cache in the channel\'s Google project, which this gateway does not serve; send the content itself.', { param: 'cachedContent' });
  }
  // Most requests hold no file by URI: the body's bytes say so without a parse.
  if (!raw.includes('fileUri') && !raw.includes('file_uri')) return;
  const uri = foreignFile(whole(), 0);
  if (uri !== null) {
    throw new GatewayError('GW_ERR_REQUEST_INVALID_FIELD', `fileData.fileUri "${uri.slice(0, 100)}" names a file in the channel's Google project (its Files API or Cloud Storage), which this gateway does not serve; send the file inline or by a public URL.`, { param: 'fileData.fileUri' });
  }
}

const PROJECT_FILE = /^(gs:\/\/|files\/|https:\/\/generativelanguage\.googleapis\.com\/)/i;

function foreignFile(value: unknown, depth: number): string | null {
  if (typeof value !== 'object' || value === null || depth > 32) return null;
  for (const [name, item] of Object.entries(value)) {
    if ((name === 'fileUri' || name === 'file_uri') && typeof item === 'string' && PROJECT_FILE.test(item.trim())) return item;
    const found = foreignFile(item, depth + 1);
    if (found !== null) return found;
  }
  return null;
}

/** Google's words for a body it cannot read: every problem is a 400 INVALID_ARGUMENT naming the field. */
function wordProblem(problem: BodyProblem): GatewayError {
  switch (problem.kind) {
    case 'json':
      return new GatewayError('GW_ERR_REQUEST_INVALID_JSON', `Invalid JSON payload received. ${problem.detail}`);
    case 'not_object':
      return new GatewayError('GW_ERR_REQUEST_INVALID_FIELD', 'Invalid JSON payload received. The request body must be a JSON object.');
    case 'missing':
      return new GatewayError('GW_ERR_REQUEST_MISSING_FIELD', `* GenerateContentRequest.${problem.path.join('.')}: contents is not specified`, { param: problem.path.join('.') });
    case 'type':
      return new GatewayError('GW_ERR_REQUEST_INVALID_FIELD', `Invalid JSON payload received. Invalid value at '${problem.path.join('.')}' (expected ${problem.expected.join(' or ')}, got ${problem.got}).`, {
        param: problem.path.join('.'),
      });
    case 'invalid':
      return new GatewayError('GW_ERR_REQUEST_INVALID_FIELD', `Invalid value at '${problem.path.join('.')}': ${problem.detail}.`, { param: problem.path.join('.') });
  }
}
