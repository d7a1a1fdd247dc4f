// The Responses decoder (client side) on bodies it cannot take: each is refused with the 400 naming the field, in
// OpenAI's words, never a crash; what only the IR cannot carry stays GW_ERR_TRANSLATION_UNSUPPORTED.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { GatewayError } from '../../../../core/errors.js';
import { BodyBytes } from '../../../../core/formats/body-bytes.js';
import { openaiResponsesCodec as codec } from '../../../../core/formats/openai-responses/codec.js';
import { createOpenAIResponsesCompactFormat, createOpenAIResponsesFormat } from '../../../../core/formats/openai-responses/index.js';
import { INVALID, MISSING, UNSUPPORTED, itRefusesEach, refusalOf, type RefusalCase } from '../refusals.js';

const format = createOpenAIResponsesFormat();

function bytes(json: Record<string, unknown>): BodyBytes {
  return BodyBytes.of(Buffer.from(JSON.stringify({ model: 'm', ...json }), 'utf8'));
}

/** The body through the shallow check and the decoder, as translation reads it; the error it throws. */
const refusal = (json: Record<string, unknown>): GatewayError => refusalOf(() => codec.decodeRequest(format.decodeRequest(bytes(json))), json);

const item = (fields: Record<string, unknown>): Record<string, unknown> => ({ input: [fields] });
const message = (content: unknown): Record<string, unknown> => item({ role: 'user', content });

describe('Responses decodeRequest refuses what the format cannot take, naming the field', () => {
  const cases: RefusalCase[] = [
    ['a null input item', { input: [null] }, INVALID, 'input[0]'],
    ['an input item that is a list', { input: [[]] }, INVALID, 'input[0]'],
    ['an item without type or role', item({ content: 'x' }), MISSING, 'input[0].type'],
    ['an item type that is an object', item({ type: { toString: 1 } }), INVALID, 'input[0].type'],
    ['a message role that is a number', item({ type: 'message', role: 1, content: 'x' }), INVALID, 'input[0].role'],
    ['an unknown message role', item({ role: 'robot', content: 'x' }), INVALID, 'input[0].role'],
    ['content of another type', message(5), INVALID, 'input[0].content'],
    ['a null content part', message([null]), INVALID, 'input[0].content[0]'],
    ['a content part type that is an object', message([{ type: { toString: null } }]), INVALID, 'input[0].content[0].type'],
    ['an input_text without text', message([{ type: 'input_text' }]), MISSING, 'input[0].content[0].text'],
    ['an image_url of another type', message([{ type: 'input_image', image_url: {} }]), INVALID, 'input[0].content[0].image_url'],
    ['a function_call without call_id', item({ type: 'function_call', name: 'f', arguments: '{}' }), MISSING, 'input[0].call_id'],
    ['function_call arguments of another type', item({ type: 'function_call', call_id: 'c', name: 'f', arguments: {} }), INVALID, 'input[0].arguments'],
    ['a custom_tool_call input of another type', item({ type: 'custom_tool_call', call_id: 'c', name: 'f', input: 1 }), INVALID, 'input[0].input'],
    ['an output of another type', item({ type: 'function_call_output', call_id: 'c', output: 1 }), INVALID, 'input[0].output'],
    ['a null output part', item({ type: 'function_call_output', call_id: 'c', output: [null] }), INVALID, 'input[0].output[0]'],
    ['a reasoning summary of another type', item({ type: 'reasoning', summary: 'x' }), INVALID, 'input[0].summary'],
    ['a null reasoning summary part', item({ type: 'reasoning', summary: [null] }), INVALID, 'input[0].summary[0]'],
    ['a reasoning summary part without text', item({ type: 'reasoning', summary: [{ type: 'summary_text' }] }), MISSING, 'input[0].summary[0].text'],
    ['additional_tools of another type', item({ type: 'additional_tools', tools: {} }), INVALID, 'input[0].tools'],
    ['a null tool', { input: 'x', tools: [null] }, INVALID, 'tools[0]'],
    ['a tool type that is an object', { input: 'x', tools: [{ type: { toString: 1 } }] }, INVALID, 'tools[0].type'],
    ['a function tool without name', { input: 'x', tools: [{ type: 'function' }] }, MISSING, 'tools[0].name'],
    ['function parameters of another type', { input: 'x', tools: [{ type: 'function', name: 'f', parameters: 'x' }] }, INVALID, 'tools[0].parameters'],
    ['a namespace without tools', { input: 'x', tools: [{ type: 'namespace', name: 'n' }] }, MISSING, 'tools[0].tools'],
    ['a null namespace member', { input: 'x', tools: [{ type: 'namespace', name: 'n', tools: [null] }] }, INVALID, 'tools[0].tools[0]'],
    ['a tool_choice that is a list', { input: 'x', tool_choice: [{ toString: null }] }, INVALID, 'tool_choice'],
    ['a tool_choice type that is an object', { input: 'x', tool_choice: { type: { toString: 1 } } }, INVALID, 'tool_choice.type'],
    ['a function tool_choice without name', { input: 'x', tool_choice: { type: 'function' } }, MISSING, 'tool_choice.name'],
    ['text of another type', { input: 'x', text: 'json' }, INVALID, 'text'],
    ['a text.format type that is an object', { input: 'x', text: { format: { type: {} } } }, INVALID, 'text.format.type'],
    ['reasoning of another type', { input: 'x', reasoning: 'high' }, INVALID, 'reasoning'],
    ['instructions of another type', { input: 'x', instructions: ['x'] }, INVALID, 'instructions'],
    ['a max_output_tokens string', { input: 'x', max_output_tokens: '5' }, INVALID, 'max_output_tokens'],
    ['a compaction item', item({ type: 'compaction', encrypted_content: 'E' }), UNSUPPORTED, 'input[0]'],
  ];
  itRefusesEach(cases, refusal, (message, param) => message.includes(`'${param}'`));

  it('words the probe as OpenAI does; the shallow check lets it through (it does not read input items)', () => {
    assert.equal(refusal({ input: [null] }).message, "Invalid type for 'input[0]': expected an object, but got null instead.");
    assert.equal(format.decodeRequest(bytes({ input: [null] })).model, 'm');
    assert.equal(createOpenAIResponsesCompactFormat().decodeRequest(bytes({ input: [null] })).model, 'm');
  });

  it('still takes what clients send: easy messages, null for absent fields, an empty reasoning item', () => {
    const req = codec.decodeRequest(
      format.decodeRequest(
        bytes({
          input: [
            { role: 'user', content: 'hi' },
            { type: 'reasoning', summary: [], content: null, encrypted_content: null },
            { type: 'function_call', call_id: 'c', name: 'f', arguments: '{}' },
          ],
          instructions: null,
          tools: null,
          tool_choice: null,
          text: null,
          reasoning: null,
          temperature: null,
        }),
      ),
    );
    assert.deepEqual(
      req.messages.map((m) => m.role),
      ['user', 'assistant'],
    );
  });
});
