// Creating and revoking run-time keys: shared by the CLI and the admin HTTP API.

import type { ResolvedConfig } from '../config/resolved.js';
import { GatewayError } from '../errors.js';
import type { Store, StoredKey } from '../store/store.js';
import { digestKey, generateKey, keyPrefix, newKeyId } from './key-material.js';

const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

export interface CreatedKey {
  /** The key in clear: shown once, never stored. */
  readonly key: string;
  readonly record: StoredKey;
}

export async function createKey(
  store: Store,
  config: ResolvedConfig,
  input: { readonly name: unknown; readonly group: unknown },
): Promise<CreatedKey> {
  if (typeof input.name !== 'string' || !NAME.test(input.name)) {
    throw new GatewayError('GW_ERR_REQUEST_INVALID_FIELD', 'name must be 1-64 letters, digits, "_", "." or "-".', { param: 'name' });
  }
  if (typeof input.group !== 'string' || !config.groups.has(input.group)) {
    const known = [...config.groups.keys()].join(', ') || '(none)';
    throw new GatewayError('GW_ERR_REQUEST_INVALID_FIELD', `group must be one of the configured groups: ${known}.`, { param: 'group' });
  }
  if (config.keys.some((k) => k.name === input.name) || (await store.listKeys()).some((k) => k.name === input.name)) {
    throw new GatewayError('GW_ERR_REQUEST_INVALID_FIELD', `A key named "${input.name}" already exists.`, { param: 'name' });
  }
  const key = generateKey();
  const record = await store.createKey({
    id: newKeyId(),
    name: input.name,
    group: input.group,
    prefix: keyPrefix(key),
    hash: digestKey(key),
    createdAt: Date.now(),
  });
  return { key, record };
}

/** The JSON shape of a key in listings: never the hash. */
export function describeKey(k: StoredKey): Record<string, unknown> {
  return {
    id: k.id,
    name: k.name,
    group: k.group,
    prefix: k.prefix,
    created_at: new Date(k.createdAt).toISOString(),
    revoked_at: k.revokedAt === null ? null : new Date(k.revokedAt).toISOString(),
  };
}
