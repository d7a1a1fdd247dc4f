// The token form's fields as typed, and the API bodies made from them: a create sends only what was filled in; an
// edit sends every field, an emptied one as null (which clears it on the server).

import type { Key, Limits } from '../api-types.js';
import { dateOf, startOfDate } from './format-time.js';

export interface KeyDraft {
  readonly name: string;
  /** Operator only: '' for a key of no account (unmetered). */
  readonly account: string;
  readonly group: string;
  readonly maxSpend: string;
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
  return { name: '', account, group, maxSpend: '', expires: '', models: [], otherModels: '', ips: '', rpm: '', tpm: '', concurrency: '' };
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

/** A limit's whole number, or undefined when empty; throws (the banner shows it) for anything else. */
function limitOf(text: string, label: string): number | undefined {
  const trimmed = text.trim();
  if (trimmed === '') return undefined;
  if (!/^\d+$/.test(trimmed) || Number(trimmed) < 1) throw new Error(`${label} must be a whole number, 1 or more.`);
  return Number(trimmed);
}

/** The create body: the filled-in fields only. */
export function createBody(draft: KeyDraft, operator: boolean): Record<string, unknown> {
  const body: Record<string, unknown> = { name: draft.name.trim(), group: draft.group };
  if (operator && draft.account !== '') body['account'] = draft.account;
  if (draft.maxSpend.trim() !== '') body['max_spend'] = draft.maxSpend.trim();
  if (draft.expires !== '') body['expires_at'] = startOfDate(draft.expires);
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

/**
 * The edit body: every field, an empty one as null. A limit left empty is sent as null beside the others, as the
 * server merges a limits object into the key's (a missing limit would be kept), and all empty is `limits: null`.
 */
export function editBody(draft: KeyDraft): Record<string, unknown> {
  const ips = listOf(draft.ips);
  const limits: Record<string, number | null> = {};
  for (const { name, label } of LIMIT_FIELDS) limits[name] = limitOf(draft[name], label) ?? null;
  return {
    name: draft.name.trim(),
    max_spend: draft.maxSpend.trim() === '' ? null : draft.maxSpend.trim(),
    expires_at: draft.expires === '' ? null : startOfDate(draft.expires),
    models: modelsOf(draft),
    ips: ips.length === 0 ? null : ips,
    limits: Object.values(limits).every((v) => v === null) ? null : limits,
  };
}
