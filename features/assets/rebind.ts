// The operator's side of asset ownership: listing an account's groups, and binding a group to another key of the same
// account (a key rotation: the old key was revoked, which unbound its groups). Used by the CLI, the admin API and the
// console; never by a key holder.

import type { ResolvedConfig } from '../../core/config/resolved.js';
import { GatewayError } from '../../core/errors.js';
import type { AssetGroupRow } from './asset-store.js';
import type { Store } from '../../core/store/store.js';
import { ASSET_ERRORS } from './errors.js';
import { ASSET_STORE } from './store-part.js';

/** A key a group may be bound to: live (not revoked), declared in gateway.yaml or made at run time. */
interface BindableKey {
  readonly id: string;
  readonly name: string;
  readonly account: string | null;
}

async function findKey(store: Store, config: ResolvedConfig, idOrName: string): Promise<BindableKey | undefined> {
  const stored = (await store.listKeys()).filter((k) => k.revokedAt === null);
  const run = stored.find((k) => k.id === idOrName) ?? stored.find((k) => k.name === idOrName);
  if (run !== undefined) return { id: run.id, name: run.name, account: run.account ?? null };
  const declared = config.keys.find((k) => `config:${k.name}` === idOrName || k.name === idOrName);
  return declared === undefined ? undefined : { id: `config:${declared.name}`, name: declared.name, account: declared.account ?? null };
}

/** Binds group `groupId` to key `keyRef` (an id or a name) of the group's own account; returns the group as it now is. */
export async function rebindGroup(store: Store, config: ResolvedConfig, groupId: string, keyRef: unknown): Promise<AssetGroupRow> {
  if (typeof keyRef !== 'string' || keyRef === '') {
    throw new GatewayError('GW_ERR_REQUEST_MISSING_FIELD', 'Name the key to bind the group to: {"key": "<key id or name>"}.', { param: 'key' });
  }
  const group = await store.part(ASSET_STORE).group(groupId);
  if (group === undefined) throw new GatewayError(ASSET_ERRORS.GW_ERR_ASSET_GROUP_NOT_FOUND, `No asset group ${groupId.slice(0, 128)} was made through this gateway.`);
  const key = await findKey(store, config, keyRef);
  if (key === undefined) throw new GatewayError('GW_ERR_REQUEST_INVALID_FIELD', `No live key is called ${keyRef.slice(0, 128)} (revoked keys cannot hold groups).`, { param: 'key' });
  // A group moves between keys of one account only: another account's key would read what it never paid for.
  if (key.account !== group.account) {
    const owner = group.account === null ? 'no account' : `account ${group.account}`;
    throw new GatewayError('GW_ERR_REQUEST_INVALID_FIELD', `The group belongs to ${owner}; key ${key.name} does not. A group moves only between keys of its own account.`, {
      param: 'key',
    });
  }
  await store.part(ASSET_STORE).bindGroup(group.id, key.id, Date.now());
  return Object.assign({}, group, { keyId: key.id, bound: true });
}

/** A group as the CLI and the admin API show it. */
export function describeGroup(group: AssetGroupRow): Record<string, unknown> {
  return {
    id: group.id,
    name: group.name,
    channel: group.channel,
    key_id: group.keyId,
    account: group.account,
    bound: group.bound,
    created_at: new Date(group.createdAt).toISOString(),
  };
}
