// Converts between Store records and table rows: camelCase <-> snake_case, booleans <-> 0/1, loose integers -> number.
import type { Insertable, Selectable, Updateable } from 'kysely';
import type { DailyTokens, ResolvedLimits, SpendPeriod } from '../config/resolved.js';
import type { ApiKeysTable, UsageHourlyTable, UsageRecordsTable } from './schema.js';
import type { HoldDraw, HourlyUsage, KeyPatch, NewKey, StoredKey, UsageAttempt, UsageRecord } from './store.js';

type KeyRow = Selectable<ApiKeysTable>;
type UsageRow = Selectable<UsageRecordsTable>;

/** PostgreSQL returns BIGINT and COUNT as strings (or bigint); epoch-ms and counts all fit in a double. */
export function decodeInteger(value: number | string | bigint): number {
  const n = typeof value === 'number' ? value : Number(value);
  if (!Number.isFinite(n)) throw new Error('store returned a non-numeric value where an integer was expected');
  return n;
}

/** Nano-units, exactly: a driver's string or bigint as it is, a number only while it is a safe integer. */
export function decodeMoney(value: number | string | bigint): bigint {
  if (typeof value === 'bigint') return value;
  if (typeof value === 'number' && !Number.isSafeInteger(value)) throw new Error('store returned an amount that is not a safe integer');
  return BigInt(value);
}

function decodeNullableInteger(value: number | string | bigint | null): number | null {
  return value === null ? null : decodeInteger(value);
}

function encodeFlag(value: boolean): number {
  return value ? 1 : 0;
}

function decodeFlag(value: number | string | bigint): boolean {
  return decodeInteger(value) !== 0;
}

export function encodeKeyRow(key: NewKey): Insertable<ApiKeysTable> {
  return {
    id: key.id,
    name: key.name,
    group_name: key.group,
    prefix: key.prefix,
    hash: key.hash,
    created_at: key.createdAt,
    revoked_at: null,
    account: key.account ?? null,
    max_spend: key.maxSpend ?? null,
    spend_period: key.spendPeriod?.unit ?? null,
    spend_timezone: key.spendPeriod?.timezone ?? null,
    rpm_limit: key.limits?.rpm ?? null,
    tpm_limit: key.limits?.tpm ?? null,
    concurrency_limit: key.limits?.concurrency ?? null,
    tpd_limit: key.limits?.tpd?.tokens ?? null,
    tpd_period: key.limits?.tpd === undefined || key.limits.tpd.period.unit === 'day' ? null : key.limits.tpd.period.unit,
    tpd_timezone: key.limits?.tpd === undefined || key.limits.tpd.period.timezone === 'UTC' ? null : key.limits.tpd.period.timezone,
    expires_at: key.expiresAt ?? null,
    disabled: key.disabled === true ? 1 : null,
    allowed_models: key.models === undefined ? null : JSON.stringify(key.models),
    allowed_ips: key.ips === undefined ? null : JSON.stringify(key.ips),
  };
}

/** The columns an edit sets: only those of the fields it names (`null` clears). */
export function encodeKeyPatch(patch: KeyPatch): Updateable<ApiKeysTable> {
  const row: Updateable<ApiKeysTable> = {};
  if (patch.name !== undefined) row.name = patch.name;
  if (patch.maxSpend !== undefined) row.max_spend = patch.maxSpend;
  if (patch.spendPeriod !== undefined) {
    row.spend_period = patch.spendPeriod?.unit ?? null;
    row.spend_timezone = patch.spendPeriod?.timezone ?? null;
  }
  if (patch.limits !== undefined) {
    const tpd = patch.limits?.tpd;
    row.tpd_limit = tpd?.tokens ?? null;
    row.tpd_period = tpd === undefined || tpd.period.unit === 'day' ? null : tpd.period.unit;
    row.tpd_timezone = tpd === undefined || tpd.period.timezone === 'UTC' ? null : tpd.period.timezone;
    row.rpm_limit = patch.limits?.rpm ?? null;
    row.tpm_limit = patch.limits?.tpm ?? null;
    row.concurrency_limit = patch.limits?.concurrency ?? null;
  }
  if (patch.expiresAt !== undefined) row.expires_at = patch.expiresAt;
  if (patch.disabled !== undefined) row.disabled = patch.disabled ? 1 : null;
  if (patch.models !== undefined) row.allowed_models = patch.models === null ? null : JSON.stringify(patch.models);
  if (patch.ips !== undefined) row.allowed_ips = patch.ips === null ? null : JSON.stringify(patch.ips);
  return row;
}

export function decodeKeyRow(row: KeyRow): StoredKey {
  return Object.assign(
    {
      id: row.id,
      name: row.name,
      group: row.group_name,
      prefix: row.prefix,
      hash: row.hash,
      createdAt: decodeInteger(row.created_at),
      revokedAt: decodeNullableInteger(row.revoked_at),
    },
    row.account === null ? {} : { account: row.account },
    row.max_spend === null ? {} : { maxSpend: decodeMoney(row.max_spend) },
    spendPeriodOf(row.max_spend === null ? null : row.spend_period, row.spend_timezone),
    limitsOf(row),
    accessOf(row),
  );
}

/** A cap's period as stored ('day', 'week' or 'month', and its zone); none for a lifetime cap or an unknown unit. */
export function spendPeriodOf(unit: string | null, timezone: string | null): { spendPeriod?: SpendPeriod } {
  if (unit !== 'day' && unit !== 'week' && unit !== 'month') return {};
  return { spendPeriod: { unit, timezone: timezone ?? 'UTC' } };
}

/** A key row's access settings, present only when set. */
function accessOf(row: KeyRow): { expiresAt?: number; disabled?: true; models?: readonly string[]; ips?: readonly string[] } {
  const access: { expiresAt?: number; disabled?: true; models?: readonly string[]; ips?: readonly string[] } = {};
  if (row.expires_at !== null) access.expiresAt = decodeInteger(row.expires_at);
  if (row.disabled !== null && decodeInteger(row.disabled) !== 0) access.disabled = true;
  if (row.allowed_models !== null) access.models = stringList(row.allowed_models);
  if (row.allowed_ips !== null) access.ips = stringList(row.allowed_ips);
  return access;
}

/** A JSON array of strings as the codec wrote it (anything else reads as empty: nothing allowed, never everything). */
function stringList(json: string): readonly string[] {
  const value: unknown = JSON.parse(json);
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

/** A key row's own limits, present only when it has one (so a key without any is as it always was). */
function limitsOf(row: KeyRow): { limits?: ResolvedLimits } {
  const limits: { rpm?: number; tpm?: number; concurrency?: number; tpd?: DailyTokens } = {};
  if (row.rpm_limit !== null) limits.rpm = decodeInteger(row.rpm_limit);
  if (row.tpm_limit !== null) limits.tpm = decodeInteger(row.tpm_limit);
  if (row.concurrency_limit !== null) limits.concurrency = decodeInteger(row.concurrency_limit);
  // A row written before 0029 has no such columns' values: undefined reads as none.
  if (row.tpd_limit !== null && row.tpd_limit !== undefined) {
    const unit = row.tpd_period === 'week' || row.tpd_period === 'month' ? row.tpd_period : 'day';
    limits.tpd = { tokens: decodeInteger(row.tpd_limit), period: { unit, timezone: row.tpd_timezone ?? 'UTC' } };
  }
  return Object.keys(limits).length === 0 ? {} : { limits };
}

/**
 * A record's row; `chargeId` names the ledger charge that covers it (charge-plan.ts's chargeIds), null when none.
 * Every row has every column, in one order (the SQLite store prepares its statements from the first row's keys).
 */
export function encodeUsageRow(record: UsageRecord, chargeId: string | null = null): Insertable<UsageRecordsTable> {
  return {
    request_id: record.requestId,
    ts: record.ts,
    key_id: record.keyId,
    key_name: record.keyName,
    group_name: record.group,
    route: record.route,
    model: record.model,
    upstream_model: record.upstreamModel,
    channel: record.channel,
    status: record.status,
    error_code: record.errorCode,
    stream: encodeFlag(record.stream),
    prompt_tokens: record.promptTokens,
    completion_tokens: record.completionTokens,
    cached_tokens: record.cachedTokens,
    cache_write_tokens: record.cacheWriteTokens,
    reasoning_tokens: record.reasoningTokens,
    images: record.images ?? null,
    input_image_tokens: record.images === undefined ? null : (record.inputImageTokens ?? 0),
    output_image_tokens: record.images === undefined ? null : (record.outputImageTokens ?? 0),
    seconds: record.seconds ?? null,
    // Timings may come from performance.now(); INTEGER columns (strict in PostgreSQL) want whole ms.
    latency_ms: Math.round(record.latencyMs),
    ttft_ms: record.ttftMs === null ? null : Math.round(record.ttftMs),
    aborted: encodeFlag(record.aborted),
    cost: record.cost ?? null,
    price_version: record.priceVersion ?? null,
    account: record.account ?? null,
    usage_estimated: record.usageEstimated === undefined ? null : encodeFlag(record.usageEstimated),
    attempts: record.attempts === undefined ? null : encodeAttempts(record.attempts),
    error_message: record.errorMessage ?? null,
    charge_id: chargeId,
    subject: record.subject ?? null,
    spend_id: encodeSpendIds(record.draws),
  };
}

/**
 * The period spend rows a record's charge adds to (its draws' spendIds: a key's period, and another owner's when it
 * has one; core/store/period-spends.ts), space-separated (ids hold no spaces: names are `[A-Za-z0-9_.-]`); null for none.
 */
export function encodeSpendIds(draws: readonly HoldDraw[] | undefined): string | null {
  // The usual record (no periodic cap) allocates nothing here: it is encoded on the usage batch's path.
  if (draws === undefined || !draws.some((d) => d.spendId !== undefined)) return null;
  const ids = [...new Set(draws.flatMap((d) => (d.spendId === undefined ? [] : [d.spendId])))].sort();
  return ids.join(' ');
}

export function decodeSpendIds(column: string): string[] {
  return column.split(' ').filter((id) => id !== '');
}

function encodeAttempts(attempts: readonly UsageAttempt[]): string {
  return JSON.stringify(attempts.map((a) => ({ channel: a.channel, status: a.status, error: a.error, latency_ms: Math.round(a.latencyMs) })));
}

/** The attempts as stored; anything else (a hand-edited row) reads as none. */
function decodeAttempts(text: string): UsageAttempt[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return [];
  }
  if (!Array.isArray(value)) return [];
  const attempts: UsageAttempt[] = [];
  for (const item of value as unknown[]) {
    if (typeof item !== 'object' || item === null) continue;
    const a = item as Record<string, unknown>;
    attempts.push({
      channel: typeof a['channel'] === 'string' ? a['channel'] : '',
      status: typeof a['status'] === 'number' ? a['status'] : null,
      error: typeof a['error'] === 'string' ? a['error'] : null,
      latencyMs: typeof a['latency_ms'] === 'number' ? a['latency_ms'] : 0,
    });
  }
  return attempts;
}

export function decodeUsageRow(row: UsageRow): UsageRecord {
  const record = Object.assign(
    decodeTokenRow(row),
    row.cost === null ? {} : { cost: decodeMoney(row.cost) },
    row.price_version === null ? {} : { priceVersion: row.price_version },
    row.account === null ? {} : { account: row.account },
    row.usage_estimated === null ? {} : { usageEstimated: decodeFlag(row.usage_estimated) },
    row.seconds === null ? {} : { seconds: decodeInteger(row.seconds) },
    row.attempts === null ? {} : { attempts: decodeAttempts(row.attempts) },
    row.error_message === null ? {} : { errorMessage: row.error_message },
    row.charge_id === null ? {} : { chargeId: row.charge_id },
    row.subject === null ? {} : { subject: row.subject },
  );
  if (row.images === null) return record;
  return Object.assign(record, {
    images: decodeInteger(row.images),
    inputImageTokens: decodeNullableInteger(row.input_image_tokens) ?? 0,
    outputImageTokens: decodeNullableInteger(row.output_image_tokens) ?? 0,
  });
}

/** A record's fields every route has. */
function decodeTokenRow(row: UsageRow): UsageRecord {
  return {
    requestId: row.request_id,
    ts: decodeInteger(row.ts),
    keyId: row.key_id,
    keyName: row.key_name,
    group: row.group_name,
    route: row.route,
    model: row.model,
    upstreamModel: row.upstream_model,
    channel: row.channel,
    status: decodeInteger(row.status),
    errorCode: row.error_code,
    stream: decodeFlag(row.stream),
    promptTokens: decodeInteger(row.prompt_tokens),
    completionTokens: decodeInteger(row.completion_tokens),
    cachedTokens: decodeInteger(row.cached_tokens),
    cacheWriteTokens: decodeInteger(row.cache_write_tokens),
    reasoningTokens: decodeInteger(row.reasoning_tokens),
    latencyMs: decodeInteger(row.latency_ms),
    ttftMs: decodeNullableInteger(row.ttft_ms),
    aborted: decodeFlag(row.aborted),
  };
}

export function decodeHourlyRow(row: Selectable<UsageHourlyTable>): HourlyUsage {
  return {
    hour: decodeInteger(row.hour),
    account: row.account === '' ? null : row.account,
    keyId: row.key_id,
    model: row.model,
    channel: row.channel === '' ? null : row.channel,
    requests: decodeInteger(row.requests),
    errors: decodeInteger(row.errors),
    promptTokens: decodeInteger(row.prompt_tokens),
    completionTokens: decodeInteger(row.completion_tokens),
    cachedTokens: decodeInteger(row.cached_tokens),
    cacheWriteTokens: decodeInteger(row.cache_write_tokens),
    reasoningTokens: decodeInteger(row.reasoning_tokens),
    images: decodeInteger(row.images),
    cost: decodeMoney(row.cost),
    latencyMs: decodeInteger(row.latency_ms),
  };
}
