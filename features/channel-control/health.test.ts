// A window's figures from its exact counts and the sampled rows: nearest-rank percentiles of the rows inside the
// window; "sampled" only when the read was cut short inside the window, not when a record that came between the
// count and the read makes the count one more than the rows.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { percentile, windowHealth } from './health.js';
import { PERCENTILE_SAMPLE, type TimedRow } from './override-store.js';

const NOW = 1_800_000_000_000;
/** `n` rows, newest first, one a millisecond apart back from `newest`. */
const rows = (n: number, newest: number): TimedRow[] => Array.from({ length: n }, (_, i) => ({ latencyMs: i + 1, ttftMs: i % 2 === 0 ? i + 1 : null, ts: newest - i }));

describe('channel health figures', () => {
  it('nearest-rank percentiles', () => {
    assert.equal(percentile([], 0.5), null);
    assert.equal(percentile([7], 0.99), 7);
    assert.equal(percentile([1, 2, 3, 4], 0.5), 2);
    assert.equal(percentile(Array.from({ length: 100 }, (_, i) => i + 1), 0.99), 99);
  });

  it('a full sample cut short inside the window is marked sampled; the counts stay exact', () => {
    const sample = rows(PERCENTILE_SAMPLE, NOW);
    const figures = windowHealth({ requests: 25_000, errors: 250 }, sample, NOW - 3_600_000);
    assert.deepEqual([figures.requests, figures.errors, figures.error_rate, figures.percentile_sample, figures.percentiles_sampled], [25_000, 250, 0.01, PERCENTILE_SAMPLE, true]);
    assert.equal(figures.latency_p50_ms, PERCENTILE_SAMPLE / 2);
  });

  it('not sampled when the read held the whole window, even if one more record was counted meanwhile', () => {
    const figures = windowHealth({ requests: 11, errors: 0 }, rows(10, NOW), NOW - 3_600_000);
    assert.deepEqual([figures.percentile_sample, figures.percentiles_sampled, figures.latency_p99_ms, figures.ttfb_p50_ms], [10, false, 10, 5]);
  });

  it('a full sample reaching past a short window does not mark that window sampled', () => {
    const sample = rows(PERCENTILE_SAMPLE, NOW);
    const figures = windowHealth({ requests: 100, errors: 1 }, sample, NOW - 99);
    assert.deepEqual([figures.percentile_sample, figures.percentiles_sampled], [100, false]);
  });

  it('no requests: rates and percentiles are null', () => {
    const figures = windowHealth({ requests: 0, errors: 0 }, [], NOW - 1000);
    assert.deepEqual([figures.error_rate, figures.latency_p50_ms, figures.ttfb_p99_ms, figures.percentiles_sampled], [null, null, null, false]);
  });
});
