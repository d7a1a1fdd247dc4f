// The operator's run-time overrides in the router (core/routing/overrides.ts): a disabled channel is left out
// entirely (even when every other one is cooling, unlike a cooling channel, tried last), an overridden weight orders
// the tier, a new snapshot is applied at the next plan (a Router made after it starts with it), clearing restores YAML.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ResolvedChannel } from '../../../core/config/resolved.js';
import { ChannelOverrides } from '../../../core/routing/overrides.js';
import { Router } from '../../../core/routing/router.js';
import { seededRandom } from '../../helpers/seeded-random.js';
import { resolvedChannel } from './resolved-channel.js';

const names = (r: Router): string[] => r.plan('gpt-4o', 'any').map((a) => a.channel.name);

describe('router overrides', () => {
  const channels: ResolvedChannel[] = [resolvedChannel('a'), resolvedChannel('b'), resolvedChannel('c')];

  it('leaves a disabled channel out, even as a last resort', () => {
    const overrides = new ChannelOverrides();
    const router = new Router(channels, { overrides });
    assert.equal(names(router).length, 3);
    overrides.set(new Map([['b', { disabled: true, weight: null }]]));
    assert.deepEqual(names(router).sort(), ['a', 'c']);
    router.health.markFailure('a', 60_000);
    router.health.markFailure('c', 60_000);
    assert.deepEqual(names(router).sort(), ['a', 'c'], 'cooling channels are still tried last; the disabled one never');
    overrides.set(new Map());
    assert.deepEqual(names(router).sort(), ['a', 'b', 'c']);
  });

  it('orders by the overridden weight, and a router made later starts with the overrides', () => {
    const overrides = new ChannelOverrides();
    overrides.set(new Map([['c', { disabled: false, weight: 98 }]]));
    const router = new Router(channels, { overrides, random: seededRandom(7) });
    let first = 0;
    for (let i = 0; i < 1000; i++) if (names(router)[0] === 'c') first++;
    assert.ok(first > 930, `c first ${first} of 1000 at weight 98 of 100`);
  });

  it('a read that started before another is not applied over its result; the same overrides again set nothing', () => {
    const overrides = new ChannelOverrides();
    const stale = overrides.ticket();
    const fresh = overrides.ticket();
    const disabledB = new Map([['b', { disabled: true, weight: null }]]);
    assert.equal(overrides.offer(fresh, 'b off', () => disabledB), true);
    assert.equal(overrides.offer(stale, 'none', () => new Map()), false, 'the older read (from before the change) is dropped');
    assert.equal(overrides.snapshot, disabledB);
    const later = overrides.ticket();
    assert.equal(overrides.offer(later, 'b off', () => new Map(disabledB)), false, 'unchanged: the routers keep their entries');
    assert.equal(overrides.snapshot, disabledB, 'the same object: a router compares by reference');
    assert.equal(overrides.offer(overrides.ticket(), 'none', () => new Map()), true);
    assert.equal(overrides.snapshot.size, 0);
  });

  it('tells a model whose every channel the operator disabled from one that does not exist', () => {
    const overrides = new ChannelOverrides();
    const router = new Router([resolvedChannel('a', { patterns: ['gpt-*'] }), resolvedChannel('b', { patterns: ['gpt-*'] }), resolvedChannel('c', { patterns: ['claude-*'] })], { overrides });
    assert.equal(router.disabledByOperator('gpt-4o', 'any'), false, 'nothing disabled');
    overrides.set(new Map([['a', { disabled: true, weight: null }]]));
    assert.equal(router.disabledByOperator('gpt-4o', 'any'), false, 'b still serves it');
    overrides.set(new Map(['a', 'b'].map((name) => [name, { disabled: true, weight: null }])));
    assert.deepEqual(names(router), []);
    assert.equal(router.disabledByOperator('gpt-4o', 'any'), true);
    assert.equal(router.disabledByOperator('no-such-model', 'any'), false);
    assert.deepEqual(router.plan('claude-3', 'any').map((a) => a.channel.name), ['c']);
  });
});
