// The Chat decoder (client side) on bodies it cannot take: each is refused with the 400 naming the field, in
// OpenAI's words, never a crash; what only the IR cannot carry stays GW_ERR_TRANSLATION_UNSUPPORTED.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { GatewayError } from '../../../../core/errors.js';
import { BodyBytes } from '../../../../core/formats/body-bytes.js';
import { openaiChatCodec as codec } from '../../../../core/formats/openai-chat/codec.js';
import { createOpenAIChatFormat } from '../../../../core/formats/openai-chat/index.js';
import { INVALID, MISSING, UNSUPPORTED, itRefusesEach, refusalOf, type RefusalCase } from '../refusals.js';

const format = createOpenAIChatFormat();

/** The body through the shallow check and the decoder, as translation reads it; the error it throws. */
const refusal = (json: Record<string, unknown>): GatewayError => refusalOf(() => codec.decodeRequest(format.decodeRequest(BodyBytes.of(Buffer.from(JSON.stringify({ model: 'm', ...json }), 'utf8')))), json);

const user = (content: unknown): Record<string, unknown> => ({ messages: [{ role: 'user', content }] });
const assistant = (fields: Record<string, unknown>): Record<string, unknown> => ({ messages: [{ role: 'assistant', ...fields }] });

describe('Chat decodeRequest refuses what the format cannot take, naming the field', () => {
  const cases: RefusalCase[] = [
    ['a null message (shallow check)', { messages: [null] }, INVALID, 'messages[0]'],
    ['content of another type', user(5), INVALID, 'messages[0].content'],
    ['a null content part', user([null]), INVALID, 'messages[0].content[0]'],
    ['a content part without a type', user([{ text: 'x' }]), MISSING, 'messages[0].content[0].type'],
    ['a content part type that is an object', user([{ type: { toString: 1 } }]), INVALID, 'messages[0].content[0].type'],
    ['a text part without text', user([{ type: 'text' }]), MISSING, 'messages[0].content[0].text'],
    ['a text part with a number', user([{ type: 'text', text: 1 }]), INVALID, 'messages[0].content[0].text'],
    ['an image_url of another type', user([{ type: 'image_url', image_url: 5 }]), INVALID, 'messages[0].content[0].image_url'],
    ['an image without url', user([{ type: 'image_url', image_url: {} }]), MISSING, 'messages[0].content[0].image_url.url'],
    ['an image detail of another type', user([{ type: 'image_url', image_url: { url: 'u', detail: 1 } }]), INVALID, 'messages[0].content[0].image_url.detail'],
    ['tool_calls of another type', assistant({ tool_calls: {} }), INVALID, 'messages[0].tool_calls'],
    ['a null tool call', assistant({ tool_calls: [null] }), INVALID, 'messages[0].tool_calls[0]'],
    ['a tool call without function', assistant({ tool_calls: [{ id: 'c', type: 'function' }] }), MISSING, 'messages[0].tool_calls[0].function'],
    ['a refusal of another type', assistant({ refusal: [] }), INVALID, 'messages[0].refusal'],
    ['a tool message with a numeric id', { messages: [{ role: 'tool', tool_call_id: 1, content: 'x' }] }, INVALID, 'messages[0].tool_call_id'],
    ['tools of another type', { ...user('x'), tools: 'x' }, INVALID, 'tools'],
    ['a null tool', { ...user('x'), tools: [null] }, INVALID, 'tools[0]'],
    ['a tool type that is an object', { ...user('x'), tools: [{ type: { toString: 1 } }] }, INVALID, 'tools[0].type'],
    ['a tool without function', { ...user('x'), tools: [{ type: 'function' }] }, MISSING, 'tools[0].function'],
    ['tool parameters of another type', { ...user('x'), tools: [{ type: 'function', function: { name: 'f', parameters: [] } }] }, INVALID, 'tools[0].function.parameters'],
    ['a tool description of another type', { ...user('x'), tools: [{ type: 'function', function: { name: 'f', description: 1 } }] }, INVALID, 'tools[0].function.description'],
    ['an unknown tool_choice', { ...user('x'), tool_choice: 'sometimes' }, INVALID, 'tool_choice'],
    ['a tool_choice of another type', { ...user('x'), tool_choice: 5 }, INVALID, 'tool_choice'],
    ['a tool_choice function without name', { ...user('x'), tool_choice: { type: 'function', function: {} } }, MISSING, 'tool_choice.function.name'],
    ['a stop of another type', { ...user('x'), stop: 5 }, INVALID, 'stop'],
    ['a stop list with a number', { ...user('x'), stop: ['a', 1] }, INVALID, 'stop[1]'],
    ['a response_format type that is an object', { ...user('x'), response_format: { type: { toString: 1 } } }, INVALID, 'response_format.type'],
    ['a temperature string', { ...user('x'), temperature: 'hot' }, INVALID, 'temperature'],
    ['a parallel_tool_calls string', { ...user('x'), parallel_tool_calls: 'yes' }, INVALID, 'parallel_tool_calls'],
    ['an image in a system message', { messages: [{ role: 'system', content: [{ type: 'image_url', image_url: 'u' }] }] }, UNSUPPORTED, 'messages[0].content[0]'],
  ];
  itRefusesEach(cases, refusal, (message, param) => message.includes(`'${param}'`));

  it('words a type refusal as OpenAI does', () => {
    assert.equal(refusal(user([null])).message, "Invalid type for 'messages[0].content[0]': expected an object, but got null instead.");
    assert.equal(refusal({ messages: 'x' }).message, "Invalid type for 'messages': expected an array, but got a string instead.");
  });

  it('still takes what clients send: null for absent fields, parsed tool arguments, an image URL alone', () => {
    const req = codec.decodeRequest(
      format.decodeRequest(
        BodyBytes.of(
          Buffer.from(
            JSON.stringify({
              model: 'm',
              messages: [
                { role: 'user', content: [{ type: 'image_url', image_url: 'https://x/a.png' }] },
                { role: 'assistant', content: null, refusal: null, tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: { a: 1 } } }] },
              ],
              tools: null,
              tool_choice: null,
              stop: null,
              response_format: null,
              temperature: null,
            }),
          ),
        ),
      ),
    );
    assert.equal(req.messages.length, 2);
    assert.deepEqual(req.messages[1]?.parts, [{ type: 'tool_call', id: 'c', name: 'f', arguments: '{"a":1}' }]);
  });
});
