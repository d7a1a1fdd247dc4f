// The mock's completions: prompt tokens at four characters (token ids one each), candidates that differ from their
// first token, cut at max_tokens, and log probabilities that are the same for the same token.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { END_OF_TEXT } from './prompt-items.js';
import { logprobsOf, mockCompletion, promptTokensOf, textTokens } from './mock-text.js';

describe('the mock\'s completions', () => {
  it('counts a prompt at four characters a token, token ids one each, the document separator as one', () => {
    assert.deepEqual(promptTokensOf('Say this is a test').map((t) => [t.text, t.offset]), [['Say ', 0], ['this', 4], [' is ', 8], ['a te', 12], ['st', 16]]);
    assert.deepEqual(promptTokensOf([1212, 7]).map((t) => [t.text, t.offset]), [['<|1212|>', 0], ['<|7|>', 8]]);
    assert.equal(promptTokensOf(END_OF_TEXT).length, 1);
    assert.equal(promptTokensOf('').length, 0);
    assert.deepEqual([textTokens(''), textTokens('abcd'), textTokens('abcde')], [0, 1, 2]);
  });

  it('each candidate differs from the first token, is the same every time, and is cut at max_tokens', () => {
    const prompt = promptTokensOf('Once upon a time');
    const first = mockCompletion(prompt, 0, 100, null);
    const text = first.tokens.map((t) => t.text).join('');
    assert.equal(text, ' Completion 1 from the mock channel, which read "Once upon a time".');
    assert.equal(first.finishReason, 'stop');
    assert.deepEqual(mockCompletion(prompt, 0, 100, null), first);
    assert.notEqual(mockCompletion(prompt, 1, 100, null).tokens[1]?.text, first.tokens[1]?.text);
    assert.equal(first.tokens[0]?.offset, 'Once upon a time'.length, 'offsets count from the prompt\'s start');
    const cut = mockCompletion(prompt, 0, 3, null);
    assert.deepEqual([cut.tokens.map((t) => t.text), cut.finishReason], [[' Completion', ' 1', ' from'], 'length']);
    assert.deepEqual(mockCompletion(prompt, 0, 0, null).tokens, []);
    assert.equal(mockCompletion(prompt, 4, 100, 'Fixed  reply. ').tokens.map((t) => t.text).join(''), 'Fixed  reply. ', 'mock.reply, as written');
  });

  it('logprobs: the chosen token first among `top`, an echoed prompt\'s first token without one, null tops for 0', () => {
    const tokens = [...promptTokensOf('abcdefgh'), ...mockCompletion(promptTokensOf('abcdefgh'), 0, 2, null).tokens];
    const echoed = logprobsOf(tokens, 3, true);
    assert.deepEqual(echoed.tokens, ['abcd', 'efgh', ' Completion', ' 1']);
    assert.deepEqual(echoed.text_offset, [0, 4, 8, 19]);
    assert.equal(echoed.token_logprobs[0], null);
    assert.equal(echoed.top_logprobs?.[0], null);
    const top = echoed.top_logprobs?.[2] ?? {};
    assert.deepEqual(Object.keys(top), [' Completion', ' the', ' a']);
    assert.equal(top[' Completion'], echoed.token_logprobs[2]);
    for (const value of echoed.token_logprobs.slice(1)) assert.ok(value !== null && value <= 0 && value > -4, String(value));
    assert.deepEqual(logprobsOf(tokens.slice(2), 3, false).token_logprobs, echoed.token_logprobs.slice(2), 'the same token, the same logprob');
    assert.equal(logprobsOf(tokens, 0, false).top_logprobs, null);
  });
});
