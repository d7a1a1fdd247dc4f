// ChannelLoad (core/routing/channel-load.ts): requests in flight per channel, and attempts with their failures per
// minute over the last hour, on a clock the test moves.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ChannelLoad } from '../../../core/routing/channel-load.js';

test('in flight from the attempt to its failure or its request\'s end; never below zero', () => {
  const load = new ChannelLoad(() => 0);
  load.started('a');
  load.started('a');
  load.started('b');
  assert.deepEqual([load.inFlight('a'), load.inFlight('b'), load.inFlight('c')], [2, 1, 0]);
  load.failed('a');
  // A stream that broke off mid-way: a failure, still in flight until its request ends.
  load.brokeOff('b');
  assert.deepEqual([load.inFlight('a'), load.inFlight('b'), load.recent('b').failures], [1, 1, 1]);
  load.ended('a');
  load.ended('a');
  load.ended('b');
  assert.deepEqual([load.inFlight('a'), load.inFlight('b')], [0, 0]);
});

test('attempts and failures of the last hour, a failed-over attempt counted against its channel', () => {
  let now = 10 * 3_600_000;
  const load = new ChannelLoad(() => now);
  // A request fails on a, then b serves it; then two more on b.
  load.started('a');
  load.failed('a');
  load.started('b');
  load.ended('b');
  now += 30 * 60_000;
  load.started('b');
  load.started('b');
  load.failed('b');
  load.ended('b');
  assert.deepEqual(load.recent('a'), { windowMinutes: 60, attempts: 1, failures: 1 });
  assert.deepEqual(load.recent('b'), { windowMinutes: 60, attempts: 3, failures: 1 });
  // An hour after the first: only the later minute is left.
  now += 31 * 60_000;
  assert.deepEqual(load.recent('a'), { windowMinutes: 60, attempts: 0, failures: 0 });
  assert.deepEqual(load.recent('b'), { windowMinutes: 60, attempts: 2, failures: 1 });
  // A minute's slot reused an hour later starts from zero.
  now += 29 * 60_000;
  load.started('b');
  assert.deepEqual(load.recent('b'), { windowMinutes: 60, attempts: 1, failures: 0 });
});
