// The faults of a chaos run, one after another while the load runs, each kept as a window of time: what it was,
// when it began and ended, and which upstreams it touched (the 5xx a window may explain; chaos/invariants.ts).

import { setTimeout as sleep } from 'node:timers/promises';
import type { UpstreamFault } from './fault-proxy.js';
import type { Fleet, Instance } from './fleet.js';
import { limiterKeys } from './probes.js';
import type { Upstreams } from './upstreams.js';

export type FaultKind =
  | 'upstream reset before the answer'
  | 'upstream reset mid-answer'
  | 'upstream timeout'
  | 'upstream 5xx storm'
  | 'upstream 429 storm'
  | 'SIGHUP reload, channels changed'
  | 'rolling SIGTERM restart'
  | 'kill -9 of one instance'
  | 'Redis stopped and restarted'
  | 'PostgreSQL cut and restored'
  | 'channel down';

export interface FaultWindow {
  readonly kind: FaultKind;
  readonly start: number;
  end: number;
  /** Upstreams (fault proxies) it touched; empty for the fleet's own faults. */
  readonly upstreams: readonly string[];
  /** kill -9: which instance process, and when the signal went. */
  readonly killed?: { readonly instance: number; readonly generation: number; readonly at: number };
}

export interface FaultContext {
  readonly fleet: Fleet;
  readonly upstreams: Upstreams;
  readonly random: () => number;
  /** The config with or without the spare chat channel (what a reload toggles). */
  readonly writeConfig: (spare: boolean) => Promise<void>;
  readonly windows: FaultWindow[];
  /**
   * Whether the config has the spare chat channel now; the spare's request count when it was added, and once its
   * removal had settled (what it gets after that must be nothing).
   */
  readonly state: { spare: boolean; addedAt: number; removedAt: number | null; whileConfigured: number };
  /** Seconds a timed fault lasts. */
  readonly seconds: number;
}

const UPSTREAM_FAULTS: readonly [FaultKind, UpstreamFault][] = [
  ['upstream reset before the answer', 'reset-before'],
  ['upstream reset mid-answer', 'reset-mid'],
  ['upstream timeout', 'timeout'],
  ['upstream 5xx storm', 'status-5xx'],
  ['upstream 429 storm', 'status-429'],
];

/** One chat upstream (the other of the tier still answers) and two of the single-channel ones. */
function targets(context: FaultContext): string[] {
  const chat = context.random() < 0.5 ? 'chat-a' : 'chat-b';
  const others = ['responses', 'anthropic', 'images', 'ark', 'control'].sort(() => context.random() - 0.5).slice(0, 2);
  return [chat, ...others];
}

async function timed(context: FaultContext, kind: FaultKind, upstreams: readonly string[], begin: () => Promise<void> | void, finish: () => Promise<void> | void): Promise<void> {
  const window: FaultWindow = { kind, start: Date.now(), end: 0, upstreams };
  context.windows.push(window);
  await begin();
  await sleep(context.seconds * 1000);
  await finish();
  window.end = Date.now();
}

async function upstreamFault(context: FaultContext, kind: FaultKind, fault: UpstreamFault): Promise<void> {
  const names = targets(context);
  const proxies = context.upstreams.proxies.filter((p) => names.includes(p.name));
  await timed(
    context,
    kind,
    names,
    () => proxies.forEach((p) => p.inject(fault, 0.5)),
    () => proxies.forEach((p) => p.inject(null)),
  );
}

const RELOADED = '"msg":"config reloaded"';

async function reload(context: FaultContext): Promise<void> {
  const window: FaultWindow = { kind: 'SIGHUP reload, channels changed', start: Date.now(), end: 0, upstreams: [] };
  context.windows.push(window);
  const state = context.state;
  const spare = context.upstreams.proxies.find((p) => p.name === 'chat-spare');
  const spareCount = (): number => spare?.counts.get('passed') ?? 0;
  state.spare = !state.spare;
  await context.writeConfig(state.spare);
  const before = context.fleet.instances.map((i) => i.cli.output.stderr.split(RELOADED).length);
  await context.fleet.reload();
  // Applied, not only signalled: each instance logs the reload.
  await until(() => context.fleet.instances.every((i, n) => i.cli.output.stderr.split(RELOADED).length > (before[n] ?? 0)), 'an instance did not log its reload');
  if (state.spare) state.addedAt = spareCount();
  else {
    // Requests routed to it before the reload may still be on their way.
    await sleep(3000);
    state.whileConfigured += spareCount() - state.addedAt;
    state.removedAt = spareCount();
  }
  window.end = Date.now();
}

async function rollingRestart(context: FaultContext): Promise<void> {
  const window: FaultWindow = { kind: 'rolling SIGTERM restart', start: Date.now(), end: 0, upstreams: [] };
  context.windows.push(window);
  for (const instance of context.fleet.instances) {
    await context.fleet.restart(instance);
    // The balancer sees it ready again before the next one goes.
    await until(() => instance.ready);
  }
  window.end = Date.now();
}

async function kill(context: FaultContext): Promise<void> {
  const instance = context.fleet.instances[Math.floor(context.random() * context.fleet.instances.length)] as Instance;
  const generation = instance.starts;
  const at = context.fleet.kill(instance);
  const window: FaultWindow = { kind: 'kill -9 of one instance', start: at, end: 0, upstreams: [], killed: { instance: instance.index, generation, at } };
  context.windows.push(window);
  await sleep(2000);
  await context.fleet.revive(instance);
  await until(() => instance.ready);
  window.end = Date.now();
}

async function until(ready: () => boolean, what = 'an instance did not turn ready'): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!ready()) {
    if (Date.now() > deadline) throw new Error(`${what} within 30 s`);
    await sleep(50);
  }
}

/**
 * Runs one fault of each kind, `gapMs` of quiet between two: the fleet's restarts first, so that the processes left
 * at the end have served the rest of the cycle (their memory is judged after it), and the spare channel added by
 * the first reload and removed by the last.
 */
export async function faultCycle(context: FaultContext, gapMs: number): Promise<void> {
  const steps: (() => Promise<void>)[] = [
    () => rollingRestart(context),
    () => reload(context),
    () => kill(context),
    ...UPSTREAM_FAULTS.map(([kind, fault]) => () => upstreamFault(context, kind, fault)),
    () =>
      timed(
        context,
        'Redis stopped and restarted',
        [],
        () => context.fleet.redis.stop(),
        async () => {
          await context.fleet.redis.start();
          // The fleet noticed: its limiter writes its buckets into the new, empty Redis.
          const deadline = Date.now() + 15_000;
          while ((await limiterKeys(context.fleet.redis.url, context.fleet.redisPrefix)) === 0) {
            if (Date.now() > deadline) throw new Error('the fleet did not write to Redis again within 15 s of its restart');
            await sleep(100);
          }
        },
      ),
    () =>
      timed(
        context,
        'PostgreSQL cut and restored',
        [],
        () => context.fleet.postgres.cut(),
        () => context.fleet.postgres.restore(),
      ),
    () => reload(context),
  ];
  for (const step of steps) {
    await step();
    await sleep(gapMs);
  }
}
