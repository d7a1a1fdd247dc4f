// Who a presented key is: declared keys from the config, run-time keys from the store (cached briefly).

import { timingSafeEqual } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { ResolvedDeclaredKey } from '../config/resolved.js';
import type { Store, StoredKey } from '../store/store.js';
import { GatewayError } from '../errors.js';
import { digestKey } from './key-material.js';
import { presentedKey } from './presented-key.js';

/** The caller, once authenticated. */
export interface AuthedKey {
  readonly id: string;
  readonly name: string;
  readonly group: string;
}

export type AuthOutcome =
  | { readonly kind: 'ok'; readonly key: AuthedKey }
  | { readonly kind: 'revoked' }
  | { readonly kind: 'unknown' };

interface Declared {
  readonly digest: Buffer;
  readonly key: AuthedKey;
}

const UNKNOWN: AuthOutcome = { kind: 'unknown' };
const REVOKED: AuthOutcome = { kind: 'revoked' };

export interface KeyRingOptions {
  /** How long a store lookup (hit or miss) is trusted; bounds how late another process's revocation is seen. */
  readonly cacheTtlMs?: number;
  readonly cacheMax?: number;
}

export class KeyRing {
  private readonly declared: readonly Declared[];
  private readonly cache: LRUCache<string, StoredKey | false>;

  constructor(
    declared: readonly ResolvedDeclaredKey[],
    private readonly store: Store,
    options: KeyRingOptions = {},
  ) {
    this.declared = declared.map((k) => ({
      digest: Buffer.from(digestKey(k.key), 'hex'),
      key: { id: `config:${k.name}`, name: k.name, group: k.group },
    }));
    this.cache = new LRUCache({ max: options.cacheMax ?? 10_000, ttl: options.cacheTtlMs ?? 5_000 });
  }

  async authenticate(presented: string): Promise<AuthOutcome> {
    const hex = digestKey(presented);
    const digest = Buffer.from(hex, 'hex');
    // Every declared digest is compared in constant time, without an early exit.
    let match: AuthedKey | null = null;
    for (const d of this.declared) if (timingSafeEqual(d.digest, digest)) match = d.key;
    if (match !== null) return { kind: 'ok', key: match };

    let stored = this.cache.get(hex);
    if (stored === undefined) {
      stored = (await this.store.findKeyByHash(hex)) ?? false;
      this.cache.set(hex, stored);
    }
    if (stored === false) return UNKNOWN;
    if (stored.revokedAt !== null) return REVOKED;
    return { kind: 'ok', key: { id: stored.id, name: stored.name, group: stored.group } };
  }

  /** The caller named by the request headers; throws the 401 GatewayError for a missing, unknown or revoked key. */
  async identify(headers: Readonly<Record<string, string | string[] | undefined>>): Promise<AuthedKey> {
    const outcome = await this.authenticate(presentedKey(headers));
    if (outcome.kind === 'unknown') throw new GatewayError('GW_ERR_AUTH_INVALID_KEY', 'Incorrect API key provided.');
    if (outcome.kind === 'revoked') throw new GatewayError('GW_ERR_AUTH_REVOKED_KEY', 'This API key has been revoked.');
    return outcome.key;
  }

  /** Drops cached lookups, so a revocation made through this process applies at once. */
  forget(): void {
    this.cache.clear();
  }
}
