// gateway.yaml of a chaos run: the fleet's store and Redis, short timeouts so faults resolve within seconds, prices
// for every model and the asset library's CreateAsset, and the keys of chaos/requests.ts.

import { KEYS } from './requests.js';

export const ADMIN_TOKEN = 'chaos-admin-token-0123456789';
/** What the poor account is credited: some dozens of requests, then 402. */
export const POOR_CREDIT = '0.02';
export const RICH_CREDIT = '100000.00';

/**
 * Every channel's `health` in the fault profiles: never out of rotation (errors above the window). Their faults fail
 * most models' only channel on purpose, and their invariants do not tell an out-of-rotation 503 after a fault window
 * from an unexplained one; rotation under a fault is the channel-down profile's (chaos/channel-down.ts).
 */
export const NO_ROTATION = '{ errors: 11, window: 10 }';

export function chaosConfig(store: string, redis: string, prefix: string, channels: string, health = NO_ROTATION): string {
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
