// Which limits apply to a request, from one config load: the key's (its own values over its group's), the key's on
// the request's model (the first of its group's model globs that matches), and its account's (all its keys
// together). Built once per load; a request only merges three numbers and looks up one glob.

import type { ResolvedConfig, ResolvedLimits } from '../config/resolved.js';
import type { AuthedKey } from '../keys/key-ring.js';
import { compileGlob, type ModelMatcher } from '../routing/glob.js';
import type { LimitCheck } from './limiter.js';

interface KeyChecks {
  readonly own: LimitCheck | null;
  /** By model pattern. */
  readonly models: Map<string, LimitCheck>;
}

interface GroupPlan {
  readonly limits: ResolvedLimits;
  readonly models: readonly { readonly pattern: string; readonly matches: ModelMatcher; readonly limits: ResolvedLimits }[];
}

export class LimitPlan {
  readonly #groups = new Map<string, GroupPlan>();
  /** Each account's check, for all its keys together. */
  readonly #accounts = new Map<string, LimitCheck>();
  /** Each key object's checks (a declared key's object lives as long as its load; a run-time key's as its cache entry). */
  readonly #keys = new WeakMap<AuthedKey, KeyChecks>();
  /** Whether the load's file sets any limit: when none does, only a key with limits of its own (run-time) is checked. */
  readonly declared: boolean;

  constructor(config: Pick<ResolvedConfig, 'groups' | 'accounts' | 'keys'>) {
    let declared = config.keys.some((k) => k.limits !== undefined && hasAny(k.limits));
    for (const [name, group] of config.groups) {
      this.#groups.set(name, { limits: group.limits, models: group.modelLimits.map((m) => ({ pattern: m.pattern, matches: compileGlob(m.pattern), limits: m.limits })) });
      declared ||= hasAny(group.limits) || group.modelLimits.length > 0;
    }
    for (const account of config.accounts) {
      if (account.limits === undefined || !hasAny(account.limits)) continue;
      this.#accounts.set(account.name, Object.assign({ subject: `account:${account.name}`, scope: 'account' as const, label: `account "${account.name}"` }, account.limits));
      declared = true;
    }
    this.declared = declared;
  }

  /** The limits `key` calling `model` is held to; empty when none applies. */
  checksFor(key: AuthedKey, model: string): LimitCheck[] {
    const checks: LimitCheck[] = [];
    const known = this.#ofKey(key);
    if (known.own !== null) checks.push(known.own);
    const group = this.#groups.get(key.group);
    if (group !== undefined && group.models.length > 0 && model !== '') {
      const onModel = group.models.find((m) => m.matches(model));
      if (onModel !== undefined) {
        let check = known.models.get(onModel.pattern);
        if (check === undefined) {
          check = Object.assign({ subject: `key:${key.id}:model:${onModel.pattern}`, scope: 'model' as const, label: `key "${key.name}" on ${onModel.pattern}` }, onModel.limits);
          known.models.set(onModel.pattern, check);
        }
        checks.push(check);
      }
    }
    if (key.account !== undefined) {
      const account = this.#accounts.get(key.account);
      if (account !== undefined) checks.push(account);
    }
    return checks;
  }

  /** The key's own limits (its values over its group's), or null when it has none. */
  ownCheck(key: AuthedKey): LimitCheck | null {
    return this.#ofKey(key).own;
  }

  /** A key's own check (its values over its group's), made once per key object: its strings are not made per request. */
  #ofKey(key: AuthedKey): KeyChecks {
    let known = this.#keys.get(key);
    if (known !== undefined) return known;
    const group = this.#groups.get(key.group);
    const own = key.limits;
    const rpm = own?.rpm ?? group?.limits.rpm;
    const tpm = own?.tpm ?? group?.limits.tpm;
    const concurrency = own?.concurrency ?? group?.limits.concurrency;
    const tpd = own?.tpd ?? group?.limits.tpd;
    const limited = rpm !== undefined || tpm !== undefined || concurrency !== undefined || tpd !== undefined;
    const check = limited ? Object.assign({ subject: `key:${key.id}`, scope: 'key' as const, label: `key "${key.name}"`, rpm, tpm, concurrency }, tpd === undefined ? {} : { tpd }) : null;
    known = { own: check, models: new Map() };
    this.#keys.set(key, known);
    return known;
  }
}

function hasAny(limits: ResolvedLimits): boolean {
  return limits.rpm !== undefined || limits.tpm !== undefined || limits.concurrency !== undefined || limits.tpd !== undefined;
}
