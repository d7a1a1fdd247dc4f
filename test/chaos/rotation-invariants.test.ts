// The channel-down profile's invariants (chaos/rotation-invariants.ts) over made-up evidence: a fleet that kept to
// the back-off schedule passes, and each way of breaking it (a request that is no probe, no change logged, a client
// that saw the down channel's error) fails its row.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ROTATION } from '../../chaos/config.js';
import type { Arrival } from '../../chaos/fault-proxy.js';
import type { Answer } from '../../chaos/load.js';
import { checkRotation, loggedChanges, type LoggedChange, type RotationEvidence } from '../../chaos/rotation-invariants.js';

const START = 10_000;
const END = 40_000;
/** Five failures (the threshold at 10 500), eight failed probes on the 1, 2, 4, 4... s schedule, the served one. */
const FAILED = [10_100, 10_200, 10_300, 10_400, 10_500, 11_600, 13_700, 17_800, 21_900, 26_000, 30_100, 34_200, 38_300];
const SERVED = [42_350, 42_400, 42_500];

function answer(tag: string, sentAt: number, status = 200): Answer {
  return { tag, kind: 'chat whole native', key: 'free', reader: 'whole', upstreams: [['chat-a', 'chat-b']], metered: true, instance: 0, generation: 1, sentAt, endedAt: sentAt + 5, status, id: null, code: null, complete: true, failure: null, broken: false };
}

function evidence(extra: { arrivals?: Arrival[]; answers?: Answer[]; changes?: LoggedChange[] | null; metric?: Map<string, number> } = {}): RotationEvidence {
  const arrivals: Arrival[] = [
    ...FAILED.map((at, i) => ({ at, met: i % 2 === 0 ? 'reset-before' : 'status-5xx', tag: `f${i}` })),
    ...SERVED.map((at, i) => ({ at, met: 'passed', tag: `s${i}` })),
    ...(extra.arrivals ?? []),
  ].sort((a, b) => a.at - b.at);
  const answers = [...arrivals.map((a) => answer(a.tag ?? '', a.at - 2)), ...(extra.answers ?? [])];
  const changes: LoggedChange[] = [
    { time: 10_505, channel: 'chat-a', reason: 'errors' },
    ...FAILED.slice(5).map((at) => ({ time: at + 3, channel: 'chat-a', reason: 'probe_failed' as const })),
    { time: 42_352, channel: 'chat-a', reason: 'probe_served' },
  ];
  const metric = extra.metric ?? new Map([['chat-a errors', 1], ['chat-a probe_failed', 8], ['chat-a probe_served', 1]]);
  return { began: 0, down: { channel: 'chat-a', start: START, end: END, arrivals }, rotation: ROTATION, answers, changes: extra.changes === null ? [] : (extra.changes ?? changes), metric, workers: 12 };
}

function failing(found: ReturnType<typeof checkRotation>): string[] {
  return found.rows.filter((r) => !r.held).map((r) => r.what.trim());
}

test('a fleet that sent only probes on the back-off schedule holds every row', () => {
  const found = checkRotation(evidence());
  assert.deepEqual(failing(found), []);
  assert.match(found.summary, /13 requests failed while down; threshold at \+500 ms, logged out at \+505 ms; 5 before the line, 0 in flight at it, 8 probes while down, 0 not probes; back \+2350 ms/);
});

test('a request sent after the change was logged, before its back-off, is no probe', () => {
  const found = checkRotation(evidence({ arrivals: [{ at: 12_000, met: 'status-5xx', tag: 'x' }] }));
  assert.deepEqual(failing(found), ['requests after the threshold that were not probes (earlier than their back-off)']);
  assert.match(found.details[0] ?? '', /^not a probe: status-5xx at 12000 ms \(request x sent at 11998 ms/);
});

test('a request sent before the change was logged is in flight at it; one sent after it is not', () => {
  const inFlight = { at: 10_530, met: 'reset-before', tag: 'late' };
  assert.deepEqual(failing(checkRotation(evidence({ arrivals: [inFlight], answers: [answer('late', 10_480)] }))), []);
  // The same arrival from a request sent 60 ms after the line: past PROPAGATION_MS, so no probe (too early).
  const tooLate = { at: 10_600, met: 'reset-before', tag: 'later' };
  assert.deepEqual(failing(checkRotation(evidence({ arrivals: [tooLate], answers: [answer('later', 10_565)] }))), [
    'requests after the threshold that were not probes (earlier than their back-off)',
  ]);
});

test('a channel the fleet never took out fails its row, and its failed probes are not logged', () => {
  const found = failing(checkRotation(evidence({ changes: null, metric: new Map() })));
  assert.ok(found.includes('taken out by the fleet: its "out of rotation" log line after the threshold (lines; metric)'), found.join('\n'));
  assert.ok(found.includes('failed probes: at the proxy / "stays out" log lines / metric'));
});

test('a client that saw an error of the down channel fails the model\'s row', () => {
  assert.deepEqual(failing(checkRotation(evidence({ answers: [answer('other', 10_398, 502)] }))), ['requests of chat-a\'s models: client-visible errors (5xx, no answer, 2xx broken)']);
  // One the down channel failed, answered 502 instead of failing over: its own row too.
  assert.deepEqual(failing(checkRotation(evidence({ answers: [answer('f3', 10_398, 502)] }))), [
    'requests of chat-a\'s models: client-visible errors (5xx, no answer, 2xx broken)',
    'requests the down channel failed, as their clients saw them (failover)',
  ]);
});

test('another channel taken out fails its row', () => {
  const changes: LoggedChange[] = [...evidence().changes, { time: 20_000, channel: 'anthropic', reason: 'errors' }];
  assert.deepEqual(failing(checkRotation(evidence({ changes }))), ['other channels\' rotation changes (log lines; metric)']);
});

test('the rotation changes are read from the instances\' JSON log lines', () => {
  const log = [
    '{"level":40,"time":1000,"channel":"chat-a","reason":"errors","failures":5,"probeInMs":1000,"msg":"channel chat-a is out of rotation after 5 failures; probed in 1000 ms"}',
    '{"level":40,"time":900,"channel":"chat-a","reason":"timeout","msg":"upstream attempt failed"}',
    'not json, rotation "reason"',
  ].join('\n');
  const other = '{"level":30,"time":3000,"channel":"chat-a","reason":"probe_served","failures":0,"probeInMs":0,"msg":"channel chat-a is back in rotation: its probe was served"}';
  assert.deepEqual(loggedChanges([other, log]), [
    { time: 1000, channel: 'chat-a', reason: 'errors' },
    { time: 3000, channel: 'chat-a', reason: 'probe_served' },
  ]);
});
