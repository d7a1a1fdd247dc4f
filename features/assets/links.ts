// The `asset://` links of a request's content (a video task's), checked before anything is sent: the assets side of
// core's ContentLinks (core/feature/content-links.ts). Each must be an asset the gateway knows, in a group bound to
// the calling key (of its account), and `Active` (a `Processing` one is read again from its library once, since the
// store keeps the library's last word). Each comes back with its library's channel: the request runs there. A link
// the key does not own is answered exactly as one that does not exist.

import type { AssetLibraries } from './libraries.js';
import { ownsGroup } from './owns-group.js';
import { GatewayError } from '../../core/errors.js';
import type { AssetRow, AssetStatus, AssetStore, GroupOwner } from './asset-store.js';
import { ASSET_ERRORS } from './errors.js';
import type { LinkedItem } from '../../core/feature/content-links.js';

export interface AssetLinkDeps {
  readonly assets: AssetStore;
  readonly libraries: AssetLibraries;
  readonly signal?: AbortSignal;
}

function unknownAsset(id: string): GatewayError {
  return new GatewayError(ASSET_ERRORS.GW_ERR_VIDEO_ASSET_REFUSED, `The content links to asset://${id.slice(0, 128)}, which is not found.`, { param: 'content' });
}

const STATUSES: ReadonlySet<string> = new Set<AssetStatus>(['Processing', 'Active', 'Failed']);

/** The library's status of a Processing asset, saved to the store when it changed; the stored one if it cannot say. */
async function refreshed(asset: AssetRow, deps: AssetLinkDeps): Promise<AssetStatus> {
  const channel = deps.libraries.byName(asset.channel);
  if (channel === undefined) return asset.status;
  const answer = await channel.library.call('GetAsset', { Id: asset.id }, deps.signal);
  const result = answer.body['Result'];
  const status = typeof result === 'object' && result !== null ? (result as Record<string, unknown>)['Status'] : undefined;
  if (answer.status !== 200 || typeof status !== 'string' || !STATUSES.has(status)) return asset.status;
  if (status !== asset.status) await deps.assets.setAssetStatus(asset.id, status as AssetStatus, Date.now());
  return status as AssetStatus;
}

/** Each of `ids` as `owner` may use it, with the channel whose library holds it; throws the 400 naming the first that fails. */
export async function resolveAssetLinks(ids: readonly string[], owner: GroupOwner, deps: AssetLinkDeps): Promise<readonly LinkedItem[]> {
  const rows = ids.length === 0 ? [] : await deps.assets.assetsByIds(ids);
  const items: LinkedItem[] = [];
  for (const id of ids) {
    const asset = rows.find((row) => row.id === id);
    if (asset === undefined) throw unknownAsset(id);
    const group = await deps.assets.group(asset.groupId);
    // Another key's, another account's, or unbound (its key revoked): all answered as missing.
    if (!ownsGroup(owner, group)) throw unknownAsset(id);
    const status = asset.status === 'Active' ? 'Active' : await refreshed(asset, deps);
    if (status === 'Processing') {
      throw new GatewayError(ASSET_ERRORS.GW_ERR_VIDEO_ASSET_NOT_READY, `asset://${id} is not ready yet (Processing): retry once GetAsset says Active.`, { param: 'content' });
    }
    if (status !== 'Active') throw new GatewayError(ASSET_ERRORS.GW_ERR_VIDEO_ASSET_NOT_READY, `asset://${id} cannot be used: its status is ${status}.`, { param: 'content' });
    items.push({ id, channel: asset.channel });
  }
  return items;
}
