// count(): what an upstream reports as a count is used only when it is one (a non-negative safe integer).

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { count } from '../../../core/formats/json-fields.js';

test('count takes non-negative safe integers and falls back for anything else', () => {
  assert.equal(count(0), 0);
  assert.equal(count(1234), 1234);
  assert.equal(count(Number.MAX_SAFE_INTEGER), Number.MAX_SAFE_INTEGER);
  for (const bad of [-1, 1.5, Number.NaN, Infinity, 1e308, 2 ** 53, '12', null, undefined, {}]) {
    assert.equal(count(bad), 0, String(bad));
    assert.equal(count(bad, 7), 7, String(bad));
  }
});
