// Usage counts are bounded before anything prices or records them: an upstream reporting 2^40 tokens must not make a
// record the store refuses (PostgreSQL's INTEGER columns are 32-bit), which would hold back every record behind it.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { boundedUsage, MAX_USAGE_COUNT, type Usage } from '../../../core/ir/usage.js';

describe('boundedUsage', () => {
  it('keeps a usage within the bound as it is (the same object)', () => {
    const usage: Usage = { promptTokens: 31, completionTokens: 7, cachedTokens: 12, cacheWriteTokens: 0, reasoningTokens: 0, images: 1 };
    assert.equal(boundedUsage(usage), usage);
    assert.equal(boundedUsage(null), null);
  });

  it('brings every count over the bound down to it, and keeps the rest', () => {
    const huge = 2 ** 40;
    const usage: Usage = { promptTokens: huge, completionTokens: 7, cachedTokens: huge, cacheWriteTokens: 3, reasoningTokens: 0, images: 2, inputImageTokens: huge, outputImageTokens: 5 };
    assert.deepEqual(boundedUsage(usage), {
      promptTokens: MAX_USAGE_COUNT,
      completionTokens: 7,
      cachedTokens: MAX_USAGE_COUNT,
      cacheWriteTokens: 3,
      reasoningTokens: 0,
      images: 2,
      inputImageTokens: MAX_USAGE_COUNT,
      outputImageTokens: 5,
    });
    assert.ok(MAX_USAGE_COUNT < 2 ** 31, 'fits a 32-bit INTEGER column, with room for sums of a few');
  });

  it("bounds a video's seconds, and keeps them when within the bound", () => {
    const usage: Usage = { promptTokens: 0, completionTokens: 108_900, cachedTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0, seconds: 8 };
    assert.equal(boundedUsage(usage), usage);
    assert.equal(boundedUsage(Object.assign({}, usage, { seconds: 2 ** 40 }))?.seconds, MAX_USAGE_COUNT);
  });
});
