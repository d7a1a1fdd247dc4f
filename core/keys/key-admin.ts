// Creating and revoking run-time keys: shared by the CLI and the admin HTTP API.

import type { ResolvedConfig, ResolvedLimits } from '../config/resolved.js';
import { GatewayError } from '../errors.js';
import type { Store, StoredKey } from '../store/store.js';
import { readAmount } from '../money/account-admin.js';
import { formatMoney } from '../money/decimal.js';
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
  input: { readonly name: unknown; readonly group: unknown; readonly account?: unknown; readonly max_spend?: unknown; readonly limits?: unknown },
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
  const money: { account?: string; maxSpend?: bigint } = {};
  if (input.account !== undefined && input.account !== null) {
    if (typeof input.account !== 'string' || (await store.ledger.getAccount(input.account)) === undefined) {
      throw new GatewayError('GW_ERR_REQUEST_INVALID_FIELD', 'account must name an existing account (create it first).', { param: 'account' });
    }
    money.account = input.account;
  }
  if (input.max_spend !== undefined && input.max_spend !== null) money.maxSpend = readAmount(input.max_spend, 'max_spend');
  const limits = readLimits(input.limits);
  const key = generateKey();
  const record = await store.createKey(
    Object.assign({ id: newKeyId(), name: input.name, group: input.group, prefix: keyPrefix(key), hash: digestKey(key), createdAt: Date.now() }, money, limits === null ? {} : { limits }),
  );
  return { key, record };
}

/** Each limit's largest value: the config file's (schemas/gateway.schema.json, Limits). */
const LIMIT_MAX = { rpm: 1_000_000_000, tpm: 1_000_000_000, concurrency: 1_000_000 } as const;
const LIMIT_NAMES = Object.keys(LIMIT_MAX) as readonly (keyof typeof LIMIT_MAX)[];

/**
 * A key's own limits, `{rpm?, tpm?, concurrency?}` of positive integers, as the config file's `limits` are; null
 * when absent or empty. They override its group's, as a declared key's do.
 */
export function readLimits(input: unknown): ResolvedLimits | null {
  if (input === undefined || input === null) return null;
  if (typeof input !== 'object' || Array.isArray(input)) {
    throw new GatewayError('GW_ERR_REQUEST_INVALID_FIELD', 'limits must be an object: {"rpm": 60, "tpm": 100000, "concurrency": 4}, each optional.', { param: 'limits' });
  }
  const limits: { rpm?: number; tpm?: number; concurrency?: number } = {};
  for (const [name, value] of Object.entries(input)) {
    if (!(LIMIT_NAMES as readonly string[]).includes(name)) {
      throw new GatewayError('GW_ERR_REQUEST_INVALID_FIELD', `limits.${name} is not a limit; the limits are rpm, tpm and concurrency.`, { param: `limits.${name}` });
    }
    const max = LIMIT_MAX[name as keyof typeof LIMIT_MAX];
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1 || value > max) {
      throw new GatewayError('GW_ERR_REQUEST_INVALID_FIELD', `limits.${name} must be a whole number from 1 to ${max}.`, { param: `limits.${name}` });
    }
    limits[name as keyof typeof LIMIT_MAX] = value;
  }
  return Object.keys(limits).length === 0 ? null : limits;
}

/** The JSON shape of a key in listings: never the hash; `account`, `max_spend` and `limits` when the key has them. */
export function describeKey(k: StoredKey): Record<string, unknown> {
  const described: Record<string, unknown> = {
    id: k.id,
    name: k.name,
    group: k.group,
    prefix: k.prefix,
    created_at: new Date(k.createdAt).toISOString(),
    revoked_at: k.revokedAt === null ? null : new Date(k.revokedAt).toISOString(),
  };
  // Present for a metered or capped key only.
  if (k.account !== undefined) described['account'] = k.account;
  if (k.maxSpend !== undefined) described['max_spend'] = formatMoney(k.maxSpend);
  if (k.limits !== undefined) described['limits'] = k.limits;
  return described;
}
