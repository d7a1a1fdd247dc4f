// Request ids: the documented shape (req_ + 32 hex), ordered by time so usage rows append to their index,
// and unique among many made in the same millisecond (across refills of the entropy pool).

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RequestIds } from '../../../core/pipeline/request-id.js';

const ids = new RequestIds();
const newRequestId = (now?: number): string => ids.next(now);

test('an id is req_ + 32 lower-case hex digits, the first 12 the time in milliseconds', () => {
  const now = Date.UTC(2026, 10, 22, 1, 2, 3, 456);
  const id = newRequestId(now);
  assert.match(id, /^req_[0-9a-f]{32}$/);
  assert.equal(parseInt(id.slice(4, 16), 16), now);
});

test('ids of later milliseconds sort after earlier ones, as strings', () => {
  const ids = [0, 1, 15, 16, 255, 256, 1_795_000_000_000, 1_795_000_000_001, 2 ** 47].map((t) => newRequestId(t));
  assert.deepEqual([...ids].sort(), ids);
});

test('5,000 ids in one millisecond are all different (the entropy pool refills several times)', () => {
  const ids = new Set<string>();
  for (let i = 0; i < 5000; i++) ids.add(newRequestId(1_795_000_000_000));
  assert.equal(ids.size, 5000);
});
