// The mock's vectors: the same for the same input, another for another (a text and token ids of the same characters
// included), of length 1, shortened as a prefix scaled back to length 1, and base64 as little-endian float32 bytes.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { encodeEmbedding, mockEmbedding } from './mock-vectors.js';

function norm(vector: Float32Array): number {
  return Math.sqrt(vector.reduce((sum, v) => sum + v * v, 0));
}

describe('mockEmbedding', () => {
  it('is deterministic per input, differs between inputs, and has length 1', () => {
    assert.deepEqual(mockEmbedding('a fox', 64), mockEmbedding('a fox', 64));
    assert.notDeepEqual(mockEmbedding('a fox', 64), mockEmbedding('a cat', 64));
    assert.notDeepEqual(mockEmbedding('1,2', 64), mockEmbedding([1, 2], 64), 'a text is not the token ids it spells');
    assert.deepEqual(mockEmbedding([1, 2], 64), mockEmbedding([1, 2], 64));
    for (const dimensions of [1, 3, 256, 1536, 3072]) assert.ok(Math.abs(norm(mockEmbedding('x', dimensions)) - 1) < 1e-5, String(dimensions));
  });

  it('a shorter vector is the longer one\'s prefix, scaled back to length 1', () => {
    const full = mockEmbedding('shorten me', 1536);
    const short = mockEmbedding('shorten me', 100);
    const prefix = full.subarray(0, 100);
    const scale = norm(prefix);
    short.forEach((v, i) => assert.ok(Math.abs(v - (prefix[i] as number) / scale) < 1e-6, `component ${i}`));
  });
});

describe('encodeEmbedding', () => {
  it('floats are the float32 values; base64 is their little-endian bytes', () => {
    const vector = Float32Array.from([0.5, -0.25, 1 / 3]);
    const floats = encodeEmbedding(vector, 'float');
    assert.deepEqual(floats, [0.5, -0.25, Math.fround(1 / 3)]);
    const bytes = Buffer.from(encodeEmbedding(vector, 'base64') as string, 'base64');
    assert.equal(bytes.toString('hex'), '0000003f000080beabaaaa3e');
  });
});
