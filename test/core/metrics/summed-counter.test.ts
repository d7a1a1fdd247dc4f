// SummedCounter: what a scrape shows equals every increment made before it, once (sums are handed over and
// reset, never counted twice), series appear at 0 like prom-client's own, label values stay apart.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Registry } from 'prom-client';
import { SummedCounter } from '../../../core/metrics/summed-counter.js';
import { series } from '../../helpers/metric-series.js';

test('a scrape shows the sums of the increments before it; the next scrape adds only what came after', async () => {
  const registry = new Registry();
  const counter = new SummedCounter('t_total', 'test', ['model', 'kind'], registry);
  counter.inc(['m1', 'prompt'], 10);
  counter.inc(['m1', 'prompt'], 5);
  counter.inc(['m1', 'completion']);
  counter.inc(['m2', 'prompt'], 0);
  assert.deepEqual(series(await registry.metrics(), 't_total'), {
    '{model="m1",kind="prompt"}': 15,
    '{model="m1",kind="completion"}': 1,
    '{model="m2",kind="prompt"}': 0,
  });
  assert.deepEqual(series(await registry.metrics(), 't_total'), {
    '{model="m1",kind="prompt"}': 15,
    '{model="m1",kind="completion"}': 1,
    '{model="m2",kind="prompt"}': 0,
  }, 'a scrape without increments in between changes nothing');
  counter.inc(['m1', 'prompt'], 2);
  counter.inc(['m2', 'prompt'], 3);
  assert.deepEqual(series(await registry.metrics(), 't_total'), {
    '{model="m1",kind="prompt"}': 17,
    '{model="m1",kind="completion"}': 1,
    '{model="m2",kind="prompt"}': 3,
  });
});

test('label values that would run together when joined stay separate series', async () => {
  const registry = new Registry();
  const counter = new SummedCounter('u_total', 'test', ['a', 'b'], registry);
  counter.inc(['x', 'yz']);
  counter.inc(['xy', 'z']);
  assert.deepEqual(series(await registry.metrics(), 'u_total'), { '{a="x",b="yz"}': 1, '{a="xy",b="z"}': 1 });
});

test('a negative or non-finite amount is refused at once, and scraping keeps working', async () => {
  const registry = new Registry();
  const counter = new SummedCounter('w_total', 'test', ['a'], registry);
  counter.inc(['x'], 2);
  for (const bad of [-1, Number.NaN, Infinity]) assert.throws(() => counter.inc(['x'], bad), RangeError);
  assert.deepEqual(series(await registry.metrics(), 'w_total'), { '{a="x"}': 2 });
});

test('the wrong number of label values is refused', () => {
  const counter = new SummedCounter('v_total', 'test', ['a', 'b'], new Registry());
  assert.throws(() => counter.inc(['only-one']), /2 label values expected/);
});
