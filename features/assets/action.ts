// POST /v1/videogen/asset/{action}: Volcengine's asset library for the gateway's callers. Every group made through a
// key belongs to that key (the store records group -> key, account and channel, and asset -> group); each action
// reaches only the caller's own bound groups and their assets, and anything else is answered as missing. The
// library's calls are signed with the operator's AK/SK, which no caller ever sees. Charging is quota's (a flat price
// per call, pricing.calls: `videogen.asset.CreateAsset`), recording meter's. The action is the API's own parameter
// (Volcengine's Action), one route for the eight.

import type { AssetAction } from './library.js';
import { GatewayError } from '../../core/errors.js';
import type { AuthedKey } from '../../core/keys/key-ring.js';
import type { RequestContext } from '../../core/pipeline/context.js';
import type { GatewayServices, RelayResult } from '../../core/pipeline/plugin.js';
import { envelope } from './answer.js';
import { createAsset, getAsset, updateAsset } from './assets.js';
import { listAssets } from './list-assets.js';
import { createGroup, getGroup, listGroups, updateGroup } from './groups.js';
import { textOf, type Body } from './request-fields.js';
import { SUBJECT } from '../../core/pipeline/request-slots.js';
import { ASSET_ERRORS } from './errors.js';

type Action = (ctx: RequestContext, services: GatewayServices, key: AuthedKey, body: Body) => Promise<Record<string, unknown>>;

const ACTIONS: ReadonlyMap<string, Action> = new Map<AssetAction, Action>([
  ['CreateAssetGroup', createGroup],
  ['GetAssetGroup', getGroup],
  ['UpdateAssetGroup', updateGroup],
  ['ListAssetGroups', listGroups],
  ['CreateAsset', createAsset],
  ['GetAsset', getAsset],
  ['UpdateAsset', updateAsset],
  ['ListAssets', listAssets],
]);

export async function runAction(ctx: RequestContext, services: GatewayServices): Promise<RelayResult> {
  const key = ctx.key;
  if (key === null) throw new GatewayError('GW_ERR_AUTH_MISSING_KEY', 'An API key is required.');
  // The format read the action from the path and checked the body against its schema.
  const action = ctx.params?.['action'] ?? '';
  const run = ACTIONS.get(action);
  if (run === undefined) throw new GatewayError(ASSET_ERRORS.GW_ERR_ASSET_ACTION_UNKNOWN, `The asset library has no action "${action.slice(0, 64)}".`);
  const result = await run(ctx, services, key, ctx.request.head);
  const subject = subjectOf(action, ctx.request.head, result);
  if (subject !== null) ctx.set(SUBJECT, subject);
  return envelope(ctx, action, result);
}

/** The asset or group a call made or acted on (its usage record names it: the console's request detail); a list none. */
function subjectOf(action: string, body: Body, result: Record<string, unknown>): string | null {
  if (action.startsWith('List')) return null;
  const made = result['Id'];
  const id = typeof made === 'string' ? made : textOf(body, 'Id');
  if (id === undefined || id === '') return null;
  return `${action.endsWith('Group') ? 'asset_group' : 'asset'}:${id}`;
}
