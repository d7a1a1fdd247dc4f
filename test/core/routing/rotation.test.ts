// Channel rotation without Redis: out after `errors` failures in the last `window` outcomes, one probe after the
// back-off (every other plan skips it meanwhile), back in after a served probe, out for twice as long after a failed
// one (up to the cap); the caller's 4xx never count; an operator's disable always wins over a probe. A due probe goes
// first of its own tier only; its lease outlasts its channel's timeout; a probe given back is due again at once; an
// operator's reset puts a channel back.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ResolvedHealth } from '../../../core/config/resolved.js';
import { ChannelOverrides } from '../../../core/routing/overrides.js';
import { ChannelRotation, type RotationChange } from '../../../core/routing/rotation.js';
import { claimAttempt, releaseAttempt } from '../../../core/routing/probe-claim.js';
import { Router } from '../../../core/routing/router.js';
import { resolvedChannel } from './resolved-channel.js';

const HEALTH: ResolvedHealth = { errors: 3, window: 5, probeAfterMs: 1000, probeMaxMs: 3000 };

function setup(overrides = new ChannelOverrides()): { router: Router; rotation: ChannelRotation; clock: { t: number }; changes: RotationChange[] } {
  const clock = { t: 0 };
  const rotation = new ChannelRotation(() => clock.t);
  const changes: RotationChange[] = [];
  rotation.onChange = (change) => changes.push(change);
  const channels = ['a', 'b'].map((name) => resolvedChannel(name, { health: HEALTH, cooldownMs: 0, priority: name === 'a' ? 1 : 0 }));
  return { router: new Router(channels, { rotation, overrides, random: () => 0 }), rotation, clock, changes };
}

const names = (router: Router): string[] => router.plan('m').map((a) => `${a.channel.name}${a.probe === true ? '*' : ''}`);

describe('channel rotation (one instance)', () => {
  it('takes a channel out after errors failures in its window, and never for the caller\'s 4xx', () => {
    const { router, rotation, changes } = setup();
    for (let i = 0; i < 10; i++) rotation.record('a', HEALTH, 'neutral', false);
    assert.deepEqual(names(router), ['a', 'b']);
    // 2 failures among the last 5 (the first one slid out of the window): still in.
    rotation.record('a', HEALTH, 'failed', false);
    for (let i = 0; i < 4; i++) rotation.record('a', HEALTH, 'served', false);
    rotation.record('a', HEALTH, 'failed', false);
    rotation.record('a', HEALTH, 'failed', false);
    assert.deepEqual(names(router), ['a', 'b']);
    assert.equal(changes.length, 0);
    rotation.record('a', HEALTH, 'failed', false);
    assert.deepEqual(names(router), ['b']);
    assert.equal(changes.length, 1);
    assert.deepEqual([changes[0]?.state, changes[0]?.reason, changes[0]?.failures, changes[0]?.backoffMs], ['out', 'errors', 3, 1000]);
  });

  it('sends one probe after the back-off, doubles it on a failed probe up to the cap, puts it back on a served one', async () => {
    const { router, rotation, clock, changes } = setup();
    for (let i = 0; i < 3; i++) rotation.record('a', HEALTH, 'failed', false);
    clock.t = 999;
    assert.deepEqual(names(router), ['b']);
    clock.t = 1000;
    assert.deepEqual(names(router), ['a*', 'b']);
    assert.equal(await rotation.claimProbe('a'), true);
    // Taken: every other plan skips it while the probe is in flight.
    assert.deepEqual(names(router), ['b']);
    assert.equal(await rotation.claimProbe('a'), false);
    assert.equal(rotation.state('a', HEALTH).state, 'probing');
    rotation.record('a', HEALTH, 'failed', true);
    assert.deepEqual([changes[1]?.reason, changes[1]?.backoffMs], ['probe_failed', 2000]);
    clock.t = 2999;
    assert.deepEqual(names(router), ['b']);
    assert.equal(router.outOfRotationMs('m'), null, 'b still serves');
    clock.t = 3000;
    assert.equal(await rotation.claimProbe('a'), true);
    rotation.record('a', HEALTH, 'failed', true);
    assert.equal(changes[2]?.backoffMs, 3000, 'capped at probe_max_ms');
    clock.t = 6000;
    assert.equal(await rotation.claimProbe('a'), true);
    // A straggler of before the time out says nothing; the probe does.
    rotation.record('a', HEALTH, 'served', false);
    assert.equal(rotation.state('a', HEALTH).state, 'probing');
    rotation.record('a', HEALTH, 'neutral', true);
    assert.deepEqual([changes[3]?.state, changes[3]?.reason], ['in', 'probe_served']);
    assert.deepEqual(names(router), ['a', 'b']);
    // Back with an empty window: it takes `errors` new failures again.
    rotation.record('a', HEALTH, 'failed', false);
    rotation.record('a', HEALTH, 'failed', false);
    assert.deepEqual(names(router), ['a', 'b']);
  });

  it('says how long until the first probe when every channel is out', () => {
    const { router, rotation, clock } = setup();
    for (let i = 0; i < 3; i++) rotation.record('a', HEALTH, 'failed', false);
    clock.t = 400;
    for (let i = 0; i < 3; i++) rotation.record('b', HEALTH, 'failed', false);
    assert.deepEqual(router.plan('m'), []);
    assert.equal(router.outOfRotationMs('m'), 600);
    assert.equal(router.outOfRotationMs('other-model-of-no-channel'), 600, 'both channels serve every model here');
  });

  it('never probes a channel the operator disabled, and enabling it keeps its health', () => {
    const overrides = new ChannelOverrides();
    const { router, rotation, clock } = setup(overrides);
    for (let i = 0; i < 3; i++) rotation.record('a', HEALTH, 'failed', false);
    overrides.set(new Map([['a', { disabled: true, weight: null }]]));
    clock.t = 5000;
    assert.deepEqual(names(router), ['b']);
    overrides.set(new Map());
    assert.deepEqual(names(router), ['a*', 'b']);
  });

  it('puts a due probe first of its own tier, never before a higher tier\'s channel in rotation', () => {
    const { router, rotation, clock } = setup();
    // b is priority 0, a priority 1: b's probe waits behind a.
    for (let i = 0; i < 3; i++) rotation.record('b', HEALTH, 'failed', false);
    clock.t = 1000;
    assert.deepEqual(names(router), ['a', 'b*']);
    // a (the higher tier) due too: its probe first, one probe per plan.
    for (let i = 0; i < 3; i++) rotation.record('a', HEALTH, 'failed', false);
    clock.t = 2000;
    assert.deepEqual(names(router), ['a*']);
  });

  it('holds a probe at least as long as its channel\'s timeout, and gives it back at once when nothing was sent', async () => {
    const clock = { t: 0 };
    const rotation = new ChannelRotation(() => clock.t);
    const slow = resolvedChannel('slow', { health: HEALTH, cooldownMs: 0, timeoutMs: 600_000 });
    const router = new Router([slow], { rotation, random: () => 0 });
    for (let i = 0; i < 3; i++) rotation.record('slow', HEALTH, 'failed', false);
    clock.t = 1000;
    const [probe] = router.plan('m');
    assert.equal(probe?.probe, true);
    assert.equal(await claimAttempt(rotation, probe as NonNullable<typeof probe>), true);
    // Past the 120 s floor, within the channel's own 600 s timeout: the probe may still be running.
    clock.t = 1000 + 300_000;
    assert.equal(rotation.check('slow'), 'out');
    clock.t = 1000 + 630_000;
    assert.equal(rotation.check('slow'), 'due', 'given up after the timeout and its margin');
    assert.equal(await claimAttempt(rotation, probe as NonNullable<typeof probe>), true);
    assert.equal(rotation.check('slow'), 'out');
    // Its request sent nothing (a refused translation, a client gone): the next request may probe now.
    releaseAttempt(rotation, probe as NonNullable<typeof probe>);
    assert.equal(rotation.check('slow'), 'due');
    assert.deepEqual(router.plan('m').map((a) => a.probe), [true]);
  });

  it('puts a channel back at an operator\'s word (told once, with who), and does nothing to one in rotation', async () => {
    const { router, rotation, changes } = setup();
    assert.deepEqual(await rotation.reset('a', 'ops'), { change: null, fleet: false });
    for (let i = 0; i < 3; i++) rotation.record('a', HEALTH, 'failed', false);
    assert.deepEqual(names(router), ['b']);
    const { change } = await rotation.reset('a', 'ops');
    assert.deepEqual([change?.state, change?.reason, change?.by], ['in', 'reset', 'ops']);
    assert.deepEqual(changes.map((c) => c.reason), ['errors', 'reset']);
    assert.deepEqual(names(router), ['a', 'b']);
  });
});
