// Load from our own client (lib/timed-request.ts), for what autocannon cannot do: an even fixed rate (its
// `overallRate` sends each second's quota in a burst at the start of the second), time to first byte, SSE
// checks, and thousands of streams held open at once.
//
// closedLoop: `concurrency` workers, each issuing its next request when the previous one settled.
// openLoop:   requests issued on a schedule (`rate` per second, evenly spaced) whatever the answers do, until
//             `count` were issued; then it waits for all of them (up to `drainLimitMs`).
// Each run gets its own keep-alive Agent with no socket cap, destroyed at the end, so no run inherits another
// run's connections (or the idle ones a server may be closing just then).

import { setMaxListeners } from 'node:events';
import { Agent } from 'node:http';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { OutcomeTally, type DriveResult } from './outcome-tally.js';
import { timedRequest, type RequestSpec } from './timed-request.js';

let currentStop: AbortController | undefined;

/** Stops the run in progress, if any: no new requests; those in flight end as `unfinished`. */
export function stopCurrentDrive(): void {
  currentStop?.abort();
}

/** One signal for every request of a run: thousands of abort listeners on it are expected, not a leak. */
function newStop(): AbortController {
  const stop = new AbortController();
  setMaxListeners(1_000_000, stop.signal);
  currentStop = stop;
  return stop;
}

function newAgent(): Agent {
  return new Agent({ keepAlive: true, maxSockets: Infinity, maxFreeSockets: 4096 });
}

export interface ClosedLoopOptions {
  readonly spec: RequestSpec;
  readonly concurrency: number;
  readonly durationS: number;
  readonly expectedEvents: number | undefined;
}

export async function closedLoop(opts: ClosedLoopOptions): Promise<DriveResult> {
  const stop = newStop();
  const agent = newAgent();
  const tally = new OutcomeTally(opts.expectedEvents);
  const start = performance.now();
  const end = start + opts.durationS * 1000;
  const worker = async (): Promise<void> => {
    while (!stop.signal.aborted && performance.now() < end) {
      tally.issued();
      tally.sendLag.push(0);
      tally.add(await timedRequest(agent, opts.spec, stop.signal, tally.opened));
    }
  };
  try {
    await Promise.all(Array.from({ length: opts.concurrency }, worker));
    return tally.result((performance.now() - start) / 1000);
  } finally {
    agent.destroy();
    if (currentStop === stop) currentStop = undefined;
  }
}

export interface OpenLoopOptions {
  readonly spec: RequestSpec;
  /** Requests issued per second, evenly spaced. */
  readonly rate: number;
  readonly count: number;
  /** After the last request is issued, how long the ones in flight may take before they are stopped. */
  readonly drainLimitMs: number;
  readonly expectedEvents: number | undefined;
}

export async function openLoop(opts: OpenLoopOptions): Promise<DriveResult> {
  const stop = newStop();
  const agent = newAgent();
  const tally = new OutcomeTally(opts.expectedEvents);
  const intervalMs = 1000 / opts.rate;
  const inFlight = new Set<Promise<void>>();
  const start = performance.now();
  let issued = 0;
  try {
    // A 1 ms tick issues everything that is due; timers are the only clock a Node process has, and a tick
    // that comes late issues the overdue requests at once (their lateness is recorded as sendLag).
    while (issued < opts.count && !stop.signal.aborted) {
      const now = performance.now();
      const due = Math.min(opts.count, Math.floor((now - start) / intervalMs) + 1);
      for (; issued < due; issued++) {
        tally.sendLag.push(now - (start + issued * intervalMs));
        tally.issued();
        const p: Promise<void> = timedRequest(agent, opts.spec, stop.signal, tally.opened).then((o) => {
          tally.add(o);
          inFlight.delete(p);
        });
        inFlight.add(p);
      }
      if (issued < opts.count) await sleep(1);
    }
    // The last request's slot ends one interval after it was due.
    const issueS = (performance.now() - start + intervalMs) / 1000;
    const drainTimer = setTimeout(() => stop.abort(), opts.drainLimitMs);
    await Promise.all(inFlight);
    clearTimeout(drainTimer);
    return tally.result((performance.now() - start) / 1000, issueS);
  } finally {
    agent.destroy();
    if (currentStop === stop) currentStop = undefined;
  }
}
