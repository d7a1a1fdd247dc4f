// The prompt shapes OpenAI's Completions API takes, each read as the prompts it holds, and the 400s naming the first
// bad item of one it refuses.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { GatewayError } from '../../core/errors.js';
import { END_OF_TEXT, readPrompts } from './prompt-items.js';

function refusal(prompt: unknown): { param: string | null; message: string } {
  try {
    readPrompts(prompt);
  } catch (err) {
    assert.ok(err instanceof GatewayError && err.status === 400, String(err));
    return { param: err.param, message: err.message };
  }
  assert.fail(`${JSON.stringify(prompt)} was read`);
}

describe('readPrompts', () => {
  it('a text, texts, one prompt\'s token ids, several prompts\' token ids; none is one empty document', () => {
    assert.deepEqual(readPrompts('Say this is a test'), ['Say this is a test']);
    assert.deepEqual(readPrompts(''), ['']);
    assert.deepEqual(readPrompts(['a', '', 'c']), ['a', '', 'c']);
    assert.deepEqual(readPrompts([1212, 318, 257]), [[1212, 318, 257]]);
    assert.deepEqual(readPrompts([[1212, 318], [0]]), [[1212, 318], [0]]);
    assert.deepEqual(readPrompts(undefined), [END_OF_TEXT]);
    assert.deepEqual(readPrompts(null), [END_OF_TEXT]);
  });

  it('refuses in OpenAI\'s shape, naming the item: other types, empty arrays, mixed kinds, bad token ids', () => {
    const cases: [unknown, string][] = [
      [5, 'prompt'],
      [{ text: 'a' }, 'prompt'],
      [true, 'prompt'],
      [[], 'prompt'],
      [['a', 1], 'prompt[1]'],
      [['a', ['b']], 'prompt[1]'],
      [[[1], 'a'], 'prompt[1]'],
      [[[1], []], 'prompt[1]'],
      [[null], 'prompt[0]'],
      [[{ text: 'a' }], 'prompt[0]'],
      [[1, 'a'], 'prompt[1]'],
      [[1, -1], 'prompt[1]'],
      [[1.5], 'prompt[0]'],
      [[[1, 2], [3, 2 ** 60]], 'prompt[1][1]'],
    ];
    for (const [prompt, param] of cases) assert.equal(refusal(prompt).param, param, JSON.stringify(prompt));
    assert.match(refusal(['a', 1]).message, /expected a string, as prompt\[0\] is, but got 1/);
    assert.match(refusal(5).message, /expected a string or an array, but got a number/);
  });
});
