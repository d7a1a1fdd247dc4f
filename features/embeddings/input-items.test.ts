// The shapes of `input` OpenAI takes, one embedding per text or token array, and the refusals of the rest, each naming
// the item at fault as OpenAI's `param` does.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { GatewayError } from '../../core/errors.js';
import { readInputs } from './input-items.js';

function refusal(input: unknown): [string, string | null, string] {
  try {
    readInputs(input);
  } catch (err) {
    assert.ok(err instanceof GatewayError);
    return [err.code, err.param, err.message];
  }
  assert.fail(`${JSON.stringify(input)} was taken`);
}

describe('readInputs', () => {
  it('takes a text, texts, one text\'s token ids and several texts\'', () => {
    assert.deepEqual(readInputs('hello'), ['hello']);
    assert.deepEqual(readInputs(['a', 'b']), ['a', 'b']);
    assert.deepEqual(readInputs([1, 2, 3]), [[1, 2, 3]]);
    assert.deepEqual(readInputs([[1], [2, 0]]), [[1], [2, 0]]);
  });

  it('refuses the rest, naming the item', () => {
    assert.deepEqual(refusal(undefined).slice(0, 2), ['GW_ERR_REQUEST_MISSING_FIELD', 'input']);
    for (const [input, param] of [
      [null, 'input'],
      [{}, 'input'],
      ['', 'input'],
      [[], 'input'],
      [[''], 'input[0]'],
      [[{ text: 'a' }], 'input[0]'],
      [[true], 'input[0]'],
      [['a', 1], 'input[1]'],
      [[[1], 'a'], 'input[1]'],
      [[1, 'a'], 'input[1]'],
      [[1, -2], 'input[1]'],
      [[[1, 2.5]], 'input[0][1]'],
      [[[]], 'input[0]'],
    ] as const) {
      const [code, at, message] = refusal(input);
      assert.deepEqual([code, at], ['GW_ERR_REQUEST_INVALID_FIELD', param], `${JSON.stringify(input)}: ${message}`);
    }
    assert.match(refusal(['a', 1])[2], /expected a string, as input\[0\] is, but got 1/);
  });
});
