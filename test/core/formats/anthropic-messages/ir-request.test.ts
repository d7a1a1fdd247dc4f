// The Messages decoder (client side) on bodies it cannot take: each is refused with the 400 naming the field, in
// Anthropic's words, never a crash; what only the IR cannot carry stays GW_ERR_TRANSLATION_UNSUPPORTED.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { GatewayError } from '../../../../core/errors.js';
import { anthropicMessagesCodec as codec } from '../../../../core/formats/anthropic-messages/codec.js';
import { createAnthropicMessagesFormat } from '../../../../core/formats/anthropic-messages/index.js';
import { BodyBytes } from '../../../../core/formats/body-bytes.js';
import type { ChatRequest } from '../../../../core/ir/request.js';
import { INVALID, MISSING, UNSUPPORTED, itRefusesEach, refusalOf, type RefusalCase } from '../refusals.js';

const format = createAnthropicMessagesFormat();

function decode(json: Record<string, unknown>): ChatRequest {
  return codec.decodeRequest(format.decodeRequest(BodyBytes.of(Buffer.from(JSON.stringify({ model: 'm', max_tokens: 10, ...json }), 'utf8'))));
}

/** The body through the shallow check and the decoder, as translation reads it; the error it throws. */
const refusal = (json: Record<string, unknown>): GatewayError => refusalOf(() => decode(json), json);

const user = (content: unknown): Record<string, unknown> => ({ messages: [{ role: 'user', content }] });
const assistant = (content: unknown): Record<string, unknown> => ({ messages: [{ role: 'assistant', content }] });
const hi = user('hi');

describe('Messages decodeRequest refuses what the format cannot take, naming the field', () => {
  const cases: RefusalCase[] = [
    ['a null message (shallow check)', { messages: [null] }, INVALID, 'messages.0'],
    ['content of another type', user(5), INVALID, 'messages.0.content'],
    ['a null block', user([null]), INVALID, 'messages.0.content.0'],
    ['a block without type', user([{ text: 'x' }]), MISSING, 'messages.0.content.0.type'],
    ['a block type that is an object', user([{ type: { toString: 1 } }]), INVALID, 'messages.0.content.0.type'],
    ['a text block with a number', user([{ type: 'text', text: 1 }]), INVALID, 'messages.0.content.0.text'],
    ['an image without source', user([{ type: 'image' }]), MISSING, 'messages.0.content.0.source'],
    ['an image source of another type', user([{ type: 'image', source: 'x' }]), INVALID, 'messages.0.content.0.source'],
    ['a tool_result content of another type', user([{ type: 'tool_result', tool_use_id: 't', content: 5 }]), INVALID, 'messages.0.content.0.content'],
    ['a null tool_result block', user([{ type: 'tool_result', tool_use_id: 't', content: [null] }]), INVALID, 'messages.0.content.0.content.0'],
    ['an is_error string', user([{ type: 'tool_result', tool_use_id: 't', is_error: 'yes' }]), INVALID, 'messages.0.content.0.is_error'],
    ['a null assistant block', assistant([null]), INVALID, 'messages.0.content.0'],
    ['a thinking signature of another type', assistant([{ type: 'thinking', thinking: 't', signature: 1 }]), INVALID, 'messages.0.content.0.signature'],
    ['a tool_use input of another type', assistant([{ type: 'tool_use', id: 'i', name: 'n', input: 'x' }]), INVALID, 'messages.0.content.0.input'],
    ['system of another type', { ...hi, system: 5 }, INVALID, 'system'],
    ['a null system block', { ...hi, system: [null] }, INVALID, 'system.0'],
    ['tools of another type', { ...hi, tools: {} }, INVALID, 'tools'],
    ['a tool type that is an object', { ...hi, tools: [{ type: { toString: 1 } }] }, INVALID, 'tools.0.type'],
    ['a tool description of another type', { ...hi, tools: [{ name: 'n', input_schema: {}, description: 1 }] }, INVALID, 'tools.0.description'],
    ['a tool_choice of another type', { ...hi, tool_choice: 'auto' }, INVALID, 'tool_choice'],
    ['a tool_choice type naming a prototype member', { ...hi, tool_choice: { type: 'toString' } }, INVALID, 'tool_choice.type'],
    ['a disable_parallel_tool_use string', { ...hi, tool_choice: { type: 'auto', disable_parallel_tool_use: 'yes' } }, INVALID, 'tool_choice.disable_parallel_tool_use'],
    ['stop_sequences of another type', { ...hi, stop_sequences: 'x' }, INVALID, 'stop_sequences'],
    ['a stop sequence that is a number', { ...hi, stop_sequences: ['a', 1] }, INVALID, 'stop_sequences.1'],
    ['thinking of another type', { ...hi, thinking: 'on' }, INVALID, 'thinking'],
    ['thinking without type', { ...hi, thinking: {} }, MISSING, 'thinking.type'],
    ['output_config of another type', { ...hi, output_config: [] }, INVALID, 'output_config'],
    ['an output_config.effort number', { ...hi, output_config: { effort: 1 } }, INVALID, 'output_config.effort'],
    ['a temperature string', { ...hi, temperature: 'hot' }, INVALID, 'temperature'],
    ['a document block', user([{ type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'x' } }]), UNSUPPORTED, 'messages.0.content.0.type'],
  ];
  itRefusesEach(cases, refusal, (message, param) => message.startsWith(`${param}: `));

  it('words a type refusal as Anthropic does', () => {
    assert.equal(refusal(user([null])).message, 'messages.0.content.0: Input should be a valid dictionary');
    assert.equal(refusal(user(5)).message, 'messages.0.content: Input should be a valid string or list');
  });

  it('still takes what clients send: null for absent fields, a tool_use without input', () => {
    const req = decode({
      messages: [{ role: 'assistant', content: [{ type: 'tool_use', id: 'i', name: 'n' }] }],
      system: null,
      tools: null,
      tool_choice: null,
      thinking: null,
      stop_sequences: null,
    });
    assert.deepEqual(req.messages[0]?.parts, [{ type: 'tool_call', id: 'i', name: 'n', arguments: '{}' }]);
  });
});
