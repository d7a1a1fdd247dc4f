// `npm run chaos -- --profile short|long|channel-down [--seed N] [--rotation off]`: a fleet of two gateway instances
// on one PostgreSQL and one Redis, fake upstreams behind fault proxies, every channel with rotation on, a mixed load,
// faults of every kind injected while it runs (channel-down: one chat channel down for 30 s), then the invariants
// checked and printed as tables (markdown, for docs/reliability.md). Exit 0 only when every one held.
// Loopback only. PostgreSQL: GATEWAY_TEST_POSTGRES_URL (a schema of the run's own is made and dropped); Redis: a
// redis-server the run starts itself (it is stopped and started again as one of the faults).

import { parseArgs } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import { VIDEO_LEASE_MS } from '../features/video/poller.js';
import { ownRedisSkip } from '../test/helpers/own-redis.js';
import { channelDown, type ChannelDown } from './channel-down.js';
import { ADMIN_TOKEN, chaosConfig, healthYaml, NO_ROTATION, POOR_CREDIT, RICH_CREDIT, ROTATION } from './config.js';
import { faultCycle, type FaultKind, type FaultWindow } from './faults.js';
import { startFleet, type Fleet } from './fleet.js';
import { checkInvariants, statusTable } from './invariants.js';
import { startLoad } from './load.js';
import { healthChanges, inFlightGauge, openSlots, unsettledTasks } from './probes.js';
import { checkRotation, loggedChanges } from './rotation-invariants.js';
import { watchRss } from './rss.js';
import { startUpstreams, type Upstreams } from './upstreams.js';
import { seededRandom } from '../test/helpers/seeded-random.js';

interface Profile {
  /** faults: the cycle of every fault; channel-down: one chat channel down for 30 s. Rotation is on in both. */
  readonly scenario: 'faults' | 'channel-down';
  /** Load before the first fault and after the last. */
  readonly quietSeconds: number;
  /** Fault cycles run at least, and the load's least length (cycles repeat until it is reached). */
  readonly cycles: number;
  readonly minLoadSeconds: number;
  readonly faultSeconds: number;
  readonly gapMs: number;
  readonly workers: number;
}

const PROFILES: Readonly<Record<string, Profile>> = {
  short: { scenario: 'faults', quietSeconds: 3, cycles: 1, minLoadSeconds: 0, faultSeconds: 3, gapMs: 1000, workers: 12 },
  long: { scenario: 'faults', quietSeconds: 10, cycles: 1, minLoadSeconds: 600, faultSeconds: 8, gapMs: 4000, workers: 16 },
  // Its 30 s down are the scenario's own (chaos/channel-down.ts); cycles and gaps are the fault cycle's, unused.
  'channel-down': { scenario: 'channel-down', quietSeconds: 5, cycles: 0, minLoadSeconds: 0, faultSeconds: 0, gapMs: 0, workers: 12 },
};


function table(head: readonly string[], rows: readonly (readonly string[])[]): string {
  return [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n');
}

async function credit(fleet: Fleet, account: string, amount: string): Promise<void> {
  const answer = await fetch(`${fleet.instances[0]?.url}/admin/accounts/${account}/credit`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ amount, idempotency_key: `chaos-${account}` }),
  });
  if (answer.status !== 201 && answer.status !== 200) throw new Error(`crediting ${account}: ${answer.status} ${await answer.text()}`);
}

function missing(what: string): number {
  console.error(`chaos: cannot run: ${what}`);
  return 2;
}

async function main(): Promise<number> {
  const { values } = parseArgs({ options: { profile: { type: 'string', default: 'short' }, seed: { type: 'string' }, rotation: { type: 'string', default: 'on' } } });
  const profile = PROFILES[values.profile ?? 'short'];
  if (profile === undefined) throw new Error(`--profile must be one of ${Object.keys(PROFILES).join(', ')}`);
  // `--rotation off`: the down channel never leaves rotation (errors above its window), so that the run shows its
  // invariants failing.
  if (values.rotation !== 'on' && (values.rotation !== 'off' || profile.scenario !== 'channel-down')) throw new Error('--rotation is on, or off with --profile channel-down');
  const postgresUrl = process.env['GATEWAY_TEST_POSTGRES_URL'];
  // What is missing, in one line, not a stack trace: the run cannot start without either.
  if (postgresUrl === undefined) return missing('set GATEWAY_TEST_POSTGRES_URL to a PostgreSQL server it may make a schema in, e.g. postgres://postgres@127.0.0.1:5432/test (.ci/run sets it)');
  if (ownRedisSkip !== undefined) return missing(`${ownRedisSkip} (scripts/ensure-redis-server.sh installs it)`);
  const seed = values.seed === undefined ? Date.now() % 2 ** 31 : Number(values.seed);
  const random = seededRandom(seed);
  const began = Date.now();
  console.log(`chaos: profile ${values.profile}, seed ${seed}${values.rotation === 'off' ? ', rotation off for the down channel' : ''}`);
  // The channel-down profile's: which of the two chat channels goes down (the fault profiles' seeds choose as before).
  // Every channel rotates but, with --rotation off, that one.
  const downName = profile.scenario === 'channel-down' ? (random() < 0.5 ? 'chat-a' : 'chat-b') : null;
  const health = healthYaml(ROTATION);
  const own: Record<string, string> = downName !== null && values.rotation === 'off' ? { [downName]: NO_ROTATION } : {};

  let upstreams: Upstreams | undefined;
  let fleet: Fleet | undefined;
  // Stopped from outside (Ctrl-C, a CI timeout): the processes, Redis and the schema go with it.
  const interrupted = (): void => {
    void (async () => {
      await fleet?.close().catch(() => undefined);
      await upstreams?.close().catch(() => undefined);
      process.exit(130);
    })();
  };
  process.once('SIGINT', interrupted);
  process.once('SIGTERM', interrupted);
  try {
    const ups = await startUpstreams(random);
    upstreams = ups;
    const running = await startFleet({ postgresUrl, config: (store, redis, prefix) => chaosConfig(store, redis, prefix, ups.channels(false, own), health) });
    fleet = running;
    await credit(running, 'rich', RICH_CREDIT);
    await credit(running, 'poor', POOR_CREDIT);
    const windows: FaultWindow[] = [];
    const context = {
      fleet: running,
      upstreams: ups,
      random,
      windows,
      state: { spare: false, addedAt: 0, removedAt: null as number | null, whileConfigured: 0 },
      seconds: profile.faultSeconds,
      writeConfig: (spare: boolean) => running.writeConfig(chaosConfig(running.storeUrl, running.redis.url, running.redisPrefix, ups.channels(spare, own), health)),
    };
    const rss = watchRss(running);
    const load = startLoad(running, profile.workers, random);
    // The fake Ark fails some tasks of its own accord, as the real one does now and then.
    let failedTasks = 0;
    const failer = setInterval(() => {
      const live = [...ups.ark.tasks.values()].filter((t) => (t.status === 'queued' || t.status === 'running') && !t.moved);
      const task = live[Math.floor(random() * live.length)];
      if (task !== undefined && random() < 0.5) {
        ups.ark.fail(task.id, 'OutputVideoSensitiveContentDetected', 'chaos: the output was refused');
        failedTasks++;
      }
    }, 1000);
    const forget = setInterval(() => ups.forget(), 10_000);
    // The channel-down profile's (none in the others): its proxy keeps each request's arrival from now on.
    const downProxy = ups.proxies.find((p) => p.name === downName);
    downProxy?.track();
    const loadBegan = Date.now();
    await sleep(profile.quietSeconds * 1000);
    let down: ChannelDown | null = null;
    if (downProxy !== undefined) down = await channelDown(downProxy, windows, ROTATION);
    let cycles = 0;
    while (profile.scenario === 'faults' && (cycles < profile.cycles || Date.now() - loadBegan < profile.minLoadSeconds * 1000)) {
      await faultCycle(context, profile.gapMs);
      cycles++;
      console.log(`chaos: cycle ${cycles} done, ${Math.round((Date.now() - loadBegan) / 1000)} s of load, ${load.answers.length} requests`);
    }
    await sleep(profile.quietSeconds * 1000);
    await load.stop();
    const loadSeconds = Math.round((Date.now() - loadBegan) / 1000);
    clearInterval(failer);
    clearInterval(forget);

    // Every task ends upstream within seconds; the pollers settle and record each. A lease a read could not give
    // back (the store cut meanwhile) holds its task for at most VIDEO_LEASE_MS: the bound of this wait.
    const deadline = Date.now() + VIDEO_LEASE_MS + 30_000;
    while ((await unsettledTasks(running.directStoreUrl)) > 0 && Date.now() < deadline) await sleep(500);
    // Holds idle for 2 s are given back; the last usage batch is written within 200 ms. The slots of a killed
    // process expire within the limiter's slot TTL (30 s): waited for, up to then.
    await sleep(3000);
    let slots = await openSlots(running.redis.url, running.redisPrefix);
    for (const until = Date.now() + 35_000; slots > 0 && Date.now() < until; slots = await openSlots(running.redis.url, running.redisPrefix)) await sleep(1000);
    const inFlight = await inFlightGauge(running.instances);
    const changes = await healthChanges(running.instances);
    const figures = await rss.figures();
    rss.stop();
    const spare = ups.proxies.find((p) => p.name === 'chat-spare')?.counts.get('passed') ?? 0;
    const exits = await running.stop();
    const logged = loggedChanges(running.instances.map((i) => i.earlierLogs + i.cli.output.stderr));
    const audit = await running.cli(['accounts', 'audit']);
    const { rows, details } = await checkInvariants({
      began,
      answers: load.answers,
      videos: load.videos,
      windows,
      storeUrl: running.directStoreUrl,
      audit: { code: audit.code, output: audit.stdout + audit.stderr },
      workers: profile.workers,
      exits,
      rss: figures,
      openSlots: slots,
      inFlight,
      arkTasks: [...ups.ark.tasks.values()].map((t) => ({ id: t.id, createdMs: t.createdMs })),
      rotation: ROTATION,
      changes: logged,
      spare: profile.scenario === 'faults' ? { whileConfigured: context.state.whileConfigured, afterRemoval: spare - (context.state.removedAt ?? spare) } : null,
    });
    const rotation =
      down === null
        ? null
        : checkRotation({
            began,
            down,
            rotation: ROTATION,
            answers: load.answers,
            changes: logged,
            metric: changes,
            workers: profile.workers,
          });
    if (rotation !== null) {
      rows.push(...rotation.rows);
      details.push(...rotation.details);
    }

    const kinds = new Map<FaultKind, number>();
    for (const w of windows) kinds.set(w.kind, (kinds.get(w.kind) ?? 0) + 1);
    const injected = new Map<string, number>();
    for (const p of ups.proxies) for (const [what, n] of p.counts) if (what !== 'passed') injected.set(what, (injected.get(what) ?? 0) + n);
    const readers = { slow: load.answers.filter((a) => a.reader === 'slow').length, abort: load.answers.filter((a) => a.reader === 'abort').length };

    const what = down === null ? `${cycles} fault cycle${cycles === 1 ? '' : 's'}` : `${down.channel} down ${Math.round((down.end - down.start) / 1000)} s${values.rotation === 'off' ? ', rotation off for it' : ''}`;
    console.log(`\n## Chaos run: profile ${values.profile}, seed ${seed}, ${loadSeconds} s of load, ${what}, ${Math.round((Date.now() - began) / 1000)} s in all\n`);
    console.log(
      table(
        ['fault', 'times', 'requests it met'],
        [
          ...[...kinds].map(([kind, n]) => [kind, String(n), kind.startsWith('upstream') ? String(injected.get(proxyFault(kind)) ?? 0) : kind === 'channel down' ? String(down?.arrivals.filter((a) => a.met !== 'passed').length ?? 0) : '']),
          ['slow-reading clients', '', String(readers.slow)],
          ['clients that left mid-answer', '', String(readers.abort)],
          ['video tasks failed by the upstream', '', String(failedTasks)],
        ],
      ),
    );
    console.log('\n' + table(['request', 'answers by status'], [...statusTable(load.answers)].sort(([a], [b]) => a.localeCompare(b)).map(([kind, byStatus]) => [kind, [...byStatus].map(([s, n]) => `${s}: ${n}`).join(', ')])));
    console.log('\n' + table(['invariant', 'value', 'bound', 'held'], rows.map((r) => [r.what, r.value, r.bound, r.held ? 'yes' : '**NO**'])));
    if (rotation !== null) console.log(`\n${rotation.summary}`);
    const failed = rows.filter((r) => !r.held);
    if (audit.code !== 0) console.log(`\naudit output:\n${audit.stdout}${audit.stderr}`);
    if (failed.length > 0) {
      console.log(`\nchaos: ${failed.length} invariant(s) did not hold`);
      for (const line of details) console.log(`  ${line}`);
      // What the instances logged about the tasks and requests named above.
      const named = details.flatMap((line) => line.match(/(video|task)_[A-Za-z0-9_-]{10,}|req_[0-9a-f]{32}/g) ?? []);
      for (const [i, instance] of running.instances.entries()) {
        for (const line of (instance.earlierLogs + instance.cli.output.stderr).split('\n').filter((l) => named.some((id) => l.includes(id))).slice(0, 20)) console.log(`  instance ${i}: ${line}`);
      }
      for (const w of windows) console.log(`  fault ${w.kind} ${w.upstreams.join(',')}: ${w.start - began}..${w.end - began} ms`);
      for (const [i, instance] of running.instances.entries()) {
        const problems = instance.cli.output.stderr.split('\n').filter((l) => /"level":(50|60)/.test(l));
        console.log(`\ninstance ${i}: ${problems.length} error lines; the last:\n${problems.slice(-10).join('\n')}`);
      }
      return 1;
    }
    console.log('\nchaos: every invariant held');
    return 0;
  } finally {
    await fleet?.close();
    await upstreams?.close();
  }
}

function proxyFault(kind: FaultKind): string {
  const map: Partial<Record<FaultKind, string>> = {
    'upstream reset before the answer': 'reset-before',
    'upstream reset mid-answer': 'reset-mid',
    'upstream timeout': 'timeout',
    'upstream 5xx storm': 'status-5xx',
    'upstream 429 storm': 'status-429',
  };
  return map[kind] ?? '';
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error('chaos:', err);
    process.exit(2);
  },
);
