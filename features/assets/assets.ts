// The asset actions on one asset: CreateAsset (into the caller's own bound group, its URL checked first), GetAsset and
// UpdateAsset. ListAssets is list-assets.ts.

import { checkPublicUrl } from '../../core/http/public-url.js';
import { GatewayError } from '../../core/errors.js';
import type { AuthedKey } from '../../core/keys/key-ring.js';
import type { RequestContext } from '../../core/pipeline/context.js';
import type { GatewayServices } from '../../core/pipeline/plugin.js';
import type { AssetStatus } from './asset-store.js';
import { callerRecord } from './answer.js';
import { callLibrary, channelOf } from './library-call.js';
import { ownAsset, ownGroup } from './ownership.js';
import { textOf, type Body } from './request-fields.js';
import { ASSET_STORE } from './store-part.js';

export const STATUSES: ReadonlySet<string> = new Set<AssetStatus>(['Processing', 'Active', 'Failed']);

export async function createAsset(ctx: RequestContext, services: GatewayServices, key: AuthedKey, body: Body): Promise<Record<string, unknown>> {
  // A foreign or unbound group is refused as a missing one, before the URL is even looked at.
  const group = await ownGroup(services, key, textOf(body, 'GroupId') ?? '', 'GroupId');
  const url = await checkPublicUrl(body['URL'], services.resolveHost);
  const assetType = textOf(body, 'AssetType') ?? '';
  const sent: Record<string, unknown> = { GroupId: group.id, URL: url, AssetType: assetType };
  const name = textOf(body, 'Name');
  if (name !== undefined) sent['Name'] = name;
  const result = await callLibrary(ctx, services, channelOf(services, group.channel), 'CreateAsset', sent);
  const id = result['Id'];
  if (typeof id !== 'string' || id === '') throw new GatewayError('GW_ERR_UPSTREAM_ERROR', 'The asset library did not say which asset it made.');
  const at = Date.now();
  await services.store.part(ASSET_STORE).addAsset({ id, groupId: group.id, channel: group.channel, assetType, status: 'Processing', createdAt: at, updatedAt: at });
  return { Id: id };
}

export async function getAsset(ctx: RequestContext, services: GatewayServices, key: AuthedKey, body: Body): Promise<Record<string, unknown>> {
  const { asset, group } = await ownAsset(services, key, textOf(body, 'Id') ?? '');
  const channel = channelOf(services, group.channel);
  const record = callerRecord(await callLibrary(ctx, services, channel, 'GetAsset', { Id: asset.id }), channel);
  const status = record['Status'];
  // The store's copy of the status (video tasks read it), kept as the library last said; the caller's answer does not
  // wait on it, nor fail with it.
  if (typeof status === 'string' && STATUSES.has(status) && status !== asset.status) {
    services.store.part(ASSET_STORE).setAssetStatus(asset.id, status as AssetStatus, Date.now()).catch((err: unknown) => services.logger.warn({ err }, 'asset status not saved'));
  }
  return record;
}

export async function updateAsset(ctx: RequestContext, services: GatewayServices, key: AuthedKey, body: Body): Promise<Record<string, unknown>> {
  const { asset, group } = await ownAsset(services, key, textOf(body, 'Id') ?? '');
  const channel = channelOf(services, group.channel);
  return callerRecord(await callLibrary(ctx, services, channel, 'UpdateAsset', { Id: asset.id, Name: textOf(body, 'Name') ?? '' }), channel);
}
