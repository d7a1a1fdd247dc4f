// Isolation: a key reaches a group only if it owns it and the group is bound to it, and an asset only through such a
// group. Anything else is answered exactly as a group or asset that does not exist (the same code, status and
// words as Volcengine's own NotFound), so that no key learns what another key has.

import { ownsGroup } from './owns-group.js';
import { GatewayError } from '../../core/errors.js';
import type { AuthedKey } from '../../core/keys/key-ring.js';
import type { GatewayServices } from '../../core/pipeline/plugin.js';
import type { AssetGroupRow, AssetRow } from './asset-store.js';
import { ASSET_ERRORS } from './errors.js';
import { ASSET_STORE } from './store-part.js';

/** `param`: the field that named the group (`Id` of GetAssetGroup, `GroupId` of CreateAsset). */
export function groupNotFound(id: string, param: string): GatewayError {
  return new GatewayError(ASSET_ERRORS.GW_ERR_ASSET_GROUP_NOT_FOUND, `The specified asset_group ${id.slice(0, 128)} is not found.`, { param });
}

export function assetNotFound(id: string): GatewayError {
  return new GatewayError(ASSET_ERRORS.GW_ERR_ASSET_NOT_FOUND, `The specified asset ${id.slice(0, 128)} is not found.`, { param: 'Id' });
}

/** Bound to this key, and of its account (owns-group.ts). */
function owns(key: AuthedKey, group: AssetGroupRow | undefined): group is AssetGroupRow {
  return ownsGroup(ownerOf(key), group);
}

/** The key as an owner of groups, with its account. */
export function ownerOf(key: AuthedKey): { readonly keyId: string; readonly account: string | null } {
  return { keyId: key.id, account: key.account ?? null };
}

/** The caller's own bound group `id`, or the not-found error. */
export async function ownGroup(services: GatewayServices, key: AuthedKey, id: string, param: string): Promise<AssetGroupRow> {
  const group = await services.store.part(ASSET_STORE).group(id);
  if (!owns(key, group)) throw groupNotFound(id, param);
  return group;
}

/** The caller's own asset `id` (in a group bound to it) and its group, or the not-found error. */
export async function ownAsset(services: GatewayServices, key: AuthedKey, id: string): Promise<{ readonly asset: AssetRow; readonly group: AssetGroupRow }> {
  const asset = await services.store.part(ASSET_STORE).asset(id);
  const group = asset === undefined ? undefined : await services.store.part(ASSET_STORE).group(asset.groupId);
  if (asset === undefined || !owns(key, group)) throw assetNotFound(id);
  return { asset, group };
}
