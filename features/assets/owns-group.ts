// Whether a key reaches an asset group: bound to that key, and of its account (a declared key's id is its name, so a
// key declared again under that name for another account must not find the groups the first one made). Everything
// else is answered as missing, by the asset library's actions and by video tasks' asset:// links alike.

import type { AssetGroupRow, GroupOwner } from './asset-store.js';

export function ownsGroup(owner: GroupOwner, group: AssetGroupRow | undefined): group is AssetGroupRow {
  return group !== undefined && group.bound && group.keyId === owner.keyId && group.account === owner.account;
}
