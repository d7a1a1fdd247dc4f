// /admin/asset-groups: the groups made through the gateway (GET, by ?account= or ?key=), and POST
// /admin/asset-groups/{id}/bind {"key": "<id or name>"}: a group moved to another key of its account (key rotation).

import { describeGroup, GatewayError, rebindGroup, type GatewayServices, type RelayResult, type RequestContext } from '../../core/index.js';
import { json } from './json.js';

const PAGE = 100;

export async function assetGroupsAnswer(ctx: RequestContext, services: GatewayServices): Promise<RelayResult> {
  const { store, config } = services;
  if (ctx.method === 'POST') {
    const id = ctx.params?.['id'] ?? '';
    const group = await rebindGroup(store, config, id, ctx.request.head['key']);
    return json(200, describeGroup(group));
  }
  const params = new URLSearchParams(ctx.query.startsWith('?') ? ctx.query.slice(1) : ctx.query);
  const offset = Number(params.get('offset') ?? '0');
  if (!Number.isSafeInteger(offset) || offset < 0) throw new GatewayError('GW_ERR_REQUEST_INVALID_FIELD', 'offset must be a whole number from 0.', { param: 'offset' });
  const key = params.get('key');
  const found = await store.assets.accountGroups(params.get('account'), key === null ? { offset, limit: PAGE } : { offset, limit: PAGE, keyId: key });
  return json(200, { object: 'list', data: found.rows.map(describeGroup), total: found.total, offset });
}
