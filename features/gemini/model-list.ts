// GET /v1beta/models and /v1beta/models/{model}: the models the caller's key may call, in Google's shape (`name` with
// the `models/` prefix, `supportedGenerationMethods`), which Gemini clients key on; an OpenAI-shaped list breaks them.

import { GatewayError } from '../../core/errors.js';
import type { BodyBytes } from '../../core/formats/body-bytes.js';
import type { ClientFormat, ParsedRequest } from '../../core/formats/format.js';
import { LazyRequest } from '../../core/formats/lazy-request.js';
import { plainFormat } from '../../core/formats/plain-format.js';
import { callableModels } from '../../core/keys/callable-models.js';
import type { RequestContext } from '../../core/pipeline/context.js';
import { jsonAnswer } from '../../core/pipeline/json-answer.js';
import type { GatewayServices, RelayResult } from '../../core/pipeline/plugin.js';
import { GEMINI_API } from './api-name.js';
import { encodeError, encodeStreamError, isErrorFrame } from './errors.js';

/** Google's page sizes: 50 unless asked, at most 1000. */
const DEFAULT_PAGE_SIZE = 50;
const MAX_PAGE_SIZE = 1000;
/** What every model here takes: any chat model is served through translation, and countTokens natively. */
const METHODS: readonly string[] = ['generateContent', 'streamGenerateContent', 'countTokens'];

const NONE: Readonly<Record<string, unknown>> = Object.freeze({});

/** No body; no one model (auth admits the key alone). */
function decodeRequest(raw: BodyBytes): ParsedRequest {
  return new LazyRequest(raw, NONE, { whole: () => ({}) }, '', false, null);
}

export function createGeminiModelListFormat(): ClientFormat {
  return plainFormat({ name: GEMINI_API, decodeRequest, encodeError, encodeStreamError, isErrorFrame });
}

/** GET /v1beta/models: a page of the caller's models, the next one named by `nextPageToken`. */
export function listGeminiModels(ctx: RequestContext, services: GatewayServices): Promise<RelayResult> {
  const models = callableModels(ctx.key, services.catalog, services.access);
  const query = new URLSearchParams(ctx.query);
  const size = pageSize(query.get('pageSize'));
  const start = startOf(query.get('pageToken'), models);
  const page = models.slice(start, start + size);
  const body: Record<string, unknown> = { models: page.map(geminiModel) };
  if (start + size < models.length) body['nextPageToken'] = tokenOf(models[start + size - 1] as string);
  return Promise.resolve(jsonAnswer(200, body));
}

/** GET /v1beta/models/{model}: one model the caller may use; any other is not found, whether it exists or not. */
export function showGeminiModel(ctx: RequestContext, services: GatewayServices): Promise<RelayResult> {
  // Google's SDKs also send the full name (`models/x` once decoded is not one segment, so only the bare id is here).
  const id = ctx.params?.['model'] ?? '';
  if (!callableModels(ctx.key, services.catalog, services.access).includes(id)) {
    throw new GatewayError('GW_ERR_MODEL_NOT_FOUND', `models/${id} is not found for API version v1beta, or you do not have access to it.`);
  }
  return Promise.resolve(jsonAnswer(200, geminiModel(id)));
}

function geminiModel(id: string): Record<string, unknown> {
  return { name: `models/${id}`, baseModelId: id, version: id, displayName: id, description: `${id}, served by the gateway`, supportedGenerationMethods: METHODS };
}

function pageSize(text: string | null): number {
  if (text === null || text === '') return DEFAULT_PAGE_SIZE;
  const size = Number(text);
  if (!Number.isInteger(size) || size < 0) throw new GatewayError('GW_ERR_REQUEST_INVALID_FIELD', 'Invalid value at \'page_size\': expected a whole number.', { param: 'pageSize' });
  // Google reads 0 as the default and caps larger sizes instead of refusing them.
  return size === 0 ? DEFAULT_PAGE_SIZE : Math.min(size, MAX_PAGE_SIZE);
}

/** A page token names the last model of the page before (base64url), so a list that changes between pages still pages on. */
function tokenOf(last: string): string {
  return Buffer.from(last, 'utf8').toString('base64url');
}

function startOf(token: string | null, models: readonly string[]): number {
  if (token === null || token === '') return 0;
  const last = Buffer.from(token, 'base64url').toString('utf8');
  const at = models.indexOf(last);
  if (at < 0) throw new GatewayError('GW_ERR_REQUEST_INVALID_FIELD', 'Invalid page token.', { param: 'pageToken' });
  return at + 1;
}
