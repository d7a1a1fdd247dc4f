// The polling job's passes: one at a time; a notice while one runs makes exactly one more after it (however many came),
// so a notice that came during a pass that read too early is not lost; a tick while one runs is dropped; nothing starts after stop(), which waits for
// the pass running.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Passes } from './passes.js';

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve = (): void => undefined;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

describe('Passes', () => {
  it('runs once more after a pass when a notice came during it, however many came; drops a tick', async () => {
    const gates: { resolve: () => void }[] = [];
    let started = 0;
    const passes = new Passes(
      () => {
        started++;
        const gate = deferred();
        gates.push(gate);
        return gate.promise;
      },
      () => assert.fail('no pass fails here'),
    );
    passes.ask(false);
    assert.equal(started, 1);
    passes.ask(true);
    passes.ask(true);
    passes.ask(false);
    assert.equal(started, 1, 'not two at once');
    gates[0]?.resolve();
    await new Promise((r) => setImmediate(r));
    assert.equal(started, 2, 'the asks during the first pass made one more');
    gates[1]?.resolve();
    await new Promise((r) => setImmediate(r));
    assert.equal(started, 2, 'and only one');
    passes.ask(false);
    assert.equal(started, 3);
    passes.ask(false);
    gates[2]?.resolve();
    await new Promise((r) => setImmediate(r));
    assert.equal(started, 3, 'a tick during a pass is dropped: a slow store is not polled back to back');
    await passes.stop();
  });

  it('reports a failed pass and goes on; after stop() nothing runs and nothing is reported', async () => {
    const failures: unknown[] = [];
    let runs = 0;
    const passes = new Passes(
      () => {
        runs++;
        return Promise.reject(new Error(`pass ${runs}`));
      },
      (err) => failures.push(err),
    );
    passes.ask(false);
    await new Promise((r) => setImmediate(r));
    passes.ask(false);
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(failures.map((e) => (e as Error).message), ['pass 1', 'pass 2']);
    await passes.stop();
    passes.ask(true);
    await new Promise((r) => setImmediate(r));
    assert.equal(runs, 2);
  });

  it('stop() waits for the running pass, and no rerun starts after it', async () => {
    const gate = deferred();
    let runs = 0;
    const passes = new Passes(
      () => {
        runs++;
        return runs === 1 ? gate.promise : Promise.resolve();
      },
      () => undefined,
    );
    passes.ask(false);
    passes.ask(true);
    let stopped = false;
    const stopping = passes.stop().then(() => (stopped = true));
    await new Promise((r) => setImmediate(r));
    assert.equal(stopped, false, 'the first pass still runs');
    gate.resolve();
    await stopping;
    assert.equal(runs, 1, 'the rerun asked before stop() did not start: the process is stopping');
  });
});
