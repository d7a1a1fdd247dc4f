// Creating and revoking run-time keys: shared by the CLI and the admin HTTP API.

import type { DailyTokens, ResolvedConfig, ResolvedLimits, SpendPeriod } from '../config/resolved.js';
import { limitsJson, readDailyTokens } from '../limits/daily-tokens.js';
import { GatewayError } from '../errors.js';
import { parseIsoTime } from '../iso-time.js';
import type { Store, StoredKey } from '../store/store.js';
import { readSpendCap } from '../money/spend-cap-input.js';
import { formatMoney } from '../money/decimal.js';
import { compileGlobs, isGlob } from '../routing/glob.js';
import { parseCidr } from './address-list.js';
import { digestKey, generateKey, keyPrefix, newKeyId } from './key-material.js';

/**
 * A key's name is its owner's text (the console lets a customer name a key as they like): 1 to 64 characters, no
 * control or format characters, no space at either end. Shown only as text, never as markup.
 */
const NAME = /^(?![\s])[^\p{Cc}\p{Cf}]{1,64}(?<![\s])$/u;
const NAME_RULE = 'name must be 1 to 64 characters, with no control characters and no space at either end.';

export interface CreatedKey {
  /** The key in clear: shown once, never stored. */
  readonly key: string;
  readonly record: StoredKey;
}

export async function createKey(
  store: Store,
  config: ResolvedConfig,
  input: KeyInput & { readonly group: unknown; readonly account?: unknown },
): Promise<CreatedKey> {
  for (const field of Object.keys(input)) {
    if (!CREATE_FIELDS.has(field)) {
      throw new GatewayError('GW_ERR_REQUEST_INVALID_FIELD', `${field} is not a key field; the fields are ${[...CREATE_FIELDS].join(', ')}.`, { param: field });
    }
  }
  if (typeof input.name !== 'string' || !NAME.test(input.name)) {
    throw new GatewayError('GW_ERR_REQUEST_INVALID_FIELD', NAME_RULE, { param: 'name' });
  }
  if (typeof input.group !== 'string' || !config.groups.has(input.group)) {
    const known = [...config.groups.keys()].join(', ') || '(none)';
    throw new GatewayError('GW_ERR_REQUEST_INVALID_FIELD', `group must be one of the configured groups: ${known}.`, { param: 'group' });
  }
  if (config.keys.some((k) => k.name === input.name) || (await store.listKeys()).some((k) => k.name === input.name)) {
    throw new GatewayError('GW_ERR_REQUEST_INVALID_FIELD', `A key named "${input.name}" already exists.`, { param: 'name' });
  }
  const money: { account?: string; maxSpend?: bigint; spendPeriod?: SpendPeriod } = {};
  if (input.account !== undefined && input.account !== null) {
    if (typeof input.account !== 'string' || (await store.ledger.getAccount(input.account)) === undefined) {
      throw new GatewayError('GW_ERR_REQUEST_INVALID_FIELD', 'account must name an existing account (create it first).', { param: 'account' });
    }
    money.account = input.account;
  }
  if (input.max_spend !== undefined && input.max_spend !== null) {
    const cap = readSpendCap(input.max_spend, 'max_spend');
    money.maxSpend = cap.maxSpend;
    if (cap.spendPeriod !== null) money.spendPeriod = cap.spendPeriod;
  }
  const limits = readLimits(input.limits);
  const access = readAccess(input, input.group, config);
  const settings: { limits?: ResolvedLimits; expiresAt?: number; disabled?: true; models?: readonly string[]; ips?: readonly string[] } = {};
  if (limits !== null) settings.limits = limits;
  if (access.expiresAt !== undefined && access.expiresAt !== null) settings.expiresAt = access.expiresAt;
  if (access.disabled === true) settings.disabled = true;
  if (access.models !== undefined && access.models !== null) settings.models = access.models;
  if (access.ips !== undefined && access.ips !== null) settings.ips = access.ips;
  const key = generateKey();
  const record = await store.createKey(
    Object.assign({ id: newKeyId(), name: input.name, group: input.group, prefix: keyPrefix(key), hash: digestKey(key), createdAt: Date.now() }, money, settings),
  );
  return { key, record };
}

/** The fields a key is created or edited with, as the admin API and the CLI take them (snake_case, `null` clears). */
export interface KeyInput {
  readonly name?: unknown;
  readonly max_spend?: unknown;
  readonly limits?: unknown;
  /** An ISO 8601 time, or null for never. */
  readonly expires_at?: unknown;
  readonly enabled?: unknown;
  /** Model names or globs, each within the key's group's; null for the group's. */
  readonly models?: unknown;
  /** Addresses or CIDRs (IPv4 or IPv6); null for any. */
  readonly ips?: unknown;
}

const PATCH_FIELDS: ReadonlySet<string> = new Set(['name', 'max_spend', 'limits', 'expires_at', 'enabled', 'models', 'ips']);
const CREATE_FIELDS: ReadonlySet<string> = new Set(['group', 'account', ...PATCH_FIELDS]);

/**
 * Edits a run-time key by id or name: only the fields given change (`null` clears one). Throws the 400 naming a bad
 * field, or the 404 for no such key; a key's group and account are not edited (make a new key).
 */
export async function updateKey(store: Store, config: ResolvedConfig, idOrName: string, input: Readonly<Record<string, unknown>>): Promise<StoredKey> {
  for (const field of Object.keys(input)) {
    if (!PATCH_FIELDS.has(field)) {
      throw new GatewayError('GW_ERR_REQUEST_INVALID_FIELD', `${field} cannot be edited; the fields are ${[...PATCH_FIELDS].join(', ')}.`, { param: field });
    }
  }
  // Read once: the key (an exact id wins over a name, as revokeKey decides) and the names a rename must avoid.
  const stored = await store.listKeys();
  const existing = stored.find((k) => k.id === idOrName) ?? stored.find((k) => k.name === idOrName);
  if (existing === undefined) throw new GatewayError('GW_ERR_ROUTE_NOT_FOUND', `No key with id or name "${idOrName}".`);
  const patch: { name?: string; maxSpend?: bigint | null; spendPeriod?: SpendPeriod | null; limits?: ResolvedLimits | null } = {};
  if (input['name'] !== undefined) {
    const name = input['name'];
    if (typeof name !== 'string' || !NAME.test(name)) throw new GatewayError('GW_ERR_REQUEST_INVALID_FIELD', NAME_RULE, { param: 'name' });
    if (name !== existing.name && (config.keys.some((k) => k.name === name) || stored.some((k) => k.name === name))) {
      throw new GatewayError('GW_ERR_REQUEST_INVALID_FIELD', `A key named "${name}" already exists.`, { param: 'name' });
    }
    patch.name = name;
  }
  if (input['max_spend'] !== undefined) {
    // The cap is replaced whole: a plain amount is a lifetime cap again, null none.
    const cap = input['max_spend'] === null ? null : readSpendCap(input['max_spend'], 'max_spend');
    patch.maxSpend = cap?.maxSpend ?? null;
    patch.spendPeriod = cap?.spendPeriod ?? null;
  }
  if (input['limits'] !== undefined) patch.limits = input['limits'] === null ? null : mergedLimits(existing.limits, input['limits']);
  if (existing.revokedAt !== null) throw new GatewayError('GW_ERR_REQUEST_INVALID_FIELD', `The key "${existing.name}" is revoked: it cannot be edited (create a new one).`);
  let updated: StoredKey | undefined;
  try {
    updated = await store.updateKey(existing.id, Object.assign(patch, readAccess(input, existing.group, config)));
  } catch (err) {
    // Another edit took the name between the check above and this write.
    if (err instanceof Error && /already taken/.test(err.message)) throw new GatewayError('GW_ERR_REQUEST_INVALID_FIELD', `A key named "${String(input['name'])}" already exists.`, { param: 'name' });
    throw err;
  }
  if (updated === undefined) throw new GatewayError('GW_ERR_ROUTE_NOT_FOUND', `No key with id or name "${idOrName}".`);
  return updated;
}

/** The access fields of `input` that are present, checked (`null` kept: it clears). */
function readAccess(
  input: KeyInput,
  group: string,
  config: ResolvedConfig,
): { expiresAt?: number | null; disabled?: boolean; models?: readonly string[] | null; ips?: readonly string[] | null } {
  const out: { expiresAt?: number | null; disabled?: boolean; models?: readonly string[] | null; ips?: readonly string[] | null } = {};
  if (input.expires_at !== undefined) out.expiresAt = input.expires_at === null ? null : readTime(input.expires_at);
  if (input.enabled !== undefined) {
    if (typeof input.enabled !== 'boolean') throw new GatewayError('GW_ERR_REQUEST_INVALID_FIELD', 'enabled must be true or false.', { param: 'enabled' });
    out.disabled = !input.enabled;
  }
  if (input.models !== undefined) out.models = input.models === null ? null : readModels(input.models, group, config);
  if (input.ips !== undefined) out.ips = input.ips === null ? null : readAddresses(input.ips);
  return out;
}

function readTime(value: unknown): number {
  const at = typeof value === 'string' ? parseIsoTime(value) : null;
  if (at === null) {
    throw new GatewayError('GW_ERR_REQUEST_INVALID_FIELD', 'expires_at must be an ISO 8601 date or time with its offset, such as "2027-01-31" or "2027-01-31T09:00:00+01:00", or null for never.', { param: 'expires_at' });
  }
  return at;
}

/** At most this many entries in an allow-list: it is checked on every request. */
const MAX_LIST = 100;

function readModels(value: unknown, group: string, config: ResolvedConfig): readonly string[] {
  if (!Array.isArray(value) || value.length === 0 || value.length > MAX_LIST || !value.every((m) => typeof m === 'string' && m !== '' && m.length <= 256)) {
    throw new GatewayError('GW_ERR_REQUEST_INVALID_FIELD', `models must be a list of 1 to ${MAX_LIST} model names or globs (null: the group's).`, { param: 'models' });
  }
  const patterns = config.groups.get(group)?.models ?? [];
  const access = compileGlobs(patterns);
  for (const model of value as string[]) {
    // Within the group's: a name the group allows, or one of its own patterns (a key narrows its group, never widens it).
    if (isGlob(model) ? !patterns.includes(model) : !access(model)) {
      throw new GatewayError('GW_ERR_REQUEST_INVALID_FIELD', `models: "${model}" is not within the group "${group}" (${patterns.join(', ') || 'no models'}).`, { param: 'models' });
    }
  }
  return value as string[];
}

function readAddresses(value: unknown): readonly string[] {
  if (!Array.isArray(value) || value.length === 0 || value.length > MAX_LIST || !value.every((v) => typeof v === 'string' && parseCidr(v) !== null)) {
    throw new GatewayError('GW_ERR_REQUEST_INVALID_FIELD', `ips must be a list of 1 to ${MAX_LIST} addresses or CIDRs, such as ["203.0.113.0/24", "2001:db8::/32"] (null: any).`, { param: 'ips' });
  }
  return value as string[];
}

/** Each limit's largest value: the config file's (schemas/gateway.schema.json, Limits). */
const LIMIT_MAX = { rpm: 1_000_000_000, tpm: 1_000_000_000, concurrency: 1_000_000 } as const;
const LIMIT_NAMES = Object.keys(LIMIT_MAX) as readonly (keyof typeof LIMIT_MAX)[];
const NOT_A_LIMIT = 'the limits are rpm, tpm, concurrency and tokens_per_day';

/**
 * A key's own limits, `{rpm?, tpm?, concurrency?, tokens_per_day?}` as the config file's `limits` are; null when
 * absent or empty. They override its group's, as a declared key's do.
 */
export function readLimits(input: unknown): ResolvedLimits | null {
  if (input === undefined || input === null) return null;
  if (typeof input !== 'object' || Array.isArray(input)) {
    throw new GatewayError('GW_ERR_REQUEST_INVALID_FIELD', 'limits must be an object: {"rpm": 60, "tpm": 100000, "concurrency": 4, "tokens_per_day": 2000000}, each optional.', { param: 'limits' });
  }
  const limits: { rpm?: number; tpm?: number; concurrency?: number; tpd?: DailyTokens } = {};
  for (const [name, value] of Object.entries(input)) {
    if (name === 'tokens_per_day') {
      limits.tpd = readDailyTokens(value);
      continue;
    }
    if (!(LIMIT_NAMES as readonly string[]).includes(name)) {
      throw new GatewayError('GW_ERR_REQUEST_INVALID_FIELD', `limits.${name} is not a limit; ${NOT_A_LIMIT}.`, { param: `limits.${name}` });
    }
    const max = LIMIT_MAX[name as keyof typeof LIMIT_MAX];
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1 || value > max) {
      throw new GatewayError('GW_ERR_REQUEST_INVALID_FIELD', `limits.${name} must be a whole number from 1 to ${max}.`, { param: `limits.${name}` });
    }
    limits[name as keyof typeof LIMIT_MAX] = value;
  }
  return Object.keys(limits).length === 0 ? null : limits;
}

/**
 * An edit of a key's limits: the values given replace theirs, a value of null clears that one, the others stay
 * (tightening one limit must not loosen the rest). Null when none is left.
 */
function mergedLimits(existing: ResolvedLimits | undefined, input: unknown): ResolvedLimits | null {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return readLimits(input);
  const cleared = Object.entries(input).filter(([, v]) => v === null).map(([name]) => name);
  for (const name of cleared) {
    if (!(LIMIT_NAMES as readonly string[]).includes(name) && name !== 'tokens_per_day') {
      throw new GatewayError('GW_ERR_REQUEST_INVALID_FIELD', `limits.${name} is not a limit; ${NOT_A_LIMIT}.`, { param: `limits.${name}` });
    }
  }
  const given = readLimits(Object.fromEntries(Object.entries(input).filter(([, v]) => v !== null))) ?? {};
  const merged: { rpm?: number; tpm?: number; concurrency?: number; tpd?: DailyTokens } = {};
  for (const name of LIMIT_NAMES) {
    const value = name in given ? given[name] : cleared.includes(name) ? undefined : existing?.[name];
    if (value !== undefined) merged[name] = value;
  }
  const tpd = given.tpd ?? (cleared.includes('tokens_per_day') ? undefined : existing?.tpd);
  if (tpd !== undefined) merged.tpd = tpd;
  return Object.keys(merged).length === 0 ? null : merged;
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
  // A cap per period: which, in which zone (the console adds the period's spend and end).
  if (k.maxSpend !== undefined && k.spendPeriod !== undefined) described['max_spend_period'] = { period: k.spendPeriod.unit, timezone: k.spendPeriod.timezone };
  if (k.limits !== undefined) described['limits'] = limitsJson(k.limits);
  described['enabled'] = k.disabled !== true;
  described['expires_at'] = k.expiresAt === undefined ? null : new Date(k.expiresAt).toISOString();
  described['models'] = k.models ?? null;
  described['ips'] = k.ips ?? null;
  return described;
}
