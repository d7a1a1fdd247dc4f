// The admin API's asset groups: GET /admin/asset-groups (the groups made through the gateway, by ?account= or
// ?key=), and POST /admin/asset-groups/{id}/bind {"key": "<id or name>"}: a group moved to another key of its
// account (key rotation).

import { describeGroup, rebindGroup } from './rebind.js';
import { GatewayError } from '../../core/errors.js';
import type { RequestContext } from '../../core/pipeline/context.js';
import { jsonAnswer } from '../../core/pipeline/json-answer.js';
import type { GatewayServices, RelayResult } from '../../core/pipeline/plugin.js';
import { ASSET_STORE } from './store-part.js';

const PAGE = 100;

/** GET /admin/asset-groups */
export async function listGroups(ctx: RequestContext, services: GatewayServices): Promise<RelayResult> {
  const params = new URLSearchParams(ctx.query.startsWith('?') ? ctx.query.slice(1) : ctx.query);
  const offset = Number(params.get('offset') ?? '0');
  if (!Number.isSafeInteger(offset) || offset < 0) throw new GatewayError('GW_ERR_REQUEST_INVALID_FIELD', 'offset must be a whole number from 0.', { param: 'offset' });
  const key = params.get('key');
  const found = await services.store.part(ASSET_STORE).accountGroups(params.get('account'), key === null ? { offset, limit: PAGE } : { offset, limit: PAGE, keyId: key });
  return jsonAnswer(200, { object: 'list', data: found.rows.map(describeGroup), total: found.total, offset });
}

/** POST /admin/asset-groups/{id}/bind */
export async function bindGroup(ctx: RequestContext, services: GatewayServices): Promise<RelayResult> {
  const group = await rebindGroup(services.store, services.config, ctx.params?.['id'] ?? '', ctx.request.head['key']);
  return jsonAnswer(200, describeGroup(group));
}
