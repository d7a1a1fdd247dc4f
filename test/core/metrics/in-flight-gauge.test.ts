// InFlightGauge: a scrape shows how many are open under each label value at that moment; a value seen once
// stays at 0 when nothing is open under it (as prom-client's own gauge does).

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Registry } from 'prom-client';
import { InFlightGauge } from '../../../core/metrics/in-flight-gauge.js';
import { series } from '../../helpers/metric-series.js';

test('a scrape shows the open count of each label value, and 0 once all under one have closed', async () => {
  const registry = new Registry();
  const gauge = new InFlightGauge('t_open', 'test', 'route', registry);
  assert.deepEqual(series(await registry.metrics(), 't_open'), {}, 'no series before anything opened');
  const a1 = gauge.enter('chat');
  const a2 = gauge.enter('chat');
  const b1 = gauge.enter('messages');
  assert.deepEqual(series(await registry.metrics(), 't_open'), { '{route="chat"}': 2, '{route="messages"}': 1 });
  gauge.close(a1);
  gauge.close(b1);
  assert.deepEqual(series(await registry.metrics(), 't_open'), { '{route="chat"}': 1, '{route="messages"}': 0 });
  gauge.close(a2);
  const a3 = gauge.enter('chat');
  assert.deepEqual(series(await registry.metrics(), 't_open'), { '{route="chat"}': 1, '{route="messages"}': 0 });
  gauge.close(a3);
  assert.deepEqual(series(await registry.metrics(), 't_open'), { '{route="chat"}': 0, '{route="messages"}': 0 });
});
