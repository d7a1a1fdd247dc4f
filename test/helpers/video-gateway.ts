// A gateway running video tasks on fake Ark data planes (test/helpers/fake-ark.ts), each channel with its asset
// library on a fake control plane (fake-volcengine.ts): keys of two accounts and a cheap group, prices per 1M tokens,
// a poller that looks often. `extra` is appended to the config; `store` replaces the SQLite file (PostgreSQL);
// `prices` come before the channels' own glob's, so that they win for the models they name.

import type { Logger } from '../../core/logging/logger.js';
import { startFakeArk, type FakeArk } from './fake-ark.js';
import { startFakeVolcengine, type FakeVolcengine } from './fake-volcengine.js';
import { startGatewayUnderTest, TEST_KEY, type GatewayUnderTest } from './gateway-under-test.js';
import { AK, ADMIN, ALICE, ALICE_TWO, BOB, BROKE, SK, testResolver } from './asset-gateway.js';

export { ADMIN, ALICE, ALICE_TWO, BOB, BROKE, TEST_KEY };
export const HALF = 'sk-half-0123456789abcdefghij';
/** The output price per 1M tokens: 2.00, so 108,900 tokens cost 0.2178. */
export const OUTPUT_PRICE_NANO = 2_000_000_000n;
export const SEEDANCE = 'doubao-seedance-2-0-260128';

export interface VideoPlanes {
  readonly ark: FakeArk;
  readonly arkTwo: FakeArk;
  readonly control: FakeVolcengine;
  readonly controlTwo: FakeVolcengine;
  close(): Promise<void>;
}

export async function startVideoPlanes(): Promise<VideoPlanes> {
  const [ark, arkTwo, control, controlTwo] = await Promise.all([
    startFakeArk(),
    startFakeArk({ keys: ['ark-second-key-00000000000002'] }),
    startFakeVolcengine({ accessKeyId: AK, secretAccessKey: SK, processingMs: 300 }),
    startFakeVolcengine({ accessKeyId: AK, secretAccessKey: SK, processingMs: 300 }),
  ]);
  return {
    ark,
    arkTwo,
    control,
    controlTwo,
    close: async () => {
      await Promise.all([ark.close(), arkTwo.close(), control.close(), controlTwo.close()]);
    },
  };
}

export interface VideoConfigOptions {
  /** The store's URL; the gateway's temp dir's SQLite file by default. */
  readonly store?: string;
  readonly extra?: string;
  /** video.poll_interval_ms (100 by default: the poller reads soon); a long one leaves reads to the callers' GETs. */
  readonly pollIntervalMs?: number;
  /** video.task_timeout_ms (the default, 48 h, when absent). */
  readonly taskTimeoutMs?: number;
  /** Lines of pricing.models (`    "doubao-seedance-x": { output: "1.00" }\n`) before `doubao-seedance-*`: the first match wins. */
  readonly prices?: string;
  /** More keys (`  - { name: ..., key: ..., group: pro, account: acme }\n`) after the fixed ones. */
  readonly keys?: string;
  /**
   * The top-level `health` (channel rotation), `{ errors: 11, window: 10 }` by default: never out of rotation, as
   * configWith's (the tests of failed submissions fail a channel many times on purpose).
   */
  readonly health?: string;
  /** Each channel's timeout_ms (the default when absent). */
  readonly timeoutMs?: number;
}

export function videoConfig(planes: VideoPlanes, options: VideoConfigOptions = {}): string {
  const channel = (name: string, ark: FakeArk, control: FakeVolcengine, priority: number): string => `  - name: ${name}
    type: volcengine
    base_url: ${ark.url}
    keys: ${JSON.stringify(ark.keys)}
    control:
      url: ${control.url}
      region: cn-beijing
      access_key_id: ${AK}
      secret_access_key: ${SK}
      project_name: proj-${name}
    models: ["doubao-seedance-*"]
    priority: ${priority}
    cooldown_ms: 0
    assets: true
${options.timeoutMs === undefined ? '' : `    timeout_ms: ${options.timeoutMs}\n`}`;
  return `server:
  port: 0
  host: 127.0.0.1
  admin_token: ${ADMIN}
  shutdown_grace_ms: 2000
store:
  url: ${options.store ?? 'sqlite:./gateway.db'}
video:
  poll_interval_ms: ${options.pollIntervalMs ?? 100}
  max_poll_interval_ms: ${Math.max(200, options.pollIntervalMs ?? 0)}
  refresh_after_ms: 0
${options.taskTimeoutMs === undefined ? '' : `  task_timeout_ms: ${options.taskTimeoutMs}\n`}health: ${options.health ?? '{ errors: 11, window: 10 }'}
pricing:
  models:
${options.prices ?? ''}    "doubao-seedance-*": { output: "2.00" }
groups:
  pro: { models: ["*"] }
  half: { models: ["*"], price_multiplier: "0.5" }
accounts:
  - name: acme
  - name: other
  - name: empty
keys:
  - { name: alice, key: ${ALICE}, group: pro, account: acme }
  - { name: alice-two, key: ${ALICE_TWO}, group: pro, account: acme }
  - { name: bob, key: ${BOB}, group: pro, account: other }
  - { name: broke, key: ${BROKE}, group: pro, account: empty }
  - { name: half, key: ${HALF}, group: half, account: other }
  - { name: free, key: ${TEST_KEY}, group: pro }
${options.keys ?? ''}channels:
${channel('ark', planes.ark, planes.control, 1)}${channel('ark-two', planes.arkTwo, planes.controlTwo, 0)}${options.extra ?? ''}`;
}

export interface VideoGateway {
  readonly gw: GatewayUnderTest;
  request(key: string, method: string, path: string, body?: unknown): Promise<{ readonly status: number; readonly body: Record<string, unknown>; readonly text: string }>;
  admin(method: string, path: string, body?: unknown): Promise<{ readonly status: number; readonly body: Record<string, unknown> }>;
  stop(): Promise<void>;
}

/** `credit`: what acme and other are credited at start ('' for nothing; 10.00 by default). */
/** `clock`: the calendar clock periodic budgets read; `healthClock`: rotation's back-offs' (a test's, moved by hand). */
export async function startVideoGateway(
  planes: VideoPlanes,
  options: VideoConfigOptions & { readonly credit?: string; readonly logger?: Logger; readonly clock?: () => number; readonly healthClock?: () => number } = {},
): Promise<VideoGateway> {
  const extra = Object.assign(
    {},
    options.logger === undefined ? {} : { logger: options.logger },
    options.clock === undefined ? {} : { clock: options.clock },
    options.healthClock === undefined ? {} : { healthClock: options.healthClock },
  );
  const gw = await startGatewayUnderTest(videoConfig(planes, options), Object.assign({ resolveHost: testResolver, videoPollTickMs: 25 }, extra));
  const request: VideoGateway['request'] = async (key, method, path, body) => {
    const init: RequestInit = { method, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' } };
    if (body !== undefined) init.body = typeof body === 'string' ? body : JSON.stringify(body);
    const response = await fetch(`${gw.url}${path}`, init);
    const text = await response.text();
    let parsed: Record<string, unknown> = {};
    try {
      parsed = JSON.parse(text) as Record<string, unknown>;
    } catch {
      // Not JSON: the test reads `text`.
    }
    return { status: response.status, body: parsed, text };
  };
  const admin: VideoGateway['admin'] = async (method, path, body) => {
    const init: RequestInit = { method, headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' } };
    if (body !== undefined) init.body = JSON.stringify(body);
    const response = await fetch(`${gw.url}${path}`, init);
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  if (options.credit !== '') {
    for (const account of ['acme', 'other']) {
      const credited = await admin('POST', `/admin/accounts/${account}/credit`, { amount: options.credit ?? '10.00', idempotency_key: `start-${account}` });
      if (credited.status !== 201 && credited.status !== 200) throw new Error(`credit ${account}: ${credited.status}`);
    }
  }
  return { gw, request, admin, stop: () => gw.stop() };
}
