// A stream's usage event with the cost beside its usage: spliced in (every other byte kept), the decimal's digits
// written as a JSON number, an upstream's own cost replaced, and nothing for a frame without a usage object.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatMoney, parseMoney } from '../../../core/money/decimal.js';
import { createAnthropicMessagesFormat } from '../../../core/formats/anthropic-messages/index.js';
import { createOpenAIChatFormat } from '../../../core/formats/openai-chat/index.js';
import { createOpenAIResponsesFormat } from '../../../core/formats/openai-responses/index.js';
import { withUsageCost } from '../../../core/formats/usage-cost.js';
import { encodeFrame } from '../../../core/sse/frame-writer.js';
import type { SseFrame } from '../../../core/sse/frame.js';

const text = (frame: SseFrame | null): string | null => (frame === null ? null : Buffer.from(frame.raw).toString('utf8'));

describe('withUsageCost', () => {
  it('puts the cost last in the usage object, every other byte as it was', () => {
    const data = '{"id":"c1","choices":[],"usage": {"prompt_tokens":31 , "completion_tokens":7}, "note":"é ✓ \\u00e9"}';
    const edited = withUsageCost(encodeFrame(data), ['usage'], '0.000141775');
    assert.equal(text(edited), 'data: {"id":"c1","choices":[],"usage": {"prompt_tokens":31 , "completion_tokens":7,"cost":0.000141775}, "note":"é ✓ \\u00e9"}\n\n');
    assert.equal(edited?.data, '{"id":"c1","choices":[],"usage": {"prompt_tokens":31 , "completion_tokens":7,"cost":0.000141775}, "note":"é ✓ \\u00e9"}');
  });

  it('follows a path into nested objects, and keeps the event line', () => {
    const data = JSON.stringify({ type: 'response.completed', response: { id: 'r', usage: { input_tokens: 900, output_tokens: 120 }, output: [{ usage: 'not this one' }] } });
    const edited = withUsageCost(encodeFrame(data, 'response.completed'), ['response', 'usage'], '12.5');
    assert.equal(edited?.event, 'response.completed');
    assert.match(text(edited) ?? '', /^event: response\.completed\ndata: /);
    assert.deepEqual((JSON.parse(edited?.data ?? '') as { response: { usage: unknown } }).response.usage, { input_tokens: 900, output_tokens: 120, cost: 12.5 });
  });

  it('fills an empty usage object, and replaces a cost already there (an upstream\'s own, in its money)', () => {
    assert.equal(withUsageCost(encodeFrame('{"usage":{}}'), ['usage'], '0')?.data, '{"usage":{"cost":0}}');
    assert.equal(withUsageCost(encodeFrame('{"usage":{"cost":0.5,"total_tokens":3}}'), ['usage'], '0.25')?.data, '{"usage":{"cost":0.25,"total_tokens":3}}');
  });

  it('answers null for a frame without a usage object: null usage, none at all, [DONE], not JSON, no data', () => {
    for (const data of ['{"usage":null}', '{"choices":[]}', '[DONE]', '{"usage":{"a":', '"usage"']) assert.equal(withUsageCost(encodeFrame(data), ['usage'], '1'), null, data);
    assert.equal(withUsageCost({ raw: Buffer.from(': keepalive\n\n'), event: null, data: null }, ['usage'], '1'), null);
    assert.equal(withUsageCost(encodeFrame('{"response":{"usage":null}}'), ['response', 'usage'], '1'), null);
  });

  it('writes the decimal digit for digit, which a JSON parser reads back exactly below a million units (15 digits)', () => {
    for (const nanos of [0n, 1n, 100n, 30_709n, 123_456_789n, 1_000_000_000n, 999_999_999_999_999n]) {
      const cost = formatMoney(nanos);
      const data = withUsageCost(encodeFrame('{"usage":{}}'), ['usage'], cost)?.data ?? '';
      assert.equal(data, `{"usage":{"cost":${cost}}}`);
      assert.equal(parseMoney((JSON.parse(data) as { usage: { cost: number } }).usage.cost), nanos, cost);
    }
    // Past 15 significant digits a double cannot hold it; the text still says it exactly.
    assert.equal(withUsageCost(encodeFrame('{"usage":{}}'), ['usage'], '987654321.123456789')?.data, '{"usage":{"cost":987654321.123456789}}');
  });
});

describe('encodeFrameCost of each chat API', () => {
  it('Chat: the usage chunk', () => {
    const format = createOpenAIChatFormat();
    const chunk = encodeFrame('{"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":4}}');
    assert.equal(format.encodeFrameCost?.(chunk, '0.01')?.data, '{"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":4,"cost":0.01}}');
    assert.equal(format.encodeFrameCost?.(encodeFrame('[DONE]'), '0.01'), null);
  });

  it('Messages: message_delta only (message_start\'s usage is not the last word)', () => {
    const format = createAnthropicMessagesFormat();
    const delta = encodeFrame('{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":9}}', 'message_delta');
    assert.equal(
      text(format.encodeFrameCost?.(delta, '0.0009309') ?? null),
      'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":9,"cost":0.0009309}}\n\n',
    );
    const start = encodeFrame('{"type":"message_start","message":{"usage":{"input_tokens":21}}}', 'message_start');
    assert.equal(format.encodeFrameCost?.(start, '1'), null);
  });

  it('Responses: the terminal event, with or without an event line', () => {
    const format = createOpenAIResponsesFormat();
    const data = '{"type":"response.completed","response":{"usage":{"input_tokens":1}}}';
    for (const frame of [encodeFrame(data, 'response.completed'), encodeFrame(data)]) {
      assert.equal(format.encodeFrameCost?.(frame, '2')?.data, '{"type":"response.completed","response":{"usage":{"input_tokens":1,"cost":2}}}');
    }
    assert.equal(format.encodeFrameCost?.(encodeFrame('{"type":"response.created","response":{"usage":{}}}', 'response.created'), '2'), null);
  });
});
