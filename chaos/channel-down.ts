// The channel-down profile (issue 45): gpt-4o and gpt-4o-mini have two channels (chat-a and chat-b, one tier), every
// channel has rotation on (chaos/config.ts, ROTATION), and one of the two goes fully down for 30 s under the load
// (its fault proxy resets or answers 5xx to every request), then comes back. Its proxy keeps each request's arrival,
// which chaos/rotation-invariants.ts holds against the back-off schedule, the fleet's log lines and its metrics.

import { setTimeout as sleep } from 'node:timers/promises';
import type { Rotation } from './config.js';
import type { Arrival, FaultProxy } from './fault-proxy.js';
import type { FaultWindow } from './faults.js';

/** How long the channel is down: the acceptance point's 30 s. */
export const DOWN_SECONDS = 30;

/** The wait before the k-th probe (0: the first) after the channel was taken out. */
export function backoffMs(rotation: Rotation, k: number): number {
  return Math.min(rotation.probeAfterMs * 2 ** Math.min(k, 30), rotation.probeMaxMs);
}

export interface ChannelDown {
  readonly channel: string;
  /** When its proxy began and stopped failing every request. */
  readonly start: number;
  readonly end: number;
  /** What its proxy received, from before the fault to the end of the load. */
  readonly arrivals: readonly Arrival[];
}

/** Requests served by the channel after its first served one following the fault: it has traffic again. */
const TRAFFIC_AGAIN = 20;
/** Beyond the longest back-off, what the wait for the channel's return allows (the load takes a due probe in ms). */
const RETURN_SLACK_MS = 15_000;

/**
 * Takes `proxy`'s channel down for DOWN_SECONDS (a window of kind 'channel down'), then waits until it has served
 * TRAFFIC_AGAIN requests again (its probe first), or the longest back-off and a margin have passed: the invariants
 * say which.
 */
export async function channelDown(proxy: FaultProxy, windows: FaultWindow[], rotation: Rotation): Promise<ChannelDown> {
  const window: FaultWindow = { kind: 'channel down', start: Date.now(), end: 0, upstreams: [proxy.name] };
  windows.push(window);
  const start = Date.now();
  proxy.inject('down', 1);
  console.log(`chaos: channel ${proxy.name} down for ${DOWN_SECONDS} s`);
  await sleep(DOWN_SECONDS * 1000);
  proxy.inject(null);
  const end = Date.now();
  window.end = end;
  const deadline = end + rotation.probeMaxMs + RETURN_SLACK_MS;
  const servedAgain = (): number => proxy.arrivals.filter((a) => a.at >= end && a.met === 'passed').length;
  while (servedAgain() < TRAFFIC_AGAIN && Date.now() < deadline) await sleep(50);
  console.log(`chaos: channel ${proxy.name} up again; ${servedAgain()} requests served ${Date.now() - end} ms after`);
  return { channel: proxy.name, start, end, arrivals: proxy.arrivals };
}
