// The `asset://` links of a video task, checked before anything is sent. Each must be an asset the gateway knows,
// in a group bound to the calling key (of its account), `Active` (a `Processing` one is read again from its library
// once, since the store keeps the library's last word), and all of them in one channel's library: the task runs
// there, since Ark resolves a link only within the project that holds it. A link the key does not own is answered
// exactly as one that does not exist.

import type { AssetLibraries } from '../assets/libraries.js';
import { ownsGroup } from '../assets/owns-group.js';
import { GatewayError } from '../errors.js';
import type { AssetRow, AssetStatus, AssetStore, GroupOwner } from '../store/asset-store.js';

export interface AssetLinkDeps {
  readonly assets: AssetStore;
  readonly libraries: AssetLibraries;
  readonly signal?: AbortSignal;
}

function unknownAsset(id: string): GatewayError {
  return new GatewayError('GW_ERR_VIDEO_ASSET_REFUSED', `The content links to asset://${id.slice(0, 128)}, which is not found.`, { param: 'content' });
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

/**
 * Checks `ids` for `owner`; the channel whose library holds them all (null when there are none). Throws the 400
 * naming the first link that fails.
 */
export async function checkAssetLinks(ids: readonly string[], owner: GroupOwner, deps: AssetLinkDeps): Promise<string | null> {
  let channel: string | null = null;
  const rows = ids.length === 0 ? [] : await deps.assets.assetsByIds(ids);
  for (const id of ids) {
    const asset = rows.find((row) => row.id === id);
    if (asset === undefined) throw unknownAsset(id);
    const group = await deps.assets.group(asset.groupId);
    // Another key's, another account's, or unbound (its key revoked): all answered as missing.
    if (!ownsGroup(owner, group)) throw unknownAsset(id);
    const status = asset.status === 'Active' ? 'Active' : await refreshed(asset, deps);
    if (status === 'Processing') {
      throw new GatewayError('GW_ERR_VIDEO_ASSET_NOT_READY', `asset://${id} is not ready yet (Processing): retry once GetAsset says Active.`, { param: 'content' });
    }
    if (status !== 'Active') throw new GatewayError('GW_ERR_VIDEO_ASSET_NOT_READY', `asset://${id} cannot be used: its status is ${status}.`, { param: 'content' });
    if (channel !== null && channel !== asset.channel) {
      throw new GatewayError('GW_ERR_VIDEO_ASSET_CHANNELS', `asset://${id} is in another library than the task's other assets: one task may link to one library's assets only.`, {
        param: 'content',
      });
    }
    channel = asset.channel;
  }
  return channel;
}
