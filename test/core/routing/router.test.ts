// Routing: priority tiers, weighted order, aliases, globs, cool-downs and key round-robin.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ResolvedChannel } from '../../../core/config/resolved.js';
import { compileGlob, compileGlobs, isGlob } from '../../../core/routing/glob.js';
import { ChannelHealth } from '../../../core/routing/health.js';
import { KeyRotation } from '../../../core/routing/key-rotation.js';
import { Router, type Attempt } from '../../../core/routing/router.js';
import { seededRandom } from '../../helpers/seeded-random.js';

interface ChannelSpec {
  readonly patterns?: readonly string[];
  readonly aliases?: Readonly<Record<string, string>>;
  readonly priority?: number;
  readonly weight?: number;
  readonly cooldownMs?: number;
  readonly keys?: readonly string[];
}

function channel(name: string, spec: ChannelSpec = {}): ResolvedChannel {
  return {
    name,
    type: 'openai',
    formats: ['openai-chat'],
    dialect: 'openai-chat',
    dropParams: [],
    baseUrl: `https://${name}.example.test/v1`,
    keys: spec.keys ?? [`sk-${name}`],
    models: { patterns: spec.patterns ?? ['*'], aliases: new Map(Object.entries(spec.aliases ?? {})) },
    priority: spec.priority ?? 0,
    weight: spec.weight ?? 1,
    timeoutMs: 60_000,
    idleTimeoutMs: 30_000,
    cooldownMs: spec.cooldownMs ?? 30_000,
    health: { errors: 5, window: 10, probeAfterMs: 30_000, probeMaxMs: 600_000 },
    modelsRefreshMs: 0,
    headers: {},
    mock: { chunkDelayMs: 0, reply: null },
  };
}

/** Returns the given values in order, then 0; lets a test pin every weighted pick. */
function sequence(...values: number[]): () => number {
  let i = 0;
  return () => values[i++] ?? 0;
}


const names = (plan: readonly Attempt[]): string[] => plan.map((a) => a.channel.name);

describe('Router.plan: priority and weight', () => {
  it('tries higher priority tiers first, whatever the declaration order', () => {
    const router = new Router(
      [channel('low', { priority: -1 }), channel('mid'), channel('high', { priority: 10 })],
      { random: sequence() },
    );
    assert.deepEqual(names(router.plan('gpt-4o')), ['high', 'mid', 'low']);
  });

  it('orders a tier by weighted picks without replacement, following the random sequence exactly', () => {
    const tier = [channel('a', { weight: 3 }), channel('b', { weight: 1 }), channel('c', { weight: 1 })];
    // Total 5: 0.1*5=0.5 falls in a's [0,3); then b,c total 2: 0.6*2=1.2 falls in c's [1,2).
    assert.deepEqual(names(new Router(tier, { random: sequence(0.1, 0.6) }).plan('m')), ['a', 'c', 'b']);
    // 0.7*5=3.5 falls in b's [3,4); then a,c total 4: 0.8*4=3.2 falls in c's [3,4).
    assert.deepEqual(names(new Router(tier, { random: sequence(0.7, 0.8) }).plan('m')), ['b', 'c', 'a']);
    // 0.9*5=4.5 falls in c's [4,5); then a,b total 4: 0.75*4=3 is the first value of b's [3,4).
    assert.deepEqual(names(new Router(tier, { random: sequence(0.9, 0.75) }).plan('m')), ['c', 'b', 'a']);
    assert.deepEqual(names(new Router(tier, { random: sequence(0.59, 0) }).plan('m')), ['a', 'b', 'c']);
  });

  it('shuffles inside each tier only', () => {
    const channels = [
      channel('b1', { priority: 1 }),
      channel('a1', { priority: 2 }),
      channel('b2', { priority: 1 }),
      channel('a2', { priority: 2 }),
    ];
    // Tier 2 picks: 0.9 -> a2, then a1; tier 1 picks: 0.9 -> b2, then b1.
    assert.deepEqual(names(new Router(channels, { random: sequence(0.9, 0, 0.9, 0) }).plan('m')), ['a2', 'a1', 'b2', 'b1']);
    assert.deepEqual(names(new Router(channels, { random: sequence(0, 0, 0, 0) }).plan('m')), ['a1', 'a2', 'b1', 'b2']);
  });

  it('never picks a zero-weight channel before a weighted one', () => {
    const router = new Router([channel('zero', { weight: 0 }), channel('one', { weight: 1 })], { random: seededRandom(7) });
    for (let i = 0; i < 200; i++) assert.deepEqual(names(router.plan('m')), ['one', 'zero']);
  });

  it('gives weight 3 against weight 1 about 75% of first picks', () => {
    const router = new Router([channel('heavy', { weight: 3 }), channel('light', { weight: 1 })], {
      random: seededRandom(20240601),
    });
    const runs = 20_000;
    let heavyFirst = 0;
    for (let i = 0; i < runs; i++) {
      const plan = router.plan('gpt-4o');
      assert.equal(plan.length, 2);
      if (plan[0]?.channel.name === 'heavy') heavyFirst++;
    }
    const share = heavyFirst / runs;
    assert.ok(Math.abs(share - 0.75) < 0.02, `heavy first in ${(share * 100).toFixed(1)}% of plans, expected ~75%`);
  });
});

describe('Router.plan: models', () => {
  it('maps an alias to its upstream name and serves other matches under the client name', () => {
    const router = new Router(
      [
        channel('azure', { patterns: [], aliases: { 'gpt-4o': 'prod-4o-deployment' }, priority: 1 }),
        channel('openai', { patterns: ['gpt-*'] }),
      ],
      { random: sequence() },
    );
    assert.deepEqual(
      router.plan('gpt-4o').map((a) => [a.channel.name, a.upstreamModel]),
      [
        ['azure', 'prod-4o-deployment'],
        ['openai', 'gpt-4o'],
      ],
    );
    assert.deepEqual(names(router.plan('gpt-4o-mini')), ['openai']);
    assert.deepEqual(names(router.plan('prod-4o-deployment')), [], 'an upstream name is not a client name');
  });

  it('lets an alias win over a glob on the same channel', () => {
    const router = new Router([channel('c', { patterns: ['*'], aliases: { fast: 'gpt-4o-mini' } })]);
    assert.deepEqual(router.plan('fast').map((a) => a.upstreamModel), ['gpt-4o-mini']);
  });

  it('returns an empty plan for a model nobody serves', () => {
    const router = new Router([channel('a', { patterns: ['gpt-*'] }), channel('b', { patterns: ['claude-*'] })]);
    assert.deepEqual(router.plan('llama-3'), []);
    assert.deepEqual(new Router([]).plan('gpt-4o'), []);
  });

  it('selects channels by glob, including names with "/" and "."', () => {
    const router = new Router(
      [
        channel('openai', { patterns: ['gpt-*', 'o*'] }),
        channel('together', { patterns: ['meta-llama/*'] }),
        channel('anthropic', { patterns: ['claude-3.5-sonnet', 'claude-?-opus'] }),
        channel('fallback', { patterns: ['*'], priority: -1 }),
      ],
      { random: sequence() },
    );
    assert.deepEqual(names(router.plan('gpt-4.1-mini')), ['openai', 'fallback']);
    assert.deepEqual(names(router.plan('o3-mini')), ['openai', 'fallback']);
    assert.deepEqual(names(router.plan('meta-llama/Llama-3.1-70B-Instruct')), ['together', 'fallback']);
    assert.deepEqual(names(router.plan('claude-3.5-sonnet')), ['anthropic', 'fallback']);
    assert.deepEqual(names(router.plan('claude-3x5-sonnet')), ['fallback']);
    assert.deepEqual(names(router.plan('claude-3-opus')), ['anthropic', 'fallback']);
    assert.deepEqual(names(router.plan('chatgpt-4o-latest')), ['fallback']);
  });
});

describe('glob', () => {
  const cases: [pattern: string, matches: string[], misses: string[]][] = [
    ['gpt-*', ['gpt-4o', 'gpt-', 'gpt-4.1-mini', 'gpt-x/y'], ['chatgpt-4o', 'gpt4', 'GPT-4o', 'gpt']],
    ['o*', ['o1', 'o3-mini', 'o', 'omni'], ['gpt-4o', 'O1']],
    ['*', ['', 'anything', 'meta-llama/Llama-3.1-8B', 'a\nb'], []],
    ['o?', ['o1', 'o3'], ['o', 'o10', 'xo1']],
    ['?', ['a', '/'], ['', 'ab']],
    ['meta-llama/*-Instruct', ['meta-llama/Llama-3.1-8B-Instruct', 'meta-llama/-Instruct'], ['meta-llama/Llama-3.1-8B']],
    ['gpt-4.?', ['gpt-4.1', 'gpt-4.5'], ['gpt-4x1', 'gpt-4.10']],
    ['claude-3.5-sonnet', ['claude-3.5-sonnet'], ['claude-3x5-sonnet', 'claude-3.5-sonnet-latest']],
    ['a+b(c)[d]{2}^$|\\', ['a+b(c)[d]{2}^$|\\'], ['aab(c)[d]{2}^$|\\', 'a+bc']],
    ['*/*', ['org/model', '/'], ['model']],
  ];
  for (const [pattern, matches, misses] of cases) {
    it(`"${pattern}" matches exactly what it should`, () => {
      const m = compileGlob(pattern);
      for (const model of matches) assert.equal(m(model), true, `"${pattern}" should match "${model}"`);
      for (const model of misses) assert.equal(m(model), false, `"${pattern}" should not match "${model}"`);
    });
  }

  it('tells globs from concrete names, and combines several patterns', () => {
    assert.equal(isGlob('gpt-*'), true);
    assert.equal(isGlob('o?'), true);
    assert.equal(isGlob('meta-llama/Llama-3.1-8B'), false);
    const any = compileGlobs(['gpt-*', 'claude-3.5-sonnet']);
    assert.equal(any('gpt-4o'), true);
    assert.equal(any('claude-3.5-sonnet'), true);
    assert.equal(any('o1'), false);
    assert.equal(compileGlobs([])('gpt-4o'), false);
  });
});

describe('cool-down', () => {
  it('puts a cooled channel last but still returns it, and restores it once the cool-down expires', () => {
    let now = 1_000;
    const router = new Router([channel('primary', { priority: 1 }), channel('backup')], {
      random: sequence(),
      now: () => now,
    });
    router.health.markFailure('primary', 30_000);
    assert.deepEqual(names(router.plan('gpt-4o')), ['backup', 'primary']);
    now += 29_999;
    assert.deepEqual(names(router.plan('gpt-4o')), ['backup', 'primary']);
    now += 1;
    assert.deepEqual(names(router.plan('gpt-4o')), ['primary', 'backup']);
  });

  it('returns a lone cooled channel, and all channels when every one is cooling', () => {
    const now = 0;
    const single = new Router([channel('only')], { now: () => now });
    single.health.markFailure('only', 5_000);
    assert.deepEqual(names(single.plan('m')), ['only']);

    const both = new Router([channel('a', { priority: 2 }), channel('b', { priority: 1 })], { now: () => now });
    both.health.markFailure('a', 5_000);
    both.health.markFailure('b', 5_000);
    assert.deepEqual(names(both.plan('m')), ['a', 'b'], 'cooled channels keep their tier order');
  });

  it('never drops a channel whose cool-down expires while a plan is being built', () => {
    // The clock moves on every read, so the cool-down ends between two health checks of the same plan.
    let ticks = 0;
    const router = new Router([channel('a', { priority: 2 }), channel('b', { priority: 1 })], { now: () => ticks++ });
    router.health.markFailure('a', 2);
    const plan = names(router.plan('m'));
    assert.deepEqual([...plan].sort(), ['a', 'b']);
  });

  it('markSuccess ends a cool-down early; a zero cool-down never starts one', () => {
    let now = 0;
    const health = new ChannelHealth(() => now);
    health.markFailure('a', 0);
    assert.equal(health.isCooling('a'), false);
    health.markFailure('a', 1_000);
    assert.equal(health.isCooling('a'), true);
    assert.equal(health.isCooling('b'), false);
    health.markSuccess('a');
    assert.equal(health.isCooling('a'), false);
    health.markFailure('a', 1_000);
    now = 1_000;
    assert.equal(health.isCooling('a'), false, 'the cool-down ends at exactly its deadline');
  });

  it('a success of a request sent before the failure does not end the cool-down; one sent after does', () => {
    let now = 100;
    const health = new ChannelHealth(() => now);
    const sentBefore = now;
    now = 200;
    health.markFailure('a', 10_000);
    health.markSuccess('a', sentBefore);
    assert.equal(health.isCooling('a'), true, 'the earlier request\'s answer says nothing about the channel since');
    health.markSuccess('a', 250);
    assert.equal(health.isCooling('a'), false);
  });

  it('tells the fleet a cool-down when it starts and when it grows by a second, not on every failure; an end once', () => {
    let now = 0;
    const told: string[] = [];
    const health = new ChannelHealth(() => now);
    health.sink = { cooled: (c, ms) => told.push(`${c} ${ms}`), cleared: (c) => told.push(`${c} healthy`) };
    health.markFailure('a', 5_000);
    now = 500;
    health.markFailure('a', 5_000);
    now = 1_000;
    health.markFailure('a', 5_000);
    health.markSuccess('a');
    health.markSuccess('a');
    // The fleet's news is applied, not told back; a failure right after it adds nothing worth telling.
    health.apply('b', 5_000);
    health.markFailure('b', 5_000);
    assert.deepEqual(told, ['a 5000', 'a 5000', 'a healthy']);
    assert.equal(health.isCooling('b'), true);
  });

  it('the fleet\'s recovery ends a cool-down it knew of, not a failure seen here since (that one is told instead)', () => {
    let now = 0;
    const told: string[] = [];
    const health = new ChannelHealth(() => now);
    health.sink = { cooled: (c, ms) => told.push(`${c} ${ms}`), cleared: (c) => told.push(`${c} healthy`) };
    health.markFailure('a', 5_000); // told
    health.apply('a', 5_000); // its own message back
    now = 500;
    health.markFailure('a', 5_000); // pushed on by 0.5 s: not told
    health.apply('a', 0); // another instance saw it serve
    assert.equal(health.isCooling('a'), true, 'the failure at 500 stands');
    assert.deepEqual(told, ['a 5000', 'a 5000'], 'and is told, for the fleet to agree');
    health.apply('a', 5_000); // that news back
    health.apply('a', 0); // a later recovery, which the fleet heard after it
    assert.equal(health.isCooling('a'), false);
    // News only lengthens a cool-down: a short remainder read from Redis does not cut a longer one made here.
    health.markFailure('b', 60_000);
    health.apply('b', 1_000);
    now += 30_000;
    assert.equal(health.isCooling('b'), true);
  });
});

describe('key rotation', () => {
  it('round-robins each channel independently', () => {
    const router = new Router([channel('a', { keys: ['k1', 'k2', 'k3'] }), channel('b', { keys: ['x1', 'x2'] })]);
    const a = router.plan('m').find((p) => p.channel.name === 'a')?.channel;
    assert.ok(a !== undefined);
    const picks = [1, 2, 3, 4, 5].map(() => router.keys.pick('a', a.keys));
    assert.deepEqual(picks, ['k1', 'k2', 'k3', 'k1', 'k2']);
    assert.deepEqual([router.keys.pick('b', ['x1', 'x2']), router.keys.pick('b', ['x1', 'x2'])], ['x1', 'x2']);
    assert.equal(router.keys.pick('a', a.keys), 'k3');
  });

  it('handles a single key, no key, and a key list that shrinks', () => {
    const rotation = new KeyRotation();
    assert.deepEqual([rotation.pick('one', ['k']), rotation.pick('one', ['k'])], ['k', 'k']);
    assert.equal(rotation.pick('none', []), '');
    rotation.pick('c', ['a', 'b', 'c']);
    rotation.pick('c', ['a', 'b', 'c']);
    assert.equal(rotation.pick('c', ['a', 'b']), 'a', 'an index past the end wraps');
  });
});
