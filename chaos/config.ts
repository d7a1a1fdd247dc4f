// gateway.yaml of a chaos run: the fleet's store and Redis, short timeouts so faults resolve within seconds, prices
// for every model and the asset library's CreateAsset, and the keys of chaos/requests.ts.

import { KEYS } from './requests.js';

export const ADMIN_TOKEN = 'chaos-admin-token-0123456789';
/** What the poor account is credited: some dozens of requests, then 402. */
export const POOR_CREDIT = '0.02';
export const RICH_CREDIT = '100000.00';

export interface Rotation {
  readonly errors: number;
  readonly window: number;
  readonly probeAfterMs: number;
  readonly probeMaxMs: number;
}

/**
 * Every channel's `health` in every profile: the defaults' 5 of 10, with back-offs short enough that a fault window
 * of seconds keeps a channel out for seconds more at most (the invariants explain an out-of-rotation 503 up to the
 * longest back-off after its window), and that the channel-down profile's 30 s show the first back-off, its doubling
 * and its cap (1, 2, 4, 4, ... s).
 */
export const ROTATION: Rotation = { errors: 5, window: 10, probeAfterMs: 1000, probeMaxMs: 4000 };

/** A channel that never leaves rotation (errors above its window): the down channel of `--rotation off`. */
export const NO_ROTATION = '{ errors: 11, window: 10 }';

export function healthYaml(rotation: Rotation): string {
  return `{ errors: ${rotation.errors}, window: ${rotation.window}, probe_after_ms: ${rotation.probeAfterMs}, probe_max_ms: ${rotation.probeMaxMs} }`;
}

export function chaosConfig(store: string, redis: string, prefix: string, channels: string, health: string): string {
  return `server:
  host: 127.0.0.1
  port: 0
  admin_token: ${ADMIN_TOKEN}
  shutdown_grace_ms: 5000
  drain_delay_ms: 600
store:
  url: "${store}"
  pool_max: 8
redis:
  url: "${redis}"
  prefix: "${prefix}"
  on_failure: open
video:
  poll_interval_ms: 500
  max_poll_interval_ms: 1000
  refresh_after_ms: 500
pricing:
  reservation_timeout_ms: 5000
  models:
    "gpt-4o": { input: "2.50", output: "10.00" }
    "gpt-4o-mini": { input: "0.15", output: "0.60" }
    "gpt-5-codex": { input: "1.25", output: "10.00" }
    "claude-*": { input: "3.00", output: "15.00", cache_read: "0.30", cache_write: "3.75" }
    "gpt-image-1": { input: "5.00", output: "40.00", per_image: "0.01" }
    "doubao-seedance-*": { output: "0.10" }
  calls:
    videogen.asset.CreateAsset: "0.001"
groups:
  pro: { models: ["*"] }
  limited: { models: ["*"], limits: { rpm: 30 } }
accounts:
  - name: rich
  - name: poor
keys:
  - { name: free, key: ${KEYS.free}, group: pro }
  - { name: rich, key: ${KEYS.rich}, group: pro, account: rich }
  - { name: poor, key: ${KEYS.poor}, group: pro, account: poor }
  - { name: rpm, key: ${KEYS.rpm}, group: limited }
  - { name: busy, key: ${KEYS.busy}, group: pro, account: rich, limits: { concurrency: 2 } }
health: ${health}
channels:
${channels}`;
}
