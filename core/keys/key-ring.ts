// Who a presented key is: declared keys from the config, run-time keys from the store (cached briefly).

import type { SpendPeriod } from '../money/spend-period.js';
import { timingSafeEqual } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { ResolvedAccount, ResolvedDeclaredKey, ResolvedLimits, SpendCap } from '../config/resolved.js';
import type { FoundKey, Store } from '../store/store.js';
import { GatewayError } from '../errors.js';
import { digestKey } from './key-material.js';
import { presentedKey } from './presented-key.js';
import { compileGlobs, type ModelMatcher } from '../routing/glob.js';
import { AddressList } from './address-list.js';

/** The caller, once authenticated. */
export interface AuthedKey {
  readonly id: string;
  readonly name: string;
  readonly group: string;
  /** The account that pays for it (metered); absent: unmetered. */
  readonly account?: string;
  /** Most it may spend in all (or per spendPeriod), nano-units; absent: no cap. */
  readonly maxSpend?: bigint;
  /** The calendar period maxSpend is per (core/money/spend-period.ts); absent: a lifetime cap. */
  readonly spendPeriod?: SpendPeriod;
  /** Its account's max_spend, over all the account's keys together; absent: none. */
  readonly accountCap?: SpendCap;
  /** Its own rate limits, over its group's (core/limits). */
  readonly limits?: ResolvedLimits;
  /** Epoch ms from which it is refused (401). */
  readonly expiresAt?: number;
  /** The models it may call, within its group's (403 for others). */
  readonly models?: ModelMatcher;
  /** The addresses it may be used from (403 from others). */
  readonly addresses?: AddressList;
}

/** The key's money fields, present only when set (so an unmetered key's object is as it always was). */
function moneyOf(k: { readonly account?: string | undefined; readonly maxSpend?: bigint | undefined; readonly spendPeriod?: SpendPeriod | undefined }): {
  account?: string;
  maxSpend?: bigint;
  spendPeriod?: SpendPeriod;
} {
  const money: { account?: string; maxSpend?: bigint; spendPeriod?: SpendPeriod } = {};
  if (k.account !== undefined) money.account = k.account;
  if (k.maxSpend !== undefined) money.maxSpend = k.maxSpend;
  if (k.spendPeriod !== undefined) money.spendPeriod = k.spendPeriod;
  return money;
}

export type AuthOutcome =
  | { readonly kind: 'ok'; readonly key: AuthedKey }
  | { readonly kind: 'revoked' }
  | { readonly kind: 'disabled' }
  | { readonly kind: 'unknown' };

interface Declared {
  readonly digest: Buffer;
  /** Made once: a declared key's outcome is the same object for every request. */
  readonly outcome: AuthOutcome;
}

const UNKNOWN: AuthOutcome = { kind: 'unknown' };
const REVOKED: AuthOutcome = { kind: 'revoked' };
const DISABLED: AuthOutcome = { kind: 'disabled' };

/** gateway.yaml's accounts' max_spend by name (null: declared without one): for those, the file's word, not the store's. */
type DeclaredCaps = ReadonlyMap<string, SpendCap | null>;

/** The key's account's max_spend: gateway.yaml's for a declared account, else the store's (came with the lookup). */
function accountCapOf(account: string | undefined, stored: SpendCap | undefined, declared: DeclaredCaps): { accountCap?: SpendCap } {
  if (account === undefined) return {};
  const cap = declared.has(account) ? declared.get(account) : stored;
  return cap === undefined || cap === null ? {} : { accountCap: cap };
}

function outcomeOf(stored: FoundKey | undefined, declared: DeclaredCaps): AuthOutcome {
  if (stored === undefined) return UNKNOWN;
  if (stored.revokedAt !== null) return REVOKED;
  if (stored.disabled === true) return DISABLED;
  return { kind: 'ok', key: Object.assign({ id: stored.id, name: stored.name, group: stored.group }, moneyOf(stored), accountCapOf(stored.account, stored.accountCap, declared), settingsOf(stored)) };
}

/** A stored key's limits and access, compiled once per lookup (present only when set). */
function settingsOf(stored: FoundKey): { limits?: ResolvedLimits; expiresAt?: number; models?: ModelMatcher; addresses?: AddressList } {
  const settings: { limits?: ResolvedLimits; expiresAt?: number; models?: ModelMatcher; addresses?: AddressList } = {};
  if (stored.limits !== undefined) settings.limits = stored.limits;
  if (stored.expiresAt !== undefined) settings.expiresAt = stored.expiresAt;
  if (stored.models !== undefined) settings.models = compileGlobs(stored.models);
  if (stored.ips !== undefined) settings.addresses = new AddressList(stored.ips);
  return settings;
}

function keyOf(outcome: AuthOutcome): AuthedKey {
  if (outcome.kind === 'unknown') throw new GatewayError('GW_ERR_AUTH_INVALID_KEY', 'Incorrect API key provided.');
  if (outcome.kind === 'revoked') throw new GatewayError('GW_ERR_AUTH_REVOKED_KEY', 'This API key has been revoked.');
  if (outcome.kind === 'disabled') throw new GatewayError('GW_ERR_AUTH_DISABLED_KEY', 'This API key is disabled.');
  const { key } = outcome;
  // Checked on every use: a cached lookup outlives the moment its key expires.
  if (key.expiresAt !== undefined && key.expiresAt <= Date.now()) {
    throw new GatewayError('GW_ERR_AUTH_EXPIRED_KEY', `This API key expired at ${new Date(key.expiresAt).toISOString()}.`);
  }
  return key;
}

export interface KeyRingOptions {
  /** How long a store lookup (hit or miss) is trusted; bounds how late another process's revocation is seen. */
  readonly cacheTtlMs?: number;
  readonly cacheMax?: number;
  /** Accounts whose keys are refused (the operator disabled them); none without. */
  readonly disabledAccounts?: { has(account: string): boolean };
  /** gateway.yaml's accounts: their max_spend (the store's is for accounts made at run time). */
  readonly accounts?: readonly ResolvedAccount[];
  /** The clock cacheTtlMs is counted on (a test's, moved past it by hand); performance.now without. */
  readonly cacheClock?: () => number;
}

export class KeyRing {
  private readonly declared: readonly Declared[];
  /** Store lookups by digest, as their outcomes. */
  private readonly cache: LRUCache<string, AuthOutcome>;
  /** Bumped by forget(): lookups begun before it do not fill the cache. */
  private generation = 0;
  private readonly disabledAccounts: { has(account: string): boolean } | undefined;
  private readonly declaredCaps: DeclaredCaps;

  constructor(
    declared: readonly ResolvedDeclaredKey[],
    private readonly store: Store,
    options: KeyRingOptions = {},
  ) {
    this.declaredCaps = new Map((options.accounts ?? []).map((a) => [a.name, a.spendCap ?? null]));
    this.declared = declared.map((k) => ({
      digest: Buffer.from(digestKey(k.key), 'hex'),
      outcome: {
        kind: 'ok',
        key: Object.assign({ id: `config:${k.name}`, name: k.name, group: k.group }, moneyOf(k), accountCapOf(k.account, undefined, this.declaredCaps), k.limits === undefined ? {} : { limits: k.limits }),
      },
    }));
    this.cache = new LRUCache({ max: options.cacheMax ?? 10_000, ttl: options.cacheTtlMs ?? 5_000, ...(options.cacheClock === undefined ? {} : { perf: { now: options.cacheClock }, ttlResolution: 0 }) });
    this.disabledAccounts = options.disabledAccounts;
  }

  /**
   * Synchronous unless the store must be asked (a run-time key not looked up in the last cacheTtlMs): a declared
   * or cached key costs the request no promise and no wait for a microtask turn.
   */
  authenticate(presented: string): AuthOutcome | Promise<AuthOutcome> {
    const hex = digestKey(presented);
    const digest = Buffer.from(hex, 'hex');
    // Every declared digest is compared in constant time, without an early exit.
    let match: AuthOutcome | null = null;
    for (const d of this.declared) if (timingSafeEqual(d.digest, digest)) match = d.outcome;
    if (match !== null) return match;

    const cached = this.cache.get(hex);
    if (cached !== undefined) return cached;
    const generation = this.generation;
    return this.store.findKeyByHash(hex).then((stored) => {
      const outcome = outcomeOf(stored, this.declaredCaps);
      // A lookup that began before a forget() may have read the key as it was: used once, not cached.
      if (generation === this.generation) this.cache.set(hex, outcome);
      return outcome;
    });
  }

  /**
   * The caller named by the request headers, synchronously when authenticate() is; throws (or rejects with) the
   * 401 GatewayError for a missing, unknown or revoked key.
   */
  identify(headers: Readonly<Record<string, string | string[] | undefined>>, queryKey?: string): AuthedKey | Promise<AuthedKey> {
    const outcome = this.authenticate(presentedKey(headers, queryKey));
    return outcome instanceof Promise ? outcome.then((o) => this.usable(o)) : this.usable(outcome);
  }

  /** The key of an 'ok' outcome, unless its account is disabled (checked per use: an operator disables at any time). */
  private usable(outcome: AuthOutcome): AuthedKey {
    const key = keyOf(outcome);
    if (key.account !== undefined && this.disabledAccounts?.has(key.account) === true) {
      throw new GatewayError('GW_ERR_AUTH_DISABLED_ACCOUNT', `This API key's account "${key.account}" is disabled.`);
    }
    return key;
  }

  /** Drops cached lookups (all, or one key's by its hex digest), so an edit made through this process applies at once. */
  forget(hash?: string): void {
    this.generation++;
    // One key's edit (the console) drops its lookup only; the rest of the cache stays warm.
    if (hash === undefined) this.cache.clear();
    else this.cache.delete(hash);
  }
}
