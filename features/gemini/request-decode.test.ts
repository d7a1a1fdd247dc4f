// A Gemini client's request decoded to the IR: the reference's full body, Google's lenient forms, tool-call ids
// derived from the history when the client sent none (stable, paired with their responses), results, thinking and
// the rest of generationConfig; and the refusals, worded as Google words them.

import assert from 'node:assert/strict';
import { describe, it, test } from 'node:test';
import { BodyBytes } from '../../core/formats/body-bytes.js';
import type { ParsedRequest } from '../../core/formats/format.js';
import type { Message } from '../../core/ir/message.js';
import type { ChatRequest } from '../../core/ir/request.js';
import { INVALID, MISSING, UNSUPPORTED, itRefusesEach, refusalOf, type RefusalCase } from '../../test/core/formats/refusals.js';
import { geminiCodec as codec } from './codec.js';

type Json = Record<string, unknown>;

function parsed(json: Json, model = 'gemini-3-pro-preview', stream = true): ParsedRequest {
  return { raw: BodyBytes.of(Buffer.from(JSON.stringify(json))), head: json, json, model, stream, conversation: null };
}

function decode(json: Json): ChatRequest {
  return codec.decodeRequest(parsed(json));
}

/** The body of the reference (section 3): what Gemini CLI sends on a turn after two calls. */
const TURN: Json = {
  contents: [
    { role: 'user', parts: [{ text: 'List files' }, { inlineData: { mimeType: 'image/png', data: 'iVBORw0' } }] },
    {
      role: 'model',
      parts: [
        { text: 'I will list.', thoughtSignature: 'Cs0BAY' },
        { functionCall: { id: 'call_1', name: 'list_directory', args: { dir_path: '.' } }, thoughtSignature: 'EpYC' },
        { functionCall: { id: 'call_2', name: 'read_file', args: { file_path: 'a.txt' } } },
      ],
    },
    {
      role: 'user',
      parts: [
        { functionResponse: { id: 'call_1', name: 'list_directory', response: { output: 'a.txt' } } },
        { functionResponse: { id: 'call_2', name: 'read_file', response: { output: 'hello' } } },
      ],
    },
  ],
  systemInstruction: { parts: [{ text: 'You are a coding agent.' }] },
  tools: [
    {
      functionDeclarations: [
        { name: 'read_file', description: 'Read a file', parametersJsonSchema: { type: 'object', properties: { file_path: { type: 'string' } }, required: ['file_path'] } },
      ],
    },
  ],
  toolConfig: { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['read_file'] } },
  generationConfig: { temperature: 1, topP: 0.95, topK: 64, maxOutputTokens: 8192, candidateCount: 1, stopSequences: ['###'], thinkingConfig: { includeThoughts: true, thinkingLevel: 'HIGH' } },
  safetySettings: [{ category: 'HARM_CATEGORY_HARASSMENT', threshold: 'BLOCK_NONE' }],
};

test('the reference body: system, image, signatures before the parts they sat on, calls and results paired by id', () => {
  const ir = decode(TURN);
  assert.equal(ir.model, 'gemini-3-pro-preview', 'the model comes from the path');
  assert.equal(ir.stream, true);
  const expected: Message[] = [
    { role: 'system', parts: [{ type: 'text', text: 'You are a coding agent.' }] },
    { role: 'user', parts: [{ type: 'text', text: 'List files' }, { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'iVBORw0' } }] },
    {
      role: 'assistant',
      parts: [
        { type: 'reasoning', text: '', proof: { dialect: 'gemini', value: 'Cs0BAY' } },
        { type: 'text', text: 'I will list.' },
        { type: 'reasoning', text: '', proof: { dialect: 'gemini', value: 'EpYC' } },
        { type: 'tool_call', id: 'call_1', name: 'list_directory', arguments: '{"dir_path":"."}' },
        { type: 'tool_call', id: 'call_2', name: 'read_file', arguments: '{"file_path":"a.txt"}' },
      ],
    },
    { role: 'tool', parts: [{ type: 'tool_result', callId: 'call_1', content: [{ type: 'text', text: 'a.txt' }], isError: false }] },
    { role: 'tool', parts: [{ type: 'tool_result', callId: 'call_2', content: [{ type: 'text', text: 'hello' }], isError: false }] },
  ];
  assert.deepEqual(ir.messages, expected);
  assert.deepEqual(ir.tools, [
    { kind: 'function', name: 'read_file', description: 'Read a file', parameters: { type: 'object', properties: { file_path: { type: 'string' } }, required: ['file_path'] }, strict: null },
  ]);
  assert.deepEqual(ir.toolChoice, { type: 'tool', name: 'read_file' });
  assert.deepEqual([ir.maxTokens, ir.temperature, ir.topP, ir.stop], [8192, 1, 0.95, ['###']]);
  assert.deepEqual(ir.reasoning, { effort: 'high', budgetTokens: null });
  assert.equal(ir.responseFormat, null);
});

test("Google's lenient forms: snake_case keys, one object for a list, role function, a string systemInstruction, OpenAPI types", () => {
  const ir = decode({
    system_instruction: 'Be brief.',
    contents: { role: 'user', parts: { text: 'weather?' } },
    tools: { function_declarations: { name: 'get_weather', parameters: { type: 'OBJECT', properties: { city: { type: 'STRING', nullable: true } }, propertyOrdering: ['city'] } } },
    tool_config: { function_calling_config: { mode: 'any' } },
    generation_config: { max_output_tokens: 100, stop_sequences: 'END', thinking_config: { thinking_budget: 0 } },
  });
  assert.deepEqual(ir.messages, [
    { role: 'system', parts: [{ type: 'text', text: 'Be brief.' }] },
    { role: 'user', parts: [{ type: 'text', text: 'weather?' }] },
  ]);
  assert.deepEqual(ir.tools, [{ kind: 'function', name: 'get_weather', description: null, parameters: { type: 'object', properties: { city: { type: ['string', 'null'] } } }, strict: null }]);
  assert.deepEqual(ir.toolChoice, { type: 'required' });
  assert.deepEqual([ir.maxTokens, ir.stop, ir.reasoning], [100, ['END'], { effort: 'none', budgetTokens: null }]);

  const results = decode({
    contents: [
      { role: 'user', parts: [{ text: 'go' }] },
      { role: 'model', parts: [{ function_call: { name: 'f', args: {} }, thought_signature: 'sig' }] },
      { role: 'function', parts: [{ function_response: { name: 'f', response: { result: 42 } } }] },
    ],
  });
  const id = (results.messages[1]?.parts[1] as { id: string }).id;
  assert.deepEqual(results.messages.slice(1), [
    { role: 'assistant', parts: [{ type: 'reasoning', text: '', proof: { dialect: 'gemini', value: 'sig' } }, { type: 'tool_call', id, name: 'f', arguments: '{}' }] },
    { role: 'tool', parts: [{ type: 'tool_result', callId: id, content: [{ type: 'text', text: '{"result":42}' }], isError: false }] },
  ]);
});

describe('tool-call ids where the client sent none', () => {
  const history = (turns: number): Json => ({
    contents: Array.from({ length: turns }, (_, t) => [
      { role: 'user', parts: [{ text: `turn ${t}` }] },
      { role: 'model', parts: [{ text: 'checking' }, { functionCall: { name: 'read_file', args: { n: 1 } } }, { functionCall: { name: 'read_file', args: { n: 2 } } }, { functionCall: { name: 'ls', args: {} } }] },
      {
        role: 'user',
        parts: [
          { functionResponse: { name: 'ls', response: { output: 'a b' } } },
          { functionResponse: { name: 'read_file', response: { output: 'one' } } },
          { functionResponse: { name: 'read_file', response: { output: 'two' } } },
        ],
      },
    ]).flat(),
  });
  const idsOf = (ir: ChatRequest): { calls: string[]; results: string[] } => ({
    calls: ir.messages.flatMap((m) => m.parts.flatMap((p) => (p.type === 'tool_call' ? [p.id] : []))),
    results: ir.messages.flatMap((m) => m.parts.flatMap((p) => (p.type === 'tool_result' ? [p.callId] : []))),
  });

  it('are the same for the same history, call after call, and stay put as the history grows (prompt caches)', () => {
    const once = idsOf(decode(history(2)));
    assert.deepEqual(idsOf(decode(history(2))), once);
    const longer = idsOf(decode(history(3)));
    assert.deepEqual(longer.calls.slice(0, once.calls.length), once.calls);
    assert.equal(new Set(longer.calls).size, longer.calls.length, 'unique');
    for (const id of longer.calls) assert.match(id, /^[a-zA-Z0-9_-]{1,64}$/);
  });

  it('pair each response with the first unanswered call of its name, in order', () => {
    const { calls, results } = idsOf(decode(history(1)));
    assert.deepEqual(results, [calls[2], calls[0], calls[1]]);
  });

  it('keep a long or odd function name within the id rules', () => {
    const name = `ns.tool:${'x'.repeat(80)}`;
    const ir = decode({ contents: [{ role: 'model', parts: [{ functionCall: { name, args: {} } }] }, { role: 'user', parts: [{ functionResponse: { name, response: {} } }] }] });
    const { calls, results } = idsOf(ir);
    assert.match(calls[0] ?? '', /^[a-zA-Z0-9_-]{1,64}$/);
    assert.deepEqual(results, calls);
  });

  it("take the call's id for a response the client numbered on its own, when the call had none", () => {
    const ir = decode({
      contents: [
        { role: 'model', parts: [{ functionCall: { name: 'ls', args: {} } }] },
        { role: 'user', parts: [{ functionResponse: { id: 'ls_1795835881909_0', name: 'ls', response: { output: '' } } }] },
      ],
    });
    const { calls, results } = idsOf(ir);
    assert.deepEqual(results, calls);
  });
});

test('function responses: output, error, the whole object, images beside and inside', () => {
  const ir = decode({
    contents: [
      { role: 'model', parts: [{ functionCall: { id: 'a', name: 'f', args: {} } }, { functionCall: { id: 'b', name: 'f', args: {} } }, { functionCall: { id: 'c', name: 'g', args: {} } }] },
      {
        role: 'user',
        parts: [
          { functionResponse: { id: 'a', name: 'f', response: { output: { rows: 2 } } } },
          { functionResponse: { id: 'b', name: 'f', response: { error: 'denied' } } },
          { functionResponse: { id: 'c', name: 'g', response: { content: 'x' }, parts: [{ inlineData: { mimeType: 'image/png', data: 'AAA' } }] } },
          { inlineData: { mimeType: 'image/jpeg', data: 'BBB' } },
          { text: 'and then?' },
        ],
      },
    ],
  });
  assert.deepEqual(ir.messages.slice(1), [
    { role: 'tool', parts: [{ type: 'tool_result', callId: 'a', content: [{ type: 'text', text: '{"rows":2}' }], isError: false }] },
    { role: 'tool', parts: [{ type: 'tool_result', callId: 'b', content: [{ type: 'text', text: 'denied' }], isError: true }] },
    {
      role: 'tool',
      parts: [
        {
          type: 'tool_result',
          callId: 'c',
          content: [
            { type: 'text', text: '{"content":"x"}' },
            { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'AAA' } },
          ],
          isError: false,
        },
      ],
    },
    { role: 'user', parts: [{ type: 'image', source: { kind: 'base64', mediaType: 'image/jpeg', data: 'BBB' } }, { type: 'text', text: 'and then?' }] },
  ]);
});

test('thoughts become reasoning; a signed thought keeps its proof; placeholders prove nothing', () => {
  const ir = decode({
    contents: [
      {
        role: 'model',
        parts: [
          { text: 'plan', thought: true },
          { text: 'more plan', thought: true, thoughtSignature: 'T1' },
          { functionCall: { id: 'x', name: 'f', args: {} }, thoughtSignature: 'skip_thought_signature_validator' },
          { functionCall: { id: 'y', name: 'f', args: {} }, thoughtSignature: 'context_engineering_is_the_way_to_go' },
        ],
      },
    ],
  });
  assert.deepEqual(ir.messages[0]?.parts, [
    { type: 'reasoning', text: 'plan', proof: null },
    { type: 'reasoning', text: 'more plan', proof: { dialect: 'gemini', value: 'T1' } },
    { type: 'tool_call', id: 'x', name: 'f', arguments: '{}' },
    { type: 'tool_call', id: 'y', name: 'f', arguments: '{}' },
  ]);
});

describe('generationConfig', () => {
  const reasoning = (thinkingConfig: Json): ChatRequest['reasoning'] => decode({ contents: [{ parts: [{ text: 'x' }] }], generationConfig: { thinkingConfig } }).reasoning;

  it('thinking: a level is an effort, a budget a budget, 0 none, -1 and includeThoughts alone a medium effort', () => {
    assert.deepEqual(reasoning({ thinkingLevel: 'low' }), { effort: 'low', budgetTokens: null });
    assert.deepEqual(reasoning({ thinkingLevel: 'MINIMAL', thinkingBudget: 99 }), { effort: 'minimal', budgetTokens: null });
    assert.deepEqual(reasoning({ thinkingBudget: 8192, includeThoughts: true }), { effort: null, budgetTokens: 8192 });
    assert.deepEqual(reasoning({ thinkingBudget: 0 }), { effort: 'none', budgetTokens: null });
    assert.deepEqual(reasoning({ thinkingBudget: -1 }), { effort: 'medium', budgetTokens: null });
    assert.deepEqual(reasoning({ includeThoughts: true }), { effort: 'medium', budgetTokens: null });
    assert.equal(reasoning({ includeThoughts: false }), null);
  });

  it('JSON output: a JSON Schema (OpenAPI types lowered), or JSON without one', () => {
    const format = (config: Json): ChatRequest['responseFormat'] => decode({ contents: [{ parts: [{ text: 'x' }] }], generationConfig: config }).responseFormat;
    // Gemini CLI's side calls write responseJsonSchema with upper-case types.
    assert.deepEqual(format({ responseMimeType: 'application/json', responseJsonSchema: { type: 'OBJECT', properties: { model: { type: 'STRING', enum: ['A'] } } } }), {
      type: 'json_schema',
      name: 'response',
      schema: { type: 'object', properties: { model: { type: 'string', enum: ['A'] } } },
      strict: null,
      description: null,
    });
    assert.deepEqual(format({ responseMimeType: 'application/json', responseSchema: { type: 'ARRAY', items: { type: 'INTEGER' } } })?.type, 'json_schema');
    assert.deepEqual(format({ responseMimeType: 'application/json' }), { type: 'json_object' });
    assert.equal(format({ responseMimeType: 'text/plain' }), null);
  });

  it('tool config: AUTO, NONE, VALIDATED, ANY of several functions', () => {
    const choice = (functionCallingConfig: Json): ChatRequest['toolChoice'] => decode({ contents: [{ parts: [{ text: 'x' }] }], toolConfig: { functionCallingConfig } }).toolChoice;
    assert.deepEqual(choice({ mode: 'AUTO' }), { type: 'auto' });
    assert.deepEqual(choice({ mode: 'NONE' }), { type: 'none' });
    assert.deepEqual(choice({ mode: 'VALIDATED' }), { type: 'auto' });
    assert.deepEqual(choice({ mode: 'ANY', allowedFunctionNames: ['a', 'b'] }), { type: 'required' });
    assert.equal(choice({}), null);
  });

  it("hosted tools are kept for Gemini; Google's search is typed as a web search", () => {
    const tools = decode({ contents: [{ parts: [{ text: 'x' }] }], tools: [{ googleSearch: {} }, { code_execution: {} }, { urlContext: {} }] }).tools;
    assert.deepEqual(tools, [
      { kind: 'hosted', dialect: 'gemini', type: 'web_search', definition: { googleSearch: {} } },
      { kind: 'hosted', dialect: 'gemini', type: 'codeExecution', definition: { codeExecution: {} } },
      { kind: 'hosted', dialect: 'gemini', type: 'urlContext', definition: { urlContext: {} } },
    ]);
  });
});

describe('refusals, naming the field', () => {
  const text = (more: Json): Json => ({ contents: [{ parts: [{ text: 'x' }] }], ...more });
  const part = (p: Json, role = 'user'): Json => ({ contents: [{ role, parts: [p] }] });
  const cases: RefusalCase[] = [
    ['no contents', {}, MISSING, 'contents'],
    ['empty contents', { contents: [] }, MISSING, 'contents'],
    ['a content that is a string', { contents: ['hi'] }, INVALID, 'contents[0]'],
    ['an unknown role', { contents: [{ role: 'assistant', parts: [{ text: 'x' }] }] }, INVALID, 'contents[0].role'],
    ['a text that is a number', part({ text: 5 }), INVALID, 'contents[0].parts[0].text'],
    ['a call without a name', part({ functionCall: { args: {} } }, 'model'), MISSING, 'contents[0].parts[0].functionCall.name'],
    ['call args that are a string', part({ functionCall: { name: 'f', args: '{}' } }, 'model'), INVALID, 'contents[0].parts[0].functionCall.args'],
    ['a thinking level unknown', text({ generationConfig: { thinkingConfig: { thinkingLevel: 'EXTREME' } } }), INVALID, 'generationConfig.thinkingConfig.thinkingLevel'],
    ['a function mode unknown', text({ toolConfig: { functionCallingConfig: { mode: 'SOMETIMES' } } }), INVALID, 'toolConfig.functionCallingConfig.mode'],
    ['a declaration without a name', text({ tools: [{ functionDeclarations: [{ description: 'd' }] }] }), MISSING, 'tools[0].functionDeclarations[0].name'],
    ['executable code', part({ executableCode: { language: 'PYTHON', code: '1' } }, 'model'), UNSUPPORTED, 'contents[0].parts[0].executableCode'],
    ['a PDF', part({ inlineData: { mimeType: 'application/pdf', data: 'JVBE' } }), UNSUPPORTED, 'contents[0].parts[0].inlineData.mimeType'],
    ['a video by URL', part({ fileData: { mimeType: 'video/mp4', fileUri: 'https://youtu.be/x' } }), UNSUPPORTED, 'contents[0].parts[0].fileData.mimeType'],
    ['a Files API upload', part({ fileData: { mimeType: 'image/png', fileUri: 'https://generativelanguage.googleapis.com/v1beta/files/abc' } }), UNSUPPORTED, 'contents[0].parts[0].fileData.fileUri'],
    ['a gs:// image', part({ fileData: { mimeType: 'image/png', fileUri: 'gs://b/a.png' } }), UNSUPPORTED, 'contents[0].parts[0].fileData.fileUri'],
    ['an image in a model turn', part({ inlineData: { mimeType: 'image/png', data: 'AA' } }, 'model'), UNSUPPORTED, 'contents[0].parts[0]'],
    ['a call in a user turn', part({ functionCall: { name: 'f', args: {} } }), UNSUPPORTED, 'contents[0].parts[0].functionCall'],
    ['two candidates', text({ generationConfig: { candidateCount: 2 } }), UNSUPPORTED, 'generationConfig.candidateCount'],
    ['image output', text({ generationConfig: { responseModalities: ['TEXT', 'IMAGE'] } }), UNSUPPORTED, 'generationConfig.responseModalities'],
    ['logprobs', text({ generationConfig: { responseLogprobs: true } }), UNSUPPORTED, 'generationConfig.responseLogprobs'],
    ['an enum MIME type', text({ generationConfig: { responseMimeType: 'text/x.enum' } }), UNSUPPORTED, 'generationConfig.responseMimeType'],
    ['an explicit cache', text({ cachedContent: 'cachedContents/abc' }), UNSUPPORTED, 'cachedContent'],
    ['a system part that is an image', text({ systemInstruction: { parts: [{ inlineData: { mimeType: 'image/png', data: 'AA' } }] } }), UNSUPPORTED, 'systemInstruction.parts[0]'],
  ];
  itRefusesEach(cases, (json) => refusalOf(() => decode(json), json), (message, param) => message.includes(`'${param}'`));
});
