// RedisGate on a clock the test moves: open while connected and answering; closed by a timeout (requests then skip
// Redis), but for one probe every 250 ms; opened by an answer; closed while disconnected, whatever the answers.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RedisGate } from '../../../core/shared/redis-gate.js';

describe('RedisGate', () => {
  it('lets one probe through every 250 ms after a timeout, and opens on an answer', () => {
    let now = 1_000;
    let connected = true;
    const gate = new RedisGate(() => connected, () => now);
    assert.equal(gate.open(), true);
    gate.timedOut();
    assert.equal(gate.open(), false, 'no request waits right after a timeout');
    now += 249;
    assert.equal(gate.open(), false);
    now += 1;
    assert.equal(gate.open(), true, 'a probe at 250 ms');
    assert.equal(gate.open(), false, 'one probe, not every request');
    gate.timedOut(); // the probe timed out too: still closed, probing on
    now += 250;
    assert.equal(gate.open(), true);
    gate.answered();
    assert.deepEqual([gate.open(), gate.open(), gate.open()], [true, true, true]);
    connected = false;
    gate.answered();
    assert.equal(gate.open(), false, 'nothing waits on a disconnected client');
  });
});
