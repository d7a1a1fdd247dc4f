// /console/api/asset-groups: the asset groups made through the gateway's keys, each with the key it belongs to and
// its newest assets, for an account's users (their own account's, read-only) and the operator (every account's, or
// one's); and POST /console/api/asset-groups/{id}/bind, the operator moving a group to another live key of its
// account (rebind.ts), as after a key rotation. Ownership is the store's; the library is only asked about
// assets still Processing, so that the page shows them Active once the library says so.

import { rebindGroup } from './rebind.js';
import type { RequestContext } from '../../core/pipeline/context.js';
import type { GatewayServices, RelayResult } from '../../core/pipeline/plugin.js';
import type { AssetGroupRow, AssetRow, AssetStatus } from './asset-store.js';
import { offsetParam } from '../../core/console/query-params.js';
import { consoleJson } from '../../core/console/console-answer.js';
import { scopeOf } from '../../core/console/scope.js';
import { sessionOf } from '../../core/console/session-slot.js';
import { ASSET_STORE } from './store-part.js';
import { ASSETS } from './services.js';

const PAGE = 50;
/** The newest assets shown under each group (the library's own list has them all). */
const ASSETS_PER_GROUP = 50;
/** Library reads per page load: enough for what was just uploaded, bounded however many old assets never settled. */
const MAX_REFRESHES = 20;
/** A slow library delays the page by at most this much; the stored status is shown meanwhile. */
const REFRESH_TIMEOUT_MS = 3_000;
const STATUSES: ReadonlySet<string> = new Set<AssetStatus>(['Processing', 'Active', 'Failed']);

/** Every key's name by id: run-time keys (revoked ones too: a group may still name one) and declared ones. */
async function keyNames(services: GatewayServices): Promise<Map<string, string>> {
  const names = new Map((await services.store.listKeys()).map((k): [string, string] => [k.id, k.name]));
  for (const key of services.config.keys) names.set(`config:${key.name}`, key.name);
  return names;
}

/** What the library says of a Processing asset now, written to the store when it changed; undefined when it did not. */
async function readStatus(services: GatewayServices, asset: AssetRow, signal: AbortSignal): Promise<AssetStatus | undefined> {
  const library = services.feature(ASSETS).byName(asset.channel)?.library;
  if (library === undefined) return undefined;
  try {
    const answer = await library.call('GetAsset', { Id: asset.id }, signal);
    const result = answer.body['Result'];
    const status = typeof result === 'object' && result !== null ? (result as Record<string, unknown>)['Status'] : undefined;
    if (answer.status !== 200 || typeof status !== 'string' || !STATUSES.has(status) || status === asset.status) return undefined;
    await services.store.part(ASSET_STORE).setAssetStatus(asset.id, status as AssetStatus, Date.now());
    return status as AssetStatus;
  } catch {
    // A page that shows the stored status is better than no page: the next load asks again.
    return undefined;
  }
}

/** The statuses of the first MAX_REFRESHES Processing assets shown, as their libraries now say, by asset id. */
async function refreshStatuses(ctx: RequestContext, services: GatewayServices, assets: readonly AssetRow[]): Promise<Map<string, AssetStatus>> {
  const processing = assets.filter((a) => a.status === 'Processing').slice(0, MAX_REFRESHES);
  if (processing.length === 0) return new Map();
  const signal = AbortSignal.any([ctx.abort.signal, AbortSignal.timeout(REFRESH_TIMEOUT_MS)]);
  const read = await Promise.all(processing.map((a) => readStatus(services, a, signal)));
  return new Map(processing.flatMap((a, i): [string, AssetStatus][] => (read[i] === undefined ? [] : [[a.id, read[i]]])));
}

function shownGroup(group: AssetGroupRow, assets: readonly AssetRow[], names: ReadonlyMap<string, string>, fresh: ReadonlyMap<string, AssetStatus>): Record<string, unknown> {
  return {
    id: group.id,
    name: group.name,
    channel: group.channel,
    account: group.account,
    key: { id: group.keyId, name: names.get(group.keyId) ?? null },
    bound: group.bound,
    created_at: new Date(group.createdAt).toISOString(),
    assets: assets.map((a) => ({ id: a.id, asset_type: a.assetType, status: fresh.get(a.id) ?? a.status, created_at: new Date(a.createdAt).toISOString() })),
  };
}

/** A page of `account`'s groups (null: every account's, the operator's view), newest first. */
export async function assetGroupsPage(ctx: RequestContext, services: GatewayServices, account: string | null, query: URLSearchParams): Promise<Record<string, unknown>> {
  const assets = services.store.part(ASSET_STORE);
  const offset = offsetParam(query);
  const found = await assets.accountGroups(account, { offset, limit: PAGE });
  // One read per group: a group with thousands of assets cannot crowd the others out of the page.
  const [shown, names] = await Promise.all([Promise.all(found.rows.map((g) => assets.groupAssets([g.id], ASSETS_PER_GROUP))), keyNames(services)]);
  const fresh = await refreshStatuses(ctx, services, shown.flat());
  return { object: 'list', data: found.rows.map((g, i) => shownGroup(g, shown[i] ?? [], names, fresh)), total: found.total, offset };
}

/** The operator's rebinding (index.ts lets no one else here): the group as it now is. */
export async function bindAssetGroup(ctx: RequestContext, services: GatewayServices): Promise<Record<string, unknown>> {
  const { store, config } = services;
  const group = await rebindGroup(store, config, ctx.params?.['id'] ?? '', ctx.request.head['key']);
  const [assets, names] = await Promise.all([store.part(ASSET_STORE).groupAssets([group.id], ASSETS_PER_GROUP), keyNames(services)]);
  return shownGroup(group, assets, names, new Map());
}

/** GET /console/api/asset-groups */
export async function listConsoleGroups(ctx: RequestContext, services: GatewayServices): Promise<RelayResult> {
  const query = new URLSearchParams(ctx.query);
  return consoleJson(200, await assetGroupsPage(ctx, services, await scopeOf(services, sessionOf(ctx).user, query), query));
}

/** POST /console/api/asset-groups/{id}/bind (the operator's) */
export async function bindConsoleGroup(ctx: RequestContext, services: GatewayServices): Promise<RelayResult> {
  return consoleJson(200, await bindAssetGroup(ctx, services));
}
