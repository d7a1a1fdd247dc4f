// IR requests written for a Gemini upstream: the path, system text, merged turns, results in call order with the
// function's name recovered, signatures back on their parts and the placeholder on unsigned turns, tools as JSON
// Schema, tool choice, generationConfig, thinking by level or budget, images; and what Gemini cannot be sent.

import assert from 'node:assert/strict';
import { describe, it, test } from 'node:test';
import { GatewayError } from '../../core/errors.js';
import type { Message } from '../../core/ir/message.js';
import type { ChatRequest, Tool } from '../../core/ir/request.js';
import { geminiCodec as codec } from './codec.js';

type Json = Record<string, unknown>;

function irRequest(over: Partial<ChatRequest>): ChatRequest {
  return {
    model: 'client-model',
    messages: [{ role: 'user', parts: [{ type: 'text', text: 'hi' }] }],
    tools: [],
    toolChoice: null,
    parallelToolCalls: null,
    maxTokens: null,
    temperature: null,
    topP: null,
    stop: [],
    responseFormat: null,
    reasoning: null,
    stream: false,
    conversation: null,
    ...over,
  };
}

function encode(over: Partial<ChatRequest>, model = 'gemini-2.5-pro'): Json {
  return JSON.parse(codec.encodeRequest(irRequest(over), model).toString('utf8')) as Json;
}

function refused(over: Partial<ChatRequest>, param: string, pattern: RegExp): void {
  assert.throws(
    () => codec.encodeRequest(irRequest(over), 'gemini-2.5-pro'),
    (err: unknown) => err instanceof GatewayError && err.code === 'GW_ERR_TRANSLATION_UNSUPPORTED' && err.param === param && pattern.test(err.message),
  );
}

test('the call: the model in the path (encoded), streams as SSE', () => {
  assert.deepEqual(codec.upstreamCall('gemini-3.1-pro-preview', true), { path: '/v1beta/models/gemini-3.1-pro-preview:streamGenerateContent', query: '?alt=sse' });
  assert.deepEqual(codec.upstreamCall('tuned/a b', false), { path: '/v1beta/models/tuned%2Fa%20b:generateContent', query: '' });
  assert.equal(encode({})['model'], undefined, 'no model in the body');
});

/** A Chat client's tool round: two calls, the results answered out of order, then a question. */
const ROUND: Message[] = [
  { role: 'system', parts: [{ type: 'text', text: 'Be brief.' }] },
  { role: 'user', parts: [{ type: 'text', text: 'Weather and time?' }] },
  {
    role: 'assistant',
    parts: [
      { type: 'text', text: 'Checking.' },
      { type: 'tool_call', id: 'call_w', name: 'get_weather', arguments: '{"city":"Paris"}' },
      { type: 'tool_call', id: 'call_t', name: 'get_time', arguments: '{"tz":"Asia/Tokyo"}' },
    ],
  },
  { role: 'tool', parts: [{ type: 'tool_result', callId: 'call_t', content: [{ type: 'text', text: '09:00' }], isError: false }] },
  { role: 'tool', parts: [{ type: 'tool_result', callId: 'call_w', content: [{ type: 'text', text: 'no network' }], isError: true }] },
  { role: 'user', parts: [{ type: 'text', text: 'Thanks' }] },
  { role: 'system', parts: [{ type: 'text', text: 'Answer in French.' }] },
];

test('a tool round: system text hoisted, results in call order with their names, one user content, the placeholder on the unsigned turn', () => {
  const body = encode({ messages: ROUND });
  assert.deepEqual(body['systemInstruction'], { parts: [{ text: 'Be brief.' }, { text: 'Answer in French.' }] });
  assert.deepEqual(body['contents'], [
    { role: 'user', parts: [{ text: 'Weather and time?' }] },
    {
      role: 'model',
      parts: [
        { text: 'Checking.' },
        { functionCall: { id: 'call_w', name: 'get_weather', args: { city: 'Paris' } }, thoughtSignature: 'skip_thought_signature_validator' },
        { functionCall: { id: 'call_t', name: 'get_time', args: { tz: 'Asia/Tokyo' } } },
      ],
    },
    {
      role: 'user',
      parts: [
        { functionResponse: { id: 'call_w', name: 'get_weather', response: { error: 'no network' } } },
        { functionResponse: { id: 'call_t', name: 'get_time', response: { output: '09:00' } } },
        { text: 'Thanks' },
      ],
    },
  ]);
});

describe('thought signatures toward Gemini', () => {
  const proof = (value: string): { dialect: string; value: string } => ({ dialect: 'gemini', value });

  it('go back on the part they came on: a call, a text, a thought; a trailing one on the last part', () => {
    const contents = encode({
      messages: [
        { role: 'user', parts: [{ type: 'text', text: 'q' }] },
        {
          role: 'assistant',
          parts: [
            { type: 'reasoning', text: 'thinking aloud', proof: proof('T') },
            { type: 'reasoning', text: '', proof: proof('A') },
            { type: 'text', text: 'I will list.' },
            { type: 'reasoning', text: '', proof: proof('B') },
            { type: 'tool_call', id: 'c1', name: 'ls', arguments: '{}' },
            { type: 'tool_call', id: 'c2', name: 'ls', arguments: '{}' },
          ],
        },
        { role: 'tool', parts: [{ type: 'tool_result', callId: 'c1', content: [], isError: false }] },
        { role: 'tool', parts: [{ type: 'tool_result', callId: 'c2', content: [], isError: false }] },
        { role: 'assistant', parts: [{ type: 'text', text: 'Done.' }, { type: 'reasoning', text: '', proof: proof('C') }] },
      ],
    })['contents'] as Json[];
    assert.deepEqual(contents[1]?.['parts'], [
      { text: 'thinking aloud', thought: true, thoughtSignature: 'T' },
      { text: 'I will list.', thoughtSignature: 'A' },
      { functionCall: { id: 'c1', name: 'ls', args: {} }, thoughtSignature: 'B' },
      { functionCall: { id: 'c2', name: 'ls', args: {} } },
    ]);
    assert.deepEqual(contents[3]?.['parts'], [{ text: 'Done.', thoughtSignature: 'C' }]);
  });

  it("drop other dialects' reasoning and unproven reasoning, which Gemini cannot replay", () => {
    const contents = encode({
      messages: [
        { role: 'user', parts: [{ type: 'text', text: 'q' }] },
        {
          role: 'assistant',
          parts: [
            { type: 'reasoning', text: 'claude thinking', proof: { dialect: 'anthropic-messages', value: 'sig' } },
            { type: 'reasoning', text: 'plain', proof: null },
            { type: 'tool_call', id: 'c1', name: 'ls', arguments: '{}' },
          ],
        },
        { role: 'assistant', parts: [{ type: 'reasoning', text: 'only reasoning', proof: null }] },
      ],
    })['contents'] as Json[];
    assert.deepEqual(contents, [
      { role: 'user', parts: [{ text: 'q' }] },
      { role: 'model', parts: [{ functionCall: { id: 'c1', name: 'ls', args: {} }, thoughtSignature: 'skip_thought_signature_validator' }] },
    ]);
  });
});

test("arguments that are not a JSON object are kept whole; a custom tool's input travels as {input}", () => {
  const parts = (encode({
    messages: [
      { role: 'user', parts: [{ type: 'text', text: 'q' }] },
      {
        role: 'assistant',
        parts: [
          { type: 'tool_call', id: 'a', name: 'f', arguments: '{"cut": "of' },
          { type: 'tool_call', id: 'b', name: 'f', arguments: '[1]' },
          { type: 'tool_call', id: 'c', name: 'patch', arguments: '*** Begin Patch', custom: true },
        ],
      },
    ],
  })['contents'] as Json[])[1]?.['parts'] as Json[];
  assert.deepEqual(
    parts.map((p) => (p['functionCall'] as Json)['args']),
    [{ arguments: '{"cut": "of' }, { arguments: '[1]' }, { input: '*** Begin Patch' }],
  );
});

test('tools: one Tool of declarations with parametersJsonSchema; Gemini hosted tools kept; web search of others dropped', () => {
  const tools: Tool[] = [
    { kind: 'function', name: 'get_weather', description: 'Weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, additionalProperties: false, $defs: {} }, strict: true },
    { kind: 'function', name: 'noop', description: null, parameters: {}, strict: null },
    { kind: 'custom', name: 'apply_patch', description: 'Patch files' },
    { kind: 'hosted', dialect: 'gemini', type: 'web_search', definition: { googleSearch: {} } },
    { kind: 'hosted', dialect: 'openai-responses', type: 'web_search_preview', definition: { type: 'web_search_preview' } },
  ];
  const body = encode({ tools, toolChoice: { type: 'tool', name: 'get_weather' } });
  assert.deepEqual(body['tools'], [
    {
      functionDeclarations: [
        { name: 'get_weather', description: 'Weather', parametersJsonSchema: { type: 'object', properties: { city: { type: 'string' } }, additionalProperties: false, $defs: {} } },
        { name: 'noop', parametersJsonSchema: { type: 'object', properties: {} } },
        {
          name: 'apply_patch',
          description: 'Patch files\n\nPut the whole free-form input of this tool in the "input" string.',
          parametersJsonSchema: { type: 'object', properties: { input: { type: 'string' } }, required: ['input'] },
        },
      ],
    },
    { googleSearch: {} },
  ]);
  assert.deepEqual(body['toolConfig'], { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['get_weather'] } });
  refused({ tools: [{ kind: 'hosted', dialect: 'anthropic-messages', type: 'bash_20250124', definition: {} }] }, 'tools[0]', /bash_20250124/);
});

test('tool choice: auto, none, required; none of it without declarations', () => {
  const fn: Tool = { kind: 'function', name: 'f', description: null, parameters: { type: 'object' }, strict: null };
  const mode = (choice: ChatRequest['toolChoice']): unknown => (encode({ tools: [fn], toolChoice: choice })['toolConfig'] as Json | undefined)?.['functionCallingConfig'];
  assert.deepEqual([mode({ type: 'auto' }), mode({ type: 'none' }), mode({ type: 'required' }), mode(null)], [{ mode: 'AUTO' }, { mode: 'NONE' }, { mode: 'ANY' }, undefined]);
  assert.equal(encode({ toolChoice: { type: 'required' } })['toolConfig'], undefined);
});

test('generationConfig: caps, sampling, stop sequences, JSON output; none at all when nothing is set', () => {
  assert.equal(encode({})['generationConfig'], undefined);
  const schema = { type: 'object', properties: { a: { type: 'string' } } };
  assert.deepEqual(encode({ maxTokens: 500, temperature: 0.2, topP: 0.9, stop: ['END'], responseFormat: { type: 'json_schema', name: 'x', schema, strict: true, description: null } })['generationConfig'], {
    maxOutputTokens: 500,
    temperature: 0.2,
    topP: 0.9,
    stopSequences: ['END'],
    responseMimeType: 'application/json',
    responseJsonSchema: schema,
  });
  assert.deepEqual(encode({ responseFormat: { type: 'json_object' } })['generationConfig'], { responseMimeType: 'application/json' });
});

describe('thinking', () => {
  const thinking = (reasoning: ChatRequest['reasoning'], model: string, maxTokens: number | null = null): unknown =>
    (encode({ reasoning, maxTokens }, model)['generationConfig'] as Json | undefined)?.['thinkingConfig'];

  it('Gemini 3 takes a level (xhigh and max are HIGH), with the thoughts asked for', () => {
    assert.deepEqual(thinking({ effort: 'minimal', budgetTokens: null }, 'gemini-3-flash-preview'), { includeThoughts: true, thinkingLevel: 'MINIMAL' });
    assert.deepEqual(thinking({ effort: 'medium', budgetTokens: null }, 'gemini-3.1-pro-preview'), { includeThoughts: true, thinkingLevel: 'MEDIUM' });
    assert.deepEqual(thinking({ effort: 'max', budgetTokens: null }, 'models/gemini-3-pro-preview'), { includeThoughts: true, thinkingLevel: 'HIGH' });
  });

  it('earlier models take a budget: a share of the cap, never 0 without one', () => {
    assert.deepEqual(thinking({ effort: 'high', budgetTokens: null }, 'gemini-2.5-pro', 10_000), { includeThoughts: true, thinkingBudget: 8000 });
    assert.deepEqual(thinking({ effort: 'low', budgetTokens: null }, 'gemini-2.5-flash'), { includeThoughts: true, thinkingBudget: 2048 });
    assert.deepEqual(thinking({ effort: 'minimal', budgetTokens: null }, 'gemini-2.5-flash', 1000), { includeThoughts: true, thinkingBudget: 128 });
  });

  it("'none' turns thinking off; a budget is a budget everywhere; no reasoning, no thinkingConfig", () => {
    assert.deepEqual(thinking({ effort: 'none', budgetTokens: null }, 'gemini-2.5-flash'), { thinkingBudget: 0 });
    assert.deepEqual(thinking({ effort: null, budgetTokens: 4096 }, 'gemini-3-pro-preview'), { includeThoughts: true, thinkingBudget: 4096 });
    assert.equal(thinking(null, 'gemini-3-pro-preview'), undefined);
  });
});

test('images: inline data and data: URLs inline, URLs of a known image type as fileData, others refused', () => {
  const user = (url: string): Message[] => [{ role: 'user', parts: [{ type: 'image', source: { kind: 'url', url } }] }];
  const parts = (messages: Message[]): unknown => (encode({ messages })['contents'] as Json[])[0]?.['parts'];
  assert.deepEqual(parts([{ role: 'user', parts: [{ type: 'image', source: { kind: 'base64', mediaType: 'image/webp', data: 'UklG' } }] }]), [
    { inlineData: { mimeType: 'image/webp', data: 'UklG' } },
  ]);
  assert.deepEqual(parts(user('data:image/png;base64,iVBO')), [{ inlineData: { mimeType: 'image/png', data: 'iVBO' } }]);
  assert.deepEqual(parts(user('https://example.com/cat.JPG?x=1')), [{ fileData: { mimeType: 'image/jpeg', fileUri: 'https://example.com/cat.JPG?x=1' } }]);
  refused({ messages: user('https://example.com/render?id=7') }, 'messages[0]', /image URL's type/);
  // A tool's image result travels beside its functionResponse.
  const body = encode({
    messages: [
      { role: 'assistant', parts: [{ type: 'tool_call', id: 's', name: 'screenshot', arguments: '{}' }] },
      { role: 'tool', parts: [{ type: 'tool_result', callId: 's', content: [{ type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'AA' } }], isError: false }] },
    ],
  });
  assert.deepEqual((body['contents'] as Json[])[1], {
    role: 'user',
    parts: [{ functionResponse: { id: 's', name: 'screenshot', response: { output: '' } } }, { inlineData: { mimeType: 'image/png', data: 'AA' } }],
  });
});

test('a result whose call is not in the history is refused: Gemini needs the function name', () => {
  refused({ messages: [{ role: 'tool', parts: [{ type: 'tool_result', callId: 'call_gone', content: [], isError: false }] }] }, 'messages[0]', /call_gone/);
  refused({ messages: [{ role: 'system', parts: [{ type: 'image', source: { kind: 'url', url: 'https://x/a.png' } }] }] }, 'messages[0]', /system message/);
});
