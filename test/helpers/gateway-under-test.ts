// Starts the real gateway in-process on a free loopback port, with a config written to a temp dir.

import { TEST_PASSWORD_COST } from './password-cost.js';
import type { PasswordCost } from '../../core/console/password.js';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EndpointRegistry } from '../../core/endpoints/registry.js';
import { createSilentLogger, type Logger } from '../../core/logging/logger.js';
import type { PluginFactory } from '../../core/pipeline/plugin.js';
import type { Limiter } from '../../core/limits/limiter.js';
import type { HostResolver } from '../../core/http/public-url.js';
import { startGateway, type RunningGateway } from '../../core/serve.js';
import { openStore } from '../../core/store/open-store.js';
import type { UsageRecord } from '../../core/store/store.js';
import { builtinPlugins } from '../../plugins/index.js';
import { FEATURES } from '../../features/index.js';
import { createVideoFeature } from '../../features/video/index.js';
import { webhookJobs } from '../../features/webhooks/jobs.js';
import type { Feature } from '../../core/feature/feature.js';
import { STORE_PARTS } from '../../features/index.js';

export const TEST_KEY = 'sk-test-0123456789abcdefghij';
export const LIMITED_KEY = 'sk-limited-0123456789abcdefgh';

export interface GatewayUnderTest {
  readonly gateway: RunningGateway;
  readonly url: string;
  readonly dir: string;
  readonly configPath: string;
  /** Writes a new config file (the caller reloads or waits for the watcher). */
  writeConfig(yaml: string): Promise<void>;
  /** Flushes the usage writer and reads every record from the store. */
  usage(): Promise<UsageRecord[]>;
  /** Resolves once the current config's first read of every upstream model list has ended (/v1/models is then stable). */
  modelsDiscovered(): Promise<void>;
  stop(): Promise<void>;
}

/** A config with the two test keys and the given channels block (YAML, indented as a list under channels:). */
export function configWith(channels: string, extra = ''): string {
  return `server:
  port: 0
  host: 127.0.0.1
  body_limit: 65536
  admin_token: test-admin-token-0123456789
  shutdown_grace_ms: 5000
store:
  url: sqlite:./gateway.db
channels:
${channels}
# Never out of rotation (more errors than the window holds): the tests of error answers fail one channel many
# times on purpose; rotation has its own tests (test/e2e/channel-health.test.ts).
health: { errors: 11, window: 10 }
groups:
  pro:
    models: ["*"]
  limited:
    models: ["demo-*"]
keys:
  - name: tester
    key: ${TEST_KEY}
    group: pro
  - name: limited
    key: ${LIMITED_KEY}
    group: limited
${extra}`;
}

export interface GatewayUnderTestOptions {
  /** scrypt's cost for console passwords; TEST_PASSWORD_COST without. */
  readonly passwordCost?: PasswordCost;
  readonly watch?: boolean;
  /** Where the gateway logs; silent when absent. */
  readonly logger?: Logger;
  /** Plugins besides the built-in ones (a test's own, to provoke what no real plugin does). */
  readonly extraPlugins?: readonly PluginFactory[];
  /** The endpoints served, when not the built-in ones. */
  readonly endpoints?: EndpointRegistry;
  /** Rate-limit state: a MemoryLimiter on a clock the test moves. */
  readonly limiter?: Limiter;
  /** How asset URLs' hosts resolve (no DNS in tests). */
  readonly resolveHost?: HostResolver;
  /** How often the video poller looks for due tasks. */
  readonly videoPollTickMs?: number;
  /** The clock the mock channel's asset library reads (Processing, then Active 2 s after it was made). */
  readonly mockClock?: () => number;
  /** The calendar clock periodic budgets read. */
  readonly clock?: () => number;
  /** The clock the key lookup cache's 5 s are counted on (a run-time key's change reaches another instance then). */
  readonly keyCacheClock?: () => number;
  /** How often the webhook scan (balances, keys) and sender run (every minute and second without). */
  readonly webhookEveryMs?: number;
  /** The clock channel rotation's back-offs read (health.probe_after_ms), moved by the test. */
  readonly healthClock?: () => number;
  /** The config file's permission bits (chmod), when the test cares who may read it. */
  readonly configMode?: number;
}

export async function startGatewayUnderTest(yaml: string, options: GatewayUnderTestOptions = {}): Promise<GatewayUnderTest> {
  const dir = await mkdtemp(join(tmpdir(), 'gw-test-'));
  const configPath = join(dir, 'gateway.yaml');
  // A relative store path is relative to the config file's folder: `sqlite:./gateway.db` is this temp dir's.
  await writeFile(configPath, yaml);
  if (options.configMode !== undefined) await chmod(configPath, options.configMode);
  const gateway = await startGateway({
    configPath,
    features: featuresFor(options.videoPollTickMs, options.webhookEveryMs),
    factories: new Map([...builtinPlugins(), ...(options.extraPlugins ?? []).map((f): [string, PluginFactory] => [f.name, f])]),
    logger: options.logger ?? createSilentLogger(),
    port: 0,
    watch: options.watch ?? false,
    usageFlushMs: 20,
    // The test's config names its own store; one set in the shell (GATEWAY_STORE_URL) must not move it.
    env: Object.fromEntries(Object.entries(process.env).filter(([name]) => name !== 'GATEWAY_STORE_URL')),
    ...(options.endpoints === undefined ? {} : { endpoints: options.endpoints }),
    ...(options.limiter === undefined ? {} : { limiter: options.limiter }),
    ...(options.resolveHost === undefined ? {} : { resolveHost: options.resolveHost }),
    ...(options.mockClock === undefined ? {} : { mockClock: options.mockClock }),
    ...(options.clock === undefined ? {} : { clock: options.clock }),
    ...(options.keyCacheClock === undefined ? {} : { keyCacheClock: options.keyCacheClock }),
    ...(options.healthClock === undefined ? {} : { healthClock: options.healthClock }),
    passwordCost: options.passwordCost ?? TEST_PASSWORD_COST,
  });
  let stopped = false;
  return {
    gateway,
    url: gateway.url,
    dir,
    configPath,
    writeConfig: (next) => writeFile(configPath, next),
    async usage() {
      await gateway.runtime.deps.writer.flush();
      return gateway.runtime.deps.store.listUsage({ limit: 10_000 });
    },
    modelsDiscovered: () => gateway.runtime.current.catalog.settled(),
    async stop() {
      if (stopped) return;
      stopped = true;
      await gateway.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Reads usage records from a store file after the gateway is gone. */
export async function readUsageFile(dbPath: string): Promise<UsageRecord[]> {
  const store = await openStore(`sqlite:${dbPath}`, STORE_PARTS);
  try {
    return await store.listUsage({ limit: 100_000 });
  } finally {
    await store.close();
  }
}

export function channel(name: string, url: string, extra = ''): string {
  return `  - name: ${name}
    type: openai
    base_url: ${url}
    keys: ["sk-upstream-${name}"]
    models: ["gpt-*"]
    cooldown_ms: 0
${extra}`;
}

/**
 * The built-in features; with `pollTickMs`, the video poller looks that often; with `webhookEveryMs`, the webhook scan
 * and sender run that often (a feature's own options).
 */
function featuresFor(pollTickMs: number | undefined, webhookEveryMs?: number): readonly Feature[] {
  return FEATURES.map((f) => {
    if (f.name === 'video' && pollTickMs !== undefined) return createVideoFeature({ pollTickMs });
    if (f.name === 'webhooks' && webhookEveryMs !== undefined) return Object.assign({}, f, { jobs: (env: Parameters<typeof webhookJobs>[0]) => webhookJobs(env, { scanEveryMs: webhookEveryMs, sendEveryMs: webhookEveryMs }) });
    return f;
  });
}
