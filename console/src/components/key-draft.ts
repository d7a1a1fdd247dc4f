// The token form's fields as typed, and the API bodies made from them: a create sends only what was filled in; an
// edit sends only what differs from the key as loaded (an emptied field as null, which clears it on the server), so
// what the form cannot show exactly (an expiry at 09:00, limits above the group's) is never rewritten in passing.

import type { Key, Limits } from '../api-types.js';
import { isDate } from './date-input.js';
import { dateOf, startOfDate } from './format-time.js';

export interface KeyDraft {
  readonly name: string;
  /** Operator only: '' for a key of no account (unmetered). */
  readonly account: string;
  readonly group: string;
  readonly maxSpend: string;
  /** '' (a lifetime cap), 'day', 'week' or 'month': max spend resets each such period. */
  readonly spendPeriod: string;
  /** The IANA zone whose midnight starts a period; '' for UTC. */
  readonly spendTimezone: string;
  /** "YYYY-MM-DD": the key stops working at that day's start, UTC. */
  readonly expires: string;
  /** Ticked among the group's models. */
  readonly models: readonly string[];
  /** Typed in: names or globs within the group's patterns, comma or newline separated. */
  readonly otherModels: string;
  /** Addresses or CIDRs, one per line. */
  readonly ips: string;
  readonly rpm: string;
  readonly tpm: string;
  readonly concurrency: string;
}

export const LIMIT_FIELDS = [
  { name: 'rpm', label: 'Requests per minute' },
  { name: 'tpm', label: 'Tokens per minute' },
  { name: 'concurrency', label: 'Concurrent requests' },
] as const;

export function emptyDraft(group: string, account: string): KeyDraft {
  return { name: '', account, group, maxSpend: '', spendPeriod: '', spendTimezone: '', expires: '', models: [], otherModels: '', ips: '', rpm: '', tpm: '', concurrency: '' };
}

/** An existing key's fields, for its edit form; models outside the group's list go to the typed-in field. */
export function draftOf(key: Key, groupModels: readonly string[]): KeyDraft {
  const models = key.models ?? [];
  const limit = (name: keyof Limits): string => (key.limits?.[name] === undefined ? '' : String(key.limits[name]));
  return {
    name: key.name,
    account: key.account ?? '',
    group: key.group,
    maxSpend: key.max_spend ?? '',
    spendPeriod: key.max_spend_period?.period ?? '',
    // UTC is what an empty zone means: shown empty, so an untouched form sends no change.
    spendTimezone: key.max_spend_period === undefined || key.max_spend_period.timezone === 'UTC' ? '' : key.max_spend_period.timezone,
    expires: dateOf(key.expires_at),
    models: models.filter((m) => groupModels.includes(m)),
    otherModels: models.filter((m) => !groupModels.includes(m)).join(', '),
    ips: (key.ips ?? []).join('\n'),
    rpm: limit('rpm'),
    tpm: limit('tpm'),
    concurrency: limit('concurrency'),
  };
}

const listOf = (text: string): string[] =>
  text
    .split(/[\s,]+/)
    .map((s) => s.trim())
    .filter((s) => s !== '');

function modelsOf(draft: KeyDraft): string[] | null {
  const all = [...new Set([...draft.models, ...listOf(draft.otherModels)])];
  return all.length === 0 ? null : all;
}

/** The server's rule for a name: 1 to 64 characters, no control or format characters, no space at either end. */
const NAME = /^(?!\s)[^\p{Cc}\p{Cf}]{1,64}(?<!\s)$/u;

/** The name as sent (trimmed); throws (the banner shows it) when the server would refuse it. */
function nameOf(draft: KeyDraft): string {
  const name = draft.name.trim();
  if (!NAME.test(name)) throw new Error('A token name is 1 to 64 characters, with no control characters.');
  return name;
}

/** A limit's whole number, or undefined when empty; throws (the banner shows it) for anything else. */
function limitOf(text: string, label: string): number | undefined {
  const trimmed = text.trim();
  if (trimmed === '') return undefined;
  if (!/^\d+$/.test(trimmed) || Number(trimmed) < 1) throw new Error(`${label} must be a whole number, 1 or more.`);
  return Number(trimmed);
}

/**
 * The expiry as sent: that day's start, UTC. Refused (the banner says why) unless it is a real YYYY-MM-DD day whose
 * start is still ahead: a key made already expired is of no use (the server refuses it too).
 */
function expiryOf(date: string, now = Date.now()): string {
  if (!isDate(date)) throw new Error('Expires on must be a date written YYYY-MM-DD, such as 2027-01-31.');
  const at = startOfDate(date);
  if (Date.parse(at) <= now) throw new Error(`Expires on must be after today: the key stops at that day's start (UTC), and ${date} has begun.`);
  return at;
}

/**
 * max_spend as sent: the amount alone (a lifetime cap) or {amount, period, timezone?}; undefined when empty. A period
 * or zone without an amount is refused (the banner says why): it would silently set no cap.
 */
function maxSpendOf(draft: KeyDraft): string | Record<string, string> | undefined {
  const amount = draft.maxSpend.trim();
  const timezone = draft.spendTimezone.trim();
  if (amount === '') {
    if (draft.spendPeriod !== '' || timezone !== '') throw new Error('Max spend is empty: a period or time zone needs an amount.');
    return undefined;
  }
  if (draft.spendPeriod === '') {
    if (timezone !== '') throw new Error('A time zone applies to a max spend per day, week or month: choose the period.');
    return amount;
  }
  return timezone === '' ? { amount, period: draft.spendPeriod } : { amount, period: draft.spendPeriod, timezone };
}

/** The create body: the filled-in fields only. */
export function createBody(draft: KeyDraft, operator: boolean): Record<string, unknown> {
  const body: Record<string, unknown> = { name: nameOf(draft), group: draft.group };
  if (operator && draft.account !== '') body['account'] = draft.account;
  const maxSpend = maxSpendOf(draft);
  if (maxSpend !== undefined) body['max_spend'] = maxSpend;
  if (draft.expires !== '') body['expires_at'] = expiryOf(draft.expires);
  const models = modelsOf(draft);
  if (models !== null) body['models'] = models;
  const ips = listOf(draft.ips);
  if (ips.length > 0) body['ips'] = ips;
  const limits: Record<string, number> = {};
  for (const { name, label } of LIMIT_FIELDS) {
    const value = limitOf(draft[name], label);
    if (value !== undefined) limits[name] = value;
  }
  if (Object.keys(limits).length > 0) body['limits'] = limits;
  return body;
}

/** The same members, in any order (a list's order means nothing to the server). */
function sameSet(a: readonly string[] | null, b: readonly string[] | null): boolean {
  const left = new Set(a ?? []);
  const right = new Set(b ?? []);
  return left.size === right.size && [...left].every((x) => right.has(x));
}

/**
 * The edit body: the fields that differ from `loaded` (the draft the form opened with), an emptied one as null; {}
 * when nothing changed. A changed limit is sent alone, as the server merges a limits object into the key's (a
 * missing limit is kept); all of them emptied is `limits: null`.
 */
export function editBody(loaded: KeyDraft, draft: KeyDraft): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  if (draft.name.trim() !== loaded.name) body['name'] = nameOf(draft);
  // The cap is sent whole when any part of it changed (the server replaces it: an amount alone is a lifetime cap).
  if (draft.maxSpend.trim() !== loaded.maxSpend || draft.spendPeriod !== loaded.spendPeriod || draft.spendTimezone.trim() !== loaded.spendTimezone) {
    body['max_spend'] = maxSpendOf(draft) ?? null;
  }
  // The date input shows only the day: the same day means the key's own time stands, whatever its hour.
  if (draft.expires !== loaded.expires) body['expires_at'] = draft.expires === '' ? null : expiryOf(draft.expires);
  const models = modelsOf(draft);
  if (!sameSet(models, modelsOf(loaded))) body['models'] = models;
  const ips = listOf(draft.ips);
  if (!sameSet(ips, listOf(loaded.ips))) body['ips'] = ips.length === 0 ? null : ips;
  const limits: Record<string, number | null> = {};
  for (const { name, label } of LIMIT_FIELDS) {
    if (draft[name].trim() !== loaded[name]) limits[name] = limitOf(draft[name], label) ?? null;
  }
  if (Object.keys(limits).length > 0) {
    const allEmpty = LIMIT_FIELDS.every(({ name }) => draft[name].trim() === '');
    body['limits'] = allEmpty ? null : limits;
  }
  return body;
}
