// GET /v1/models and /v1/models/{id}: the models the caller's group may use, in the OpenAI list shape, or in
// Anthropic's (paged, with display names) for an Anthropic client (its format says which).

import { GatewayError } from '../../core/errors.js';
import { callableModels } from '../../core/keys/callable-models.js';
import { jsonAnswer } from '../../core/pipeline/json-answer.js';
import type { RequestContext } from '../../core/pipeline/context.js';
import type { GatewayServices, RelayResult } from '../../core/pipeline/plugin.js';

/** Models have no creation date of their own here; a fixed one keeps the answer stable across restarts. */
const CREATED = 1_700_000_000;
/** CREATED in Anthropic's shape. */
const CREATED_AT = '2023-11-14T22:13:20Z';

/** Anthropic's page size bounds (limit defaults to 20, at most 1000). */
const DEFAULT_LIMIT = 20;
const MAX_LIMIT = 1000;

/** GET /v1/models: the list, whole in OpenAI's shape, paged in Anthropic's. */
export function listModels(ctx: RequestContext, services: GatewayServices): Promise<RelayResult> {
  const models = visibleModels(ctx, services);
  if (ctx.format.name !== 'anthropic-messages') return json({ object: 'list', data: models.map(openAIModel) });
  return json(anthropicPage(models, new URLSearchParams(ctx.query)));
}

/** GET /v1/models/{id}: one model the caller may use; any other is not found, whether it exists or not. */
export function showModel(ctx: RequestContext, services: GatewayServices): Promise<RelayResult> {
  const id = ctx.params?.['id'] ?? '';
  if (!visibleModels(ctx, services).includes(id)) throw new GatewayError('GW_ERR_MODEL_NOT_FOUND', `The model "${id}" does not exist or you do not have access to it.`);
  return json(ctx.format.name === 'anthropic-messages' ? anthropicModel(id) : openAIModel(id));
}

/** The caller's models: every one, whatever its channel speaks, since requests are translated across formats. */
function visibleModels(ctx: RequestContext, services: GatewayServices): string[] {
  return callableModels(ctx.key, services.catalog, services.access);
}

function json(value: unknown): Promise<RelayResult> {
  return Promise.resolve(jsonAnswer(200, value));
}

function openAIModel(id: string): Record<string, unknown> {
  return { id, object: 'model', created: CREATED, owned_by: 'llm-gateway' };
}

function anthropicModel(id: string): Record<string, unknown> {
  return { type: 'model', id, display_name: id, created_at: CREATED_AT };
}

/** Anthropic's cursor paging: `after_id` / `before_id` name an id of the list, `limit` the page size. */
function anthropicPage(models: readonly string[], query: URLSearchParams): Record<string, unknown> {
  const limitText = query.get('limit');
  const limit = limitText === null ? DEFAULT_LIMIT : Number(limitText);
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) {
    throw new GatewayError('GW_ERR_REQUEST_INVALID_FIELD', `limit: Input should be an integer from 1 to ${MAX_LIMIT}`, {
      param: 'limit',
    });
  }
  const afterId = query.get('after_id');
  const beforeId = query.get('before_id');
  let page: readonly string[];
  let hasMore: boolean;
  if (beforeId !== null) {
    const end = models.indexOf(beforeId);
    const before = end < 0 ? [] : models.slice(0, end);
    page = before.slice(Math.max(0, before.length - limit));
    hasMore = before.length > limit;
  } else {
    const start = afterId === null ? 0 : models.indexOf(afterId) + 1;
    const after = afterId !== null && start === 0 ? [] : models.slice(start);
    page = after.slice(0, limit);
    hasMore = after.length > limit;
  }
  return {
    data: page.map(anthropicModel),
    has_more: hasMore,
    first_id: page[0] ?? null,
    last_id: page[page.length - 1] ?? null,
  };
}
