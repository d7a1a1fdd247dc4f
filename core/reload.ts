// Reloading the config file: the same bytes read once, parsed, and swapped in as a new Gateway; a file that does not
// parse leaves the running config in force. Also what the console shows as the running config: the bytes last loaded.

import { createHash } from 'node:crypto';
import { parseConfig, readConfigText } from './config/load.js';
import type { Env } from './config/interpolate.js';
import { ConfigError, type ResolvedConfig } from './config/resolved.js';
import type { ConfigValidator } from './config/validate.js';
import type { EndpointRegistry } from './endpoints/registry.js';
import type { Logger } from './logging/logger.js';
import type { GatewayMetrics } from './metrics/gateway-metrics.js';
import type { Runtime } from './runtime.js';
import type { Store } from './store/store.js';

export interface ReloadDeps {
  readonly configPath: string;
  readonly env: Env;
  readonly endpoints: EndpointRegistry;
  readonly validator: ConfigValidator;
  readonly store: Store;
  readonly metrics: GatewayMetrics;
  readonly logger: Logger;
  /** What a swapped config must also reach: the fleet's channel names and cool-downs, the hold timeout. */
  readonly applied: (next: ResolvedConfig) => void;
}

export class ConfigReloads {
  #digest: string;
  #source: { readonly file: string; readonly text: string };
  /** The level the gateway was started with: what a config without log.level means, also after a reload that removed it. */
  readonly #startLevel: string;
  #runtime: Runtime | null = null;
  /** The config the process started with: what a restart-only setting is compared to. */
  #started: ResolvedConfig | null = null;

  constructor(
    private readonly deps: ReloadDeps,
    initial: { readonly file: string; readonly text: string },
  ) {
    this.#digest = digestOf(initial.text);
    this.#source = initial;
    this.#startLevel = deps.logger.level;
  }

  /** The runtime a reload swaps the config of (made after this, from the first config). */
  attach(runtime: Runtime): void {
    this.#runtime = runtime;
    this.#started = runtime.current.config;
  }

  /** The config file's path and text as last loaded. */
  source(): { readonly file: string; readonly text: string } {
    return this.#source;
  }

  /**
   * Reads the file once and parses those very bytes, so the digest always matches what was loaded.
   * `onlyIfChanged`: the watcher fires for touches and duplicate events; those are not reloads.
   */
  async reload(onlyIfChanged = false): Promise<boolean> {
    const { deps } = this;
    const runtime = this.#runtime;
    if (runtime === null) return false;
    try {
      const { file, text } = await readConfigText(deps.configPath);
      const digest = digestOf(text);
      if (onlyIfChanged && digest === this.#digest) return true;
      const next = parseConfig(text, { file, env: deps.env, endpoints: deps.endpoints, validator: deps.validator });
      await recordMoneyConfig(deps.store, next);
      const current = runtime.current.config;
      runtime.reload(next);
      // A changed admin token (a leaked one replaced) ends what the old one opened.
      if (next.server.adminToken !== current.server.adminToken) await runtime.current.services.consoleSignIn.endAdminTokenSessions();
      deps.applied(next);
      this.#digest = digest;
      this.#source = { file, text };
      deps.metrics.configReloads.labels('ok').inc();
      deps.logger.level = next.log.level ?? this.#startLevel;
      deps.logger.info({ channels: next.channels.length }, 'config reloaded');
      if (needsRestart(this.#started ?? current, next)) {
        deps.logger.warn('server settings (but admin_token, metrics_token and shutdown_grace_ms), store, redis and affinity.max_entries take effect after a restart');
      }
      return true;
    } catch (err) {
      deps.metrics.configReloads.labels('rejected').inc();
      const issues = err instanceof ConfigError ? err.issues : [String((err as Error).message)];
      deps.logger.error({ issues }, 'config rejected; the previous config stays in force');
      return false;
    }
  }
}

/** The file's accounts exist in the store, and its prices are kept under their version (for the audit). */
export async function recordMoneyConfig(store: Store, config: ResolvedConfig): Promise<void> {
  const now = Date.now();
  await store.ledger.ensureAccounts(config.accounts, now);
  await store.ledger.savePriceVersion(config.pricing.version, config.pricing.document, now);
}

function digestOf(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** Whether `next` changes a setting that only a restart applies. */
function needsRestart(current: ResolvedConfig, next: ResolvedConfig): boolean {
  const fixed = (c: ResolvedConfig): unknown[] => [
    c.server.port,
    c.server.host,
    c.server.bodyLimit,
    c.server.bodyTimeoutMs,
    c.server.headerTimeoutMs,
    c.server.maxInflightBodyBytes,
    JSON.stringify(c.server.metricsListen),
    JSON.stringify(c.server.adminListen),
    c.store.url,
    c.store.journalPath,
    c.store.journalMaxRecords,
    c.affinity.maxEntries,
    JSON.stringify(c.redis),
  ];
  const a = fixed(current);
  return fixed(next).some((value, i) => value !== a[i]);
}
