// The Anthropic Messages codec: real Claude Code bodies decoded to the IR, IR requests written for an
// Anthropic upstream, whole answers and streams both ways, and upstream errors.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { GatewayError } from '../../../../core/errors.js';
import { anthropicMessagesCodec as codec } from '../../../../core/formats/anthropic-messages/codec.js';
import type { ParsedRequest } from '../../../../core/formats/format.js';
import type { Message } from '../../../../core/ir/message.js';
import { unwrapProof, wrapProof } from '../../../../core/ir/proof-tag.js';
import type { ChatRequest } from '../../../../core/ir/request.js';
import type { ChatResponse } from '../../../../core/ir/response.js';
import type { EncodedFrame, StreamEvent } from '../../../../core/ir/stream.js';
import { BodyBytes } from '../../../../core/formats/body-bytes.js';
import { fixturePath } from '../../../helpers/repo-root.js';

type Json = Record<string, unknown>;

function fixture(name: string): Json {
  return JSON.parse(readFileSync(fixturePath(`requests/${name}`), 'utf8')) as Json;
}

function parsed(json: Json): ParsedRequest {
  const metadata = json['metadata'] as Json | undefined;
  const userId = metadata?.['user_id'];
  return {
    raw: BodyBytes.of(Buffer.from(JSON.stringify(json))),
    head: json,
    json,
    model: json['model'] as string,
    stream: json['stream'] === true,
    conversation: typeof userId === 'string' ? userId : null,
  };
}

function decode(json: Json): ChatRequest {
  return codec.decodeRequest(parsed(json));
}

function encode(request: ChatRequest, model = 'claude-up'): Json {
  return JSON.parse(codec.encodeRequest(request, model).toString('utf8')) as Json;
}

function irRequest(over: Partial<ChatRequest>): ChatRequest {
  return {
    model: 'client-model',
    messages: [{ role: 'user', parts: [{ type: 'text', text: 'hi' }] }],
    tools: [],
    toolChoice: null,
    parallelToolCalls: null,
    maxTokens: 1000,
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

function rejects(fn: () => unknown, code: string, param?: string): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof GatewayError);
    assert.equal(err.code, code);
    if (param !== undefined) assert.equal(err.param, param);
    return true;
  });
}

const ANTHROPIC = 'anthropic-messages' as const;

describe('decodeRequest: Claude Code bodies', () => {
  test('system blocks, the inline role:"system" message, tools, thinking and metadata', () => {
    const body = fixture('claude-code-messages.json');
    const ir = decode(body);
    assert.deepEqual(
      ir.messages.map((m) => m.role),
      ['system', 'user', 'system'],
    );
    const system = ir.messages[0] as Message;
    const blocks = body['system'] as Json[];
    assert.equal(system.parts.length, blocks.length);
    assert.deepEqual(system.parts[0], { type: 'text', text: blocks[0]?.['text'] });
    // cache_control has no IR field: only the text survives.
    assert.deepEqual(system.parts[1], { type: 'text', text: "You are a Claude agent, built on Anthropic's Claude Agent SDK." });
    const inline = ir.messages[2] as Message;
    assert.equal(inline.parts.length, 1);
    assert.match((inline.parts[0] as { text: string }).text, /^# Environment/);
    const user = ir.messages[1] as Message;
    assert.deepEqual(user.parts.at(-1), { type: 'text', text: 'say pong' });

    assert.equal(ir.tools.length, 12);
    assert.ok(ir.tools.every((t) => t.kind === 'function'));
    const bash = ir.tools.find((t) => t.name === 'Bash');
    assert.ok(bash !== undefined && bash.kind === 'function');
    assert.equal(bash.parameters['type'], 'object');
    assert.equal(typeof bash.description, 'string');
    assert.equal(bash.strict, null);

    assert.deepEqual(ir.reasoning, { effort: 'medium', budgetTokens: null });
    assert.equal(ir.maxTokens, 128000);
    assert.equal(ir.stream, true);
    assert.equal(ir.model, 'claude-opus-5-5');
    assert.match(ir.conversation ?? '', /session_id/);
    assert.equal(ir.toolChoice, null);
    assert.equal(ir.parallelToolCalls, null);
    assert.equal(ir.responseFormat, null);
  });

  test('a tool round trip: tool_use in the assistant turn, tool_result as an IR tool message', () => {
    const ir = decode(fixture('claude-code-messages-tool-result.json'));
    assert.deepEqual(
      ir.messages.map((m) => m.role),
      ['system', 'user', 'system', 'assistant', 'tool'],
    );
    // The inline system message is a plain string in this body.
    assert.match((ir.messages[2]?.parts[0] as { text: string }).text, /^# Environment/);
    assert.deepEqual(ir.messages[3], {
      role: 'assistant',
      parts: [{ type: 'tool_call', id: 'toolu_01', name: 'Bash', arguments: '{"command":"echo hi","description":"say hi"}' }],
    });
    assert.deepEqual(ir.messages[4], {
      role: 'tool',
      parts: [{ type: 'tool_result', callId: 'toolu_01', content: [{ type: 'text', text: 'hi' }], isError: false }],
    });
  });

  test('encoding the decoded first turn: inline system text joins the top-level blocks, adaptive effort becomes a budget', () => {
    const body = fixture('claude-code-messages.json');
    const out = encode(decode(body));
    const system = out['system'] as Json[];
    assert.equal(system.length, 4);
    assert.deepEqual(system[1], { type: 'text', text: "You are a Claude agent, built on Anthropic's Claude Agent SDK." });
    assert.match(system[3]?.['text'] as string, /^# Environment/);
    const messages = out['messages'] as Json[];
    assert.equal(messages.length, 1);
    assert.equal(messages[0]?.['role'], 'user');
    assert.deepEqual((messages[0]?.['content'] as Json[]).at(-1), { type: 'text', text: 'say pong' });
    assert.deepEqual(out['thinking'], { type: 'enabled', budget_tokens: 8192 });
    // The placeholder's defer_loading has no IR field.
    assert.deepEqual(
      (out['tools'] as Json[]).map((t) => Object.keys(t).sort().join(',')),
      Array(12).fill('description,input_schema,name'),
    );
  });

  test('encoding the decoded fixture for an Anthropic upstream: all system text on top, turns alternate', () => {
    const body = fixture('claude-code-messages-tool-result.json');
    const out = encode(decode(body), 'claude-up');
    const system = out['system'] as Json[];
    assert.equal(system.length, (body['system'] as unknown[]).length + 1);
    assert.ok(system.every((b) => b['type'] === 'text' && !('cache_control' in b)));
    assert.match(system.at(-1)?.['text'] as string, /^# Environment/);
    const messages = out['messages'] as Json[];
    assert.deepEqual(
      messages.map((m) => m['role']),
      ['user', 'assistant', 'user'],
    );
    assert.deepEqual(messages[2], { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01', content: [{ type: 'text', text: 'hi' }] }] });
    assert.deepEqual((messages[1]?.['content'] as Json[])[0], { type: 'tool_use', id: 'toolu_01', name: 'Bash', input: { command: 'echo hi', description: 'say hi' } });
    assert.equal(out['model'], 'claude-up');
    assert.equal(out['max_tokens'], 128000);
    assert.equal((out['tools'] as unknown[]).length, 12);
    assert.deepEqual(out['metadata'], { user_id: body['metadata'] && (body['metadata'] as Json)['user_id'] });
    assert.equal(out['stream'], true);
    // The last assistant turn called a tool without thinking before it: Anthropic would refuse thinking.
    assert.equal(out['thinking'], undefined);
  });
});

describe('decodeRequest: content, tools and settings', () => {
  test('tool_result blocks become tool messages in order, the rest of the turn a user message after them', () => {
    const ir = decode({
      model: 'm',
      max_tokens: 100,
      system: 'Be terse.',
      messages: [
        { role: 'user', content: 'go' },
        {
          role: 'assistant',
          content: [
            { type: 'tool_use', id: 'toolu_a', name: 'f', input: { x: 1 } },
            { type: 'tool_use', id: 'toolu_b', name: 'g', input: {} },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'toolu_a', content: [{ type: 'text', text: 'A' }, { type: 'image', source: { type: 'url', url: 'https://x/a.png' } }] },
            { type: 'tool_result', tool_use_id: 'toolu_b', content: 'B', is_error: true },
            { type: 'text', text: 'next' },
          ],
        },
      ],
    });
    assert.deepEqual(ir.messages, [
      { role: 'system', parts: [{ type: 'text', text: 'Be terse.' }] },
      { role: 'user', parts: [{ type: 'text', text: 'go' }] },
      {
        role: 'assistant',
        parts: [
          { type: 'tool_call', id: 'toolu_a', name: 'f', arguments: '{"x":1}' },
          { type: 'tool_call', id: 'toolu_b', name: 'g', arguments: '{}' },
        ],
      },
      {
        role: 'tool',
        parts: [
          {
            type: 'tool_result',
            callId: 'toolu_a',
            content: [
              { type: 'text', text: 'A' },
              { type: 'image', source: { kind: 'url', url: 'https://x/a.png' } },
            ],
            isError: false,
          },
        ],
      },
      { role: 'tool', parts: [{ type: 'tool_result', callId: 'toolu_b', content: [{ type: 'text', text: 'B' }], isError: true }] },
      { role: 'user', parts: [{ type: 'text', text: 'next' }] },
    ]);
  });

  test('thinking blocks: native signatures are Anthropic proofs, wrapped ones give back the other dialect’s proof', () => {
    const foreign = { dialect: 'openai-responses' as const, value: 'gAAAA-enc', id: 'rs_1' };
    const ir = decode({
      model: 'm',
      max_tokens: 100,
      messages: [
        { role: 'user', content: 'q' },
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'mine', signature: 'EqQB' },
            { type: 'thinking', thinking: 'shown', signature: wrapProof(foreign, 'original summary') },
            { type: 'thinking', thinking: 'unsigned', signature: '' },
            { type: 'redacted_thinking', data: 'blob' },
            { type: 'text', text: 'answer' },
          ],
        },
      ],
    });
    assert.deepEqual(ir.messages[1]?.parts, [
      { type: 'reasoning', text: 'mine', proof: { dialect: ANTHROPIC, value: 'EqQB' } },
      { type: 'reasoning', text: 'original summary', proof: foreign },
      { type: 'reasoning', text: 'unsigned', proof: null },
      { type: 'reasoning', text: '', proof: { dialect: ANTHROPIC, value: 'blob', redacted: true } },
      { type: 'text', text: 'answer' },
    ]);
  });

  test('images, tool choice, stop sequences, output format, budgets and hosted tools', () => {
    const ir = decode({
      model: 'm',
      max_tokens: 4096,
      temperature: 0.3,
      top_p: 0.9,
      stop_sequences: ['END'],
      messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBO' } }] }],
      tools: [
        { name: 'lookup', description: 'Look up', input_schema: { type: 'object', properties: { q: { type: 'string' } } }, strict: true },
        { type: 'web_search_20250305', name: 'web_search', max_uses: 3 },
      ],
      tool_choice: { type: 'any', disable_parallel_tool_use: true },
      thinking: { type: 'enabled', budget_tokens: 2048 },
      output_config: { format: { type: 'json_schema', schema: { type: 'object' } } },
    });
    assert.deepEqual(ir.messages[0]?.parts, [{ type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'iVBO' } }]);
    assert.deepEqual(ir.tools, [
      { kind: 'function', name: 'lookup', description: 'Look up', parameters: { type: 'object', properties: { q: { type: 'string' } } }, strict: true },
      { kind: 'hosted', dialect: ANTHROPIC, type: 'web_search_20250305', definition: { type: 'web_search_20250305', name: 'web_search', max_uses: 3 } },
    ]);
    assert.deepEqual(ir.toolChoice, { type: 'required' });
    assert.equal(ir.parallelToolCalls, false);
    assert.deepEqual(ir.stop, ['END']);
    assert.equal(ir.temperature, 0.3);
    assert.equal(ir.topP, 0.9);
    assert.deepEqual(ir.reasoning, { effort: null, budgetTokens: 2048 });
    assert.deepEqual(ir.responseFormat, { type: 'json_schema', name: 'output', schema: { type: 'object' }, strict: null, description: null });

    const base = { model: 'm', max_tokens: 10, messages: [{ role: 'user', content: 'x' }] };
    assert.deepEqual(decode({ ...base, thinking: { type: 'disabled' } }).reasoning, { effort: 'none', budgetTokens: null });
    assert.deepEqual(decode({ ...base, thinking: { type: 'adaptive' } }).reasoning, { effort: 'medium', budgetTokens: null });
    assert.deepEqual(decode({ ...base, output_config: { effort: 'high' } }).reasoning, { effort: 'high', budgetTokens: null });
    assert.equal(decode(base).reasoning, null);
    assert.deepEqual(decode({ ...base, tools: [], tool_choice: { type: 'tool', name: 'f' } }).toolChoice, { type: 'tool', name: 'f' });
    assert.equal(decode({ ...base, tool_choice: { type: 'auto', disable_parallel_tool_use: false } }).parallelToolCalls, true);
  });

  test('blocks with no counterpart are refused, naming the block', () => {
    const withUser = (content: unknown[]): Json => ({ model: 'm', max_tokens: 10, messages: [{ role: 'user', content }] });
    rejects(() => decode(withUser([{ type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'x' } }])), 'GW_ERR_TRANSLATION_UNSUPPORTED', 'messages.0.content.0.type');
    rejects(() => decode(withUser([{ type: 'search_result', source: 's', title: 't', content: [] }])), 'GW_ERR_TRANSLATION_UNSUPPORTED');
    rejects(() => decode(withUser([{ type: 'image', source: { type: 'file', file_id: 'file_1' } }])), 'GW_ERR_TRANSLATION_UNSUPPORTED', 'messages.0.content.0.source.type');
    rejects(
      () => decode(withUser([{ type: 'tool_result', tool_use_id: 't', content: [{ type: 'document', source: {} }] }])),
      'GW_ERR_TRANSLATION_UNSUPPORTED',
      'messages.0.content.0.content.0.type',
    );
    rejects(
      () =>
        decode({
          model: 'm',
          max_tokens: 10,
          messages: [{ role: 'assistant', content: [{ type: 'web_search_tool_result', tool_use_id: 's', content: [] }] }],
        }),
      'GW_ERR_TRANSLATION_UNSUPPORTED',
    );
    rejects(() => decode({ model: 'm', max_tokens: 10, messages: [{ role: 'user', content: 5 }] }), 'GW_ERR_REQUEST_INVALID_FIELD', 'messages.0.content');
    rejects(() => decode({ model: 'm', max_tokens: 10, messages: [{ role: 'tool', content: 'x' }] }), 'GW_ERR_REQUEST_INVALID_FIELD', 'messages.0.role');
  });
});

describe('encodeRequest: an IR request for an Anthropic upstream', () => {
  test('tool messages merge into one user turn, tool_result blocks first, followed by the next user message', () => {
    const out = encode(
      irRequest({
        messages: [
          { role: 'system', parts: [{ type: 'text', text: 'A' }] },
          { role: 'user', parts: [{ type: 'text', text: 'go' }] },
          { role: 'system', parts: [{ type: 'text', text: 'B' }] },
          {
            role: 'assistant',
            parts: [
              { type: 'text', text: 'calling' },
              { type: 'tool_call', id: 'call_1', name: 'f', arguments: '{"a":1}' },
              { type: 'tool_call', id: 'functions.g:1', name: 'g', arguments: 'not json' },
            ],
          },
          { role: 'tool', parts: [{ type: 'tool_result', callId: 'call_1', content: [{ type: 'text', text: 'one' }], isError: false }] },
          { role: 'tool', parts: [{ type: 'tool_result', callId: 'functions.g:1', content: [], isError: true }] },
          { role: 'user', parts: [{ type: 'text', text: 'and?' }, { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'AA' }, detail: 'low' }] },
          { role: 'user', parts: [{ type: 'text', text: 'more' }] },
        ],
      }),
    );
    assert.deepEqual(out['system'], [
      { type: 'text', text: 'A' },
      { type: 'text', text: 'B' },
    ]);
    assert.deepEqual(out['messages'], [
      { role: 'user', content: [{ type: 'text', text: 'go' }] },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'calling' },
          { type: 'tool_use', id: 'call_1', name: 'f', input: { a: 1 } },
          // Ids outside [a-zA-Z0-9_-] are mapped alike in the call and its result; invalid JSON becomes {}.
          { type: 'tool_use', id: 'functions_g_1', name: 'g', input: {} },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'call_1', content: [{ type: 'text', text: 'one' }] },
          { type: 'tool_result', tool_use_id: 'functions_g_1', is_error: true },
          { type: 'text', text: 'and?' },
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AA' } },
          { type: 'text', text: 'more' },
        ],
      },
    ]);
    assert.equal(out['max_tokens'], 1000);
    assert.equal(out['stream'], false);
    for (const absent of ['tools', 'tool_choice', 'thinking', 'temperature', 'metadata', 'stop_sequences', 'output_config']) assert.ok(!(absent in out), absent);
  });

  test('reasoning: Anthropic proofs are sent back, other dialects’ and unsigned reasoning dropped; empty turns vanish', () => {
    const out = encode(
      irRequest({
        messages: [
          { role: 'user', parts: [{ type: 'text', text: 'q1' }] },
          { role: 'assistant', parts: [{ type: 'reasoning', text: 'foreign', proof: { dialect: 'openai-responses', value: 'enc', id: 'rs_1' } }] },
          { role: 'user', parts: [{ type: 'text', text: 'q2' }] },
          {
            role: 'assistant',
            parts: [
              { type: 'reasoning', text: 'think', proof: { dialect: ANTHROPIC, value: 'sig' } },
              { type: 'reasoning', text: '', proof: { dialect: ANTHROPIC, value: 'data', redacted: true } },
              { type: 'reasoning', text: 'plain', proof: null },
              { type: 'text', text: '' },
              { type: 'text', text: 'a2' },
            ],
          },
        ],
      }),
    );
    assert.deepEqual(out['messages'], [
      // The first assistant turn held only foreign reasoning: dropped, and the user turns around it merged.
      {
        role: 'user',
        content: [
          { type: 'text', text: 'q1' },
          { type: 'text', text: 'q2' },
        ],
      },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'think', signature: 'sig' },
          { type: 'redacted_thinking', data: 'data' },
          { type: 'text', text: 'a2' },
        ],
      },
    ]);
  });

  test('tools: functions, custom tools as one input string, hosted tools kept, dropped or refused', () => {
    const request = irRequest({
      tools: [
        { kind: 'function', name: 'f', description: 'does f', parameters: { type: 'object', properties: {} }, strict: null },
        { kind: 'function', name: 'ns__g', namespace: 'ns', description: null, parameters: {}, strict: true },
        { kind: 'custom', name: 'apply_patch', description: 'Apply a patch' },
        { kind: 'hosted', dialect: ANTHROPIC, type: 'bash_20250124', definition: { type: 'bash_20250124', name: 'bash' } },
        { kind: 'hosted', dialect: 'openai-responses', type: 'web_search', definition: { type: 'web_search' } },
      ],
      messages: [
        { role: 'user', parts: [{ type: 'text', text: 'patch it' }] },
        { role: 'assistant', parts: [{ type: 'tool_call', id: 'call_p', name: 'apply_patch', arguments: '*** Begin Patch', custom: true }] },
        { role: 'tool', parts: [{ type: 'tool_result', callId: 'call_p', content: [{ type: 'text', text: 'ok' }], isError: false, custom: true }] },
      ],
      toolChoice: { type: 'auto' },
      parallelToolCalls: false,
    });
    const out = encode(request);
    const tools = out['tools'] as Json[];
    assert.equal(tools.length, 4);
    assert.deepEqual(tools[0], { name: 'f', description: 'does f', input_schema: { type: 'object', properties: {} } });
    assert.deepEqual(tools[1], { name: 'ns__g', input_schema: { type: 'object', properties: {} }, strict: true });
    assert.equal(tools[2]?.['name'], 'apply_patch');
    assert.match(tools[2]?.['description'] as string, /^Apply a patch/);
    assert.deepEqual(tools[2]?.['input_schema'], { type: 'object', properties: { input: { type: 'string' } }, required: ['input'] });
    assert.deepEqual(tools[3], { type: 'bash_20250124', name: 'bash' });
    assert.deepEqual(out['tool_choice'], { type: 'auto', disable_parallel_tool_use: true });
    const messages = out['messages'] as Json[];
    assert.deepEqual((messages[1]?.['content'] as Json[])[0], { type: 'tool_use', id: 'call_p', name: 'apply_patch', input: { input: '*** Begin Patch' } });

    rejects(
      () => encode(irRequest({ tools: [{ kind: 'hosted', dialect: 'openai-responses', type: 'file_search', definition: { type: 'file_search' } }] })),
      'GW_ERR_TRANSLATION_UNSUPPORTED',
      'tools[0]',
    );
    // Without tools, no tool_choice is sent.
    assert.ok(!('tool_choice' in encode(irRequest({ toolChoice: { type: 'required' } }))));
    assert.deepEqual(encode(irRequest({ tools: request.tools.slice(0, 1), toolChoice: { type: 'none' } }))['tool_choice'], { type: 'none' });
    assert.deepEqual(encode(irRequest({ tools: request.tools.slice(0, 1), toolChoice: { type: 'tool', name: 'f' } }))['tool_choice'], { type: 'tool', name: 'f' });
  });

  test('reasoning settings as thinking budgets; temperature and top_p only without thinking', () => {
    const base = { temperature: 1.7, topP: 0.5 };
    const high = encode(irRequest({ ...base, maxTokens: 64000, reasoning: { effort: 'high', budgetTokens: null } }));
    assert.deepEqual(high['thinking'], { type: 'enabled', budget_tokens: 16384 });
    assert.ok(!('temperature' in high) && !('top_p' in high));

    assert.deepEqual(encode(irRequest({ maxTokens: null, reasoning: { effort: 'xhigh', budgetTokens: null } }))['thinking'], { type: 'enabled', budget_tokens: 8191 });
    assert.equal(encode(irRequest({ maxTokens: null }))['max_tokens'], 8192);
    assert.deepEqual(encode(irRequest({ maxTokens: 5000, reasoning: { effort: null, budgetTokens: 3000 } }))['thinking'], { type: 'enabled', budget_tokens: 3000 });

    // Too small a limit for the minimum budget: no thinking, and the sampling settings go through (clamped to 1).
    const small = encode(irRequest({ ...base, maxTokens: 1000, reasoning: { effort: 'low', budgetTokens: null } }));
    assert.ok(!('thinking' in small));
    assert.equal(small['temperature'], 1);
    assert.equal(small['top_p'], 0.5);

    assert.deepEqual(encode(irRequest({ ...base, reasoning: { effort: 'none', budgetTokens: null } }))['thinking'], { type: 'disabled' });

    // The last assistant turn called a tool: thinking only if that turn starts with a (kept) thinking block.
    const loop = (reasoningPart: Message['parts']): ChatRequest =>
      irRequest({
        maxTokens: 20000,
        reasoning: { effort: 'low', budgetTokens: null },
        messages: [
          { role: 'user', parts: [{ type: 'text', text: 'go' }] },
          { role: 'assistant', parts: [...reasoningPart, { type: 'tool_call', id: 'toolu_1', name: 'f', arguments: '{}' }] },
          { role: 'tool', parts: [{ type: 'tool_result', callId: 'toolu_1', content: [], isError: false }] },
        ],
      });
    assert.deepEqual(encode(loop([{ type: 'reasoning', text: 't', proof: { dialect: ANTHROPIC, value: 's' } }]))['thinking'], { type: 'enabled', budget_tokens: 2048 });
    assert.ok(!('thinking' in encode(loop([{ type: 'reasoning', text: 't', proof: { dialect: 'openai-responses', value: 'e' } }]))));

    // Forced tool use and thinking exclude each other at Anthropic.
    const forced = encode(
      irRequest({
        maxTokens: 20000,
        reasoning: { effort: 'medium', budgetTokens: null },
        tools: [{ kind: 'function', name: 'f', description: null, parameters: { type: 'object' }, strict: null }],
        toolChoice: { type: 'required' },
      }),
    );
    assert.ok(!('thinking' in forced));
    assert.deepEqual(forced['tool_choice'], { type: 'any' });
  });

  test('stop sequences, json_schema output, conversation', () => {
    const out = encode(
      irRequest({
        stop: ['X', 'Y'],
        responseFormat: { type: 'json_schema', name: 'answer', schema: { type: 'object' }, strict: true, description: null },
        conversation: 'conv-123',
        stream: true,
      }),
    );
    assert.deepEqual(out['stop_sequences'], ['X', 'Y']);
    assert.deepEqual(out['output_config'], { format: { type: 'json_schema', schema: { type: 'object' } } });
    assert.deepEqual(out['metadata'], { user_id: 'conv-123' });
    assert.equal(out['stream'], true);
    assert.ok(!('output_config' in encode(irRequest({ responseFormat: { type: 'json_object' } }))));
  });

  test('decode(encode(x)) keeps what Anthropic can carry', () => {
    const request = irRequest({
      model: 'claude-up',
      messages: [
        { role: 'system', parts: [{ type: 'text', text: 'sys one' }, { type: 'text', text: 'sys two' }] },
        { role: 'user', parts: [{ type: 'text', text: 'look' }, { type: 'image', source: { kind: 'url', url: 'https://x/y.png' } }] },
        {
          role: 'assistant',
          parts: [
            { type: 'reasoning', text: 'hmm', proof: { dialect: ANTHROPIC, value: 'sig' } },
            { type: 'text', text: 'calling' },
            { type: 'tool_call', id: 'toolu_1', name: 'f', arguments: '{"a":[1,2]}' },
          ],
        },
        { role: 'tool', parts: [{ type: 'tool_result', callId: 'toolu_1', content: [{ type: 'text', text: 'r' }], isError: true }] },
        { role: 'user', parts: [{ type: 'text', text: 'thanks' }] },
      ],
      tools: [{ kind: 'function', name: 'f', description: 'F', parameters: { type: 'object', properties: { a: { type: 'array' } } }, strict: null }],
      toolChoice: { type: 'tool', name: 'f' },
      parallelToolCalls: false,
      maxTokens: 2000,
      temperature: 0.5,
      topP: 0.25,
      stop: ['STOP'],
      responseFormat: { type: 'json_schema', name: 'output', schema: { type: 'object' }, strict: null, description: null },
      stream: true,
      conversation: 'user-1',
    });
    const body = encode(request);
    const again = decode(body);
    assert.deepEqual(again, request);
  });
});

describe('whole answers', () => {
  const upstreamBody = {
    id: 'msg_01Ab',
    type: 'message',
    role: 'assistant',
    model: 'claude-sonnet-4-5',
    content: [
      { type: 'thinking', thinking: 'The user...', signature: 'EqQB' },
      { type: 'redacted_thinking', data: 'secret' },
      { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: {} },
      { type: 'text', text: 'A cat.' },
      { type: 'tool_use', id: 'toolu_01', name: 'lookup', input: { q: 'cat' } },
    ],
    stop_reason: 'tool_use',
    stop_sequence: null,
    usage: { input_tokens: 812, output_tokens: 96, cache_creation_input_tokens: 10, cache_read_input_tokens: 640 },
  };

  test('decodeResponse reads parts, finish and usage (prompt tokens include cache reads and writes)', () => {
    const ir = codec.decodeResponse(Buffer.from(JSON.stringify(upstreamBody)));
    assert.equal(ir.id, 'msg_01Ab');
    assert.equal(ir.model, 'claude-sonnet-4-5');
    assert.deepEqual(ir.parts, [
      { type: 'reasoning', text: 'The user...', proof: { dialect: ANTHROPIC, value: 'EqQB' } },
      { type: 'reasoning', text: '', proof: { dialect: ANTHROPIC, value: 'secret', redacted: true } },
      { type: 'text', text: 'A cat.' },
      { type: 'tool_call', id: 'toolu_01', name: 'lookup', arguments: '{"q":"cat"}' },
    ]);
    assert.equal(ir.finish, 'tool_calls');
    assert.equal(ir.stopSequence, null);
    assert.deepEqual(ir.usage, { promptTokens: 1462, completionTokens: 96, cachedTokens: 640, cacheWriteTokens: 10, reasoningTokens: 0 });

    const stopped = codec.decodeResponse(Buffer.from(JSON.stringify({ ...upstreamBody, stop_reason: 'stop_sequence', stop_sequence: '###' })));
    assert.equal(stopped.finish, 'stop_sequence');
    assert.equal(stopped.stopSequence, '###');
    for (const [reason, finish] of [
      ['end_turn', 'stop'],
      ['max_tokens', 'length'],
      ['refusal', 'content_filter'],
      ['pause_turn', 'stop'],
      ['model_context_window_exceeded', 'length'],
    ] as const) {
      assert.equal(codec.decodeResponse(Buffer.from(JSON.stringify({ ...upstreamBody, stop_reason: reason }))).finish, finish);
    }
  });

  test('decodeResponse refuses what is not a message', () => {
    rejects(() => codec.decodeResponse(Buffer.from('<html>')), 'GW_ERR_UPSTREAM_ERROR');
    rejects(() => codec.decodeResponse(Buffer.from('{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}')), 'GW_ERR_UPSTREAM_OVERLOADED');
  });

  test('encodeResponse writes an Anthropic message; a foreign proof is wrapped into the signature and comes back', () => {
    const foreign = { dialect: 'openai-responses' as const, value: 'gAAAA', id: 'rs_9' };
    const response: ChatResponse = {
      id: 'resp_123',
      model: 'gpt-5',
      created: 1,
      parts: [
        { type: 'reasoning', text: 'summary', proof: foreign },
        { type: 'reasoning', text: 'chat reasoning', proof: null },
        { type: 'text', text: 'Hello' },
        { type: 'tool_call', id: 'call_1', name: 'lookup', arguments: '{"q":"x"}' },
      ],
      finish: 'tool_calls',
      stopSequence: null,
      usage: { promptTokens: 100, completionTokens: 20, cachedTokens: 60, cacheWriteTokens: 0, reasoningTokens: 5 },
    };
    const body = JSON.parse(codec.encodeResponse(response, irRequest({})).toString('utf8')) as Json;
    const content = body['content'] as Json[];
    assert.equal(body['id'], 'msg_resp_123');
    assert.equal(body['type'], 'message');
    assert.equal(body['role'], 'assistant');
    assert.equal(body['model'], 'gpt-5');
    assert.equal(body['stop_reason'], 'tool_use');
    assert.equal(body['stop_sequence'], null);
    assert.deepEqual(body['usage'], { input_tokens: 40, cache_creation_input_tokens: 0, cache_read_input_tokens: 60, output_tokens: 20, output_tokens_details: { thinking_tokens: 5 } });
    assert.equal(content[0]?.['type'], 'thinking');
    assert.deepEqual(unwrapProof(content[0]?.['signature'] as string), { proof: foreign, text: 'summary' });
    assert.deepEqual(content[1], { type: 'thinking', thinking: 'chat reasoning', signature: '' });
    assert.deepEqual(content[2], { type: 'text', text: 'Hello' });
    assert.deepEqual(content[3], { type: 'tool_use', id: 'call_1', name: 'lookup', input: { q: 'x' } });

    // The client sends the turn back: the proof returns to its dialect.
    const next = decode({ model: 'm', max_tokens: 10, messages: [{ role: 'user', content: 'q' }, { role: 'assistant', content }] });
    assert.deepEqual(next.messages[1]?.parts[0], { type: 'reasoning', text: 'summary', proof: foreign });

    // Anthropic proofs (an answer of this dialect) are written unwrapped; ids with msg_ keep it.
    const own = JSON.parse(
      codec
        .encodeResponse(
          {
            ...response,
            id: 'msg_x',
            parts: [{ type: 'reasoning', text: '', proof: { dialect: ANTHROPIC, value: 'd', redacted: true } }],
            finish: 'stop_sequence',
            stopSequence: 'END',
            usage: null,
          },
          irRequest({}),
        )
        .toString('utf8'),
    ) as Json;
    assert.equal(own['id'], 'msg_x');
    assert.deepEqual(own['content'], [{ type: 'redacted_thinking', data: 'd' }]);
    assert.equal(own['stop_reason'], 'stop_sequence');
    assert.equal(own['stop_sequence'], 'END');
    assert.deepEqual(own['usage'], { input_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 0 });
  });

  test('a decoded answer encodes back to the same message (minus the provider-only block)', () => {
    const ir = codec.decodeResponse(Buffer.from(JSON.stringify(upstreamBody)));
    const body = JSON.parse(codec.encodeResponse(ir, irRequest({})).toString('utf8')) as Json;
    assert.deepEqual(body, { ...upstreamBody, content: upstreamBody.content.filter((b) => b.type !== 'server_tool_use') });
  });
});

describe('decodeError', () => {
  test('reads the type and message of an Anthropic error body', () => {
    const overloaded = codec.decodeError(529, Buffer.from('{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"},"request_id":"req_1"}'));
    assert.equal(overloaded.code, 'GW_ERR_UPSTREAM_OVERLOADED');
    assert.equal(overloaded.message, 'Overloaded');
    assert.equal(overloaded.upstreamStatus, 529);
    const bad = codec.decodeError(400, Buffer.from('{"type":"error","error":{"type":"invalid_request_error","message":"messages.0: bad"}}'));
    assert.equal(bad.code, 'GW_ERR_UPSTREAM_BAD_REQUEST');
    assert.equal(bad.message, 'messages.0: bad');
    const limited = codec.decodeError(429, Buffer.from('{"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}'));
    assert.equal(limited.code, 'GW_ERR_UPSTREAM_RATE_LIMITED');
  });

  test('a body that is not JSON leaves the status to speak', () => {
    const err = codec.decodeError(502, Buffer.from('<html>Bad gateway</html>'));
    assert.equal(err.code, 'GW_ERR_UPSTREAM_ERROR');
    assert.equal(err.message, 'The upstream answered HTTP 502.');
  });
});

// ---------------------------------------------------------------------------------------------------------
// Streams.

type Frame = readonly [event: string, data: Json];

function decodeStream(frames: readonly Frame[]): StreamEvent[] {
  const decoder = codec.createStreamDecoder();
  const events = frames.flatMap(([event, data]) => decoder.push(event, JSON.stringify(data)));
  return [...events, ...decoder.end()];
}

/** `created` is the gateway's clock; everything else is compared exactly. */
function withoutClock(events: readonly StreamEvent[]): StreamEvent[] {
  return events.map((e) => (e.type === 'start' ? { ...e, created: 0 } : e));
}

const messageStart = (usage: Json = { input_tokens: 812, cache_creation_input_tokens: 0, cache_read_input_tokens: 640, output_tokens: 1 }): Frame => [
  'message_start',
  {
    type: 'message_start',
    message: { id: 'msg_01', type: 'message', role: 'assistant', model: 'claude-sonnet-4-5', content: [], stop_reason: null, stop_sequence: null, usage },
  },
];
const blockStart = (index: number, block: Json): Frame => ['content_block_start', { type: 'content_block_start', index, content_block: block }];
const blockDelta = (index: number, delta: Json): Frame => ['content_block_delta', { type: 'content_block_delta', index, delta }];
const blockStop = (index: number): Frame => ['content_block_stop', { type: 'content_block_stop', index }];
const messageDelta = (stopReason: string, usage: Json, stopSequence: string | null = null): Frame => [
  'message_delta',
  { type: 'message_delta', delta: { stop_reason: stopReason, stop_sequence: stopSequence }, usage },
];
const messageStop: Frame = ['message_stop', { type: 'message_stop' }];
const ping: Frame = ['ping', { type: 'ping' }];

const START_USAGE = { promptTokens: 1452, completionTokens: 1, cachedTokens: 640, cacheWriteTokens: 0, reasoningTokens: 0 };
const START: StreamEvent = { type: 'start', id: 'msg_01', model: 'claude-sonnet-4-5', created: 0, usage: START_USAGE };

describe('stream decoder (Anthropic upstream)', () => {
  test('text', () => {
    const events = decodeStream([
      messageStart(),
      blockStart(0, { type: 'text', text: '' }),
      ping,
      blockDelta(0, { type: 'text_delta', text: 'Hel' }),
      blockDelta(0, { type: 'text_delta', text: 'lo' }),
      blockStop(0),
      messageDelta('end_turn', { output_tokens: 12 }),
      messageStop,
    ]);
    assert.deepEqual(withoutClock(events), [
      START,
      { type: 'usage', usage: START_USAGE },
      { type: 'block_start', index: 0, block: { type: 'text' } },
      { type: 'text_delta', index: 0, text: 'Hel' },
      { type: 'text_delta', index: 0, text: 'lo' },
      { type: 'block_stop', index: 0 },
      { type: 'usage', usage: { ...START_USAGE, completionTokens: 12 } },
      { type: 'finish', reason: 'stop', stopSequence: null },
    ]);
  });

  test('reasoning with its signature, then a redacted block, skipping a server tool block', () => {
    const events = decodeStream([
      messageStart(),
      blockStart(0, { type: 'thinking', thinking: '', signature: '' }),
      blockDelta(0, { type: 'thinking_delta', thinking: 'Let me ' }),
      blockDelta(0, { type: 'thinking_delta', thinking: 'see.' }),
      blockDelta(0, { type: 'signature_delta', signature: 'EqQB' }),
      blockStop(0),
      blockStart(1, { type: 'redacted_thinking', data: 'opaque' }),
      blockStop(1),
      blockStart(2, { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: {} }),
      blockDelta(2, { type: 'input_json_delta', partial_json: '{"query":"x"}' }),
      blockStop(2),
      blockStart(3, { type: 'text', text: '' }),
      blockDelta(3, { type: 'text_delta', text: 'Done.' }),
      blockStop(3),
      messageDelta('stop_sequence', { output_tokens: 40 }, '###'),
      messageStop,
    ]);
    assert.deepEqual(withoutClock(events).slice(2), [
      { type: 'block_start', index: 0, block: { type: 'reasoning' } },
      { type: 'reasoning_delta', index: 0, text: 'Let me ' },
      { type: 'reasoning_delta', index: 0, text: 'see.' },
      { type: 'reasoning_proof', index: 0, proof: { dialect: ANTHROPIC, value: 'EqQB' } },
      { type: 'block_stop', index: 0 },
      { type: 'block_start', index: 1, block: { type: 'reasoning' } },
      { type: 'reasoning_proof', index: 1, proof: { dialect: ANTHROPIC, value: 'opaque', redacted: true } },
      { type: 'block_stop', index: 1 },
      { type: 'block_start', index: 2, block: { type: 'text' } },
      { type: 'text_delta', index: 2, text: 'Done.' },
      { type: 'block_stop', index: 2 },
      { type: 'usage', usage: { ...START_USAGE, completionTokens: 40 } },
      { type: 'finish', reason: 'stop_sequence', stopSequence: '###' },
    ]);
  });

  test('two parallel tool calls', () => {
    const events = decodeStream([
      messageStart(),
      blockStart(0, { type: 'tool_use', id: 'toolu_a', name: 'read', input: {} }),
      blockDelta(0, { type: 'input_json_delta', partial_json: '' }),
      blockDelta(0, { type: 'input_json_delta', partial_json: '{"path":' }),
      blockDelta(0, { type: 'input_json_delta', partial_json: '"a"}' }),
      blockStop(0),
      blockStart(1, { type: 'tool_use', id: 'toolu_b', name: 'read', input: {} }),
      blockDelta(1, { type: 'input_json_delta', partial_json: '{"path":"b"}' }),
      blockStop(1),
      messageDelta('tool_use', { output_tokens: 30, input_tokens: 900 }),
      messageStop,
    ]);
    assert.deepEqual(withoutClock(events).slice(2), [
      { type: 'block_start', index: 0, block: { type: 'tool_call', id: 'toolu_a', name: 'read' } },
      { type: 'arguments_delta', index: 0, json: '{"path":' },
      { type: 'arguments_delta', index: 0, json: '"a"}' },
      { type: 'block_stop', index: 0 },
      { type: 'block_start', index: 1, block: { type: 'tool_call', id: 'toolu_b', name: 'read' } },
      { type: 'arguments_delta', index: 1, json: '{"path":"b"}' },
      { type: 'block_stop', index: 1 },
      // message_delta may restate input counts; the cache counts of message_start stay.
      { type: 'usage', usage: { promptTokens: 1540, completionTokens: 30, cachedTokens: 640, cacheWriteTokens: 0, reasoningTokens: 0 } },
      { type: 'finish', reason: 'tool_calls', stopSequence: null },
    ]);
  });

  test('an upstream error mid-stream is the last event', () => {
    const decoder = codec.createStreamDecoder();
    const events = [messageStart(), blockStart(0, { type: 'text', text: '' }), blockDelta(0, { type: 'text_delta', text: 'par' })].flatMap(([e, d]) =>
      decoder.push(e, JSON.stringify(d)),
    );
    const failed = decoder.push('error', JSON.stringify({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }));
    assert.equal(events.length, 4);
    assert.equal(failed.length, 1);
    const event = failed[0];
    assert.ok(event !== undefined && event.type === 'error');
    assert.equal(event.error.code, 'GW_ERR_UPSTREAM_OVERLOADED');
    assert.equal(event.error.message, 'Overloaded');
    assert.equal(event.error.upstreamStatus, null);
    assert.deepEqual(decoder.push('message_stop', '{"type":"message_stop"}'), []);
    assert.deepEqual(decoder.end(), []);
  });

  test('a stream cut before message_stop makes end() throw', () => {
    const decoder = codec.createStreamDecoder();
    for (const [e, d] of [messageStart(), blockStart(0, { type: 'text', text: '' }), blockDelta(0, { type: 'text_delta', text: 'hal' })]) decoder.push(e, JSON.stringify(d));
    rejects(() => decoder.end(), 'GW_ERR_UPSTREAM_STREAM_BROKEN');

    // Even after message_delta: message_stop is the terminal event.
    const late = codec.createStreamDecoder();
    for (const [e, d] of [messageStart(), messageDelta('end_turn', { output_tokens: 1 })]) late.push(e, JSON.stringify(d));
    rejects(() => late.end(), 'GW_ERR_UPSTREAM_STREAM_BROKEN');
  });

  test('a frame that is not JSON ends the stream with an error event', () => {
    const decoder = codec.createStreamDecoder();
    const events = decoder.push('content_block_delta', '{"type":');
    assert.equal(events.length, 1);
    assert.equal(events[0]?.type === 'error' && events[0].error.code, 'GW_ERR_UPSTREAM_STREAM_BROKEN');
  });
});

function encodeStream(events: readonly StreamEvent[]): { event: string | undefined; data: Json }[] {
  const encoder = codec.createStreamEncoder(irRequest({ stream: true }));
  const frames: EncodedFrame[] = [...events.flatMap((e) => encoder.push(e)), ...encoder.end()];
  return frames.map((f) => {
    const data = JSON.parse(f.data) as Json;
    assert.equal(f.event, data['type'], 'every frame is named after its data.type');
    return { event: f.event, data };
  });
}

const USAGE = { promptTokens: 100, completionTokens: 20, cachedTokens: 30, cacheWriteTokens: 5, reasoningTokens: 0 };
const CHAT_START: StreamEvent = { type: 'start', id: 'chatcmpl-1', model: 'gpt-5', created: 1, usage: null };

describe('stream encoder (Anthropic client)', () => {
  test('text: message_start, one block, message_delta with final usage and stop reason, message_stop', () => {
    const frames = encodeStream([
      CHAT_START,
      { type: 'block_start', index: 0, block: { type: 'text' } },
      { type: 'text_delta', index: 0, text: 'Hi' },
      { type: 'text_delta', index: 0, text: '!' },
      { type: 'block_stop', index: 0 },
      { type: 'finish', reason: 'stop', stopSequence: null },
      { type: 'usage', usage: USAGE },
    ]);
    assert.deepEqual(
      frames.map((f) => f.data),
      [
        {
          type: 'message_start',
          message: {
            id: 'msg_chatcmpl-1',
            type: 'message',
            role: 'assistant',
            model: 'gpt-5',
            content: [],
            stop_reason: null,
            stop_sequence: null,
            usage: { input_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 0 },
          },
        },
        { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
        { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hi' } },
        { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: '!' } },
        { type: 'content_block_stop', index: 0 },
        {
          type: 'message_delta',
          delta: { stop_reason: 'end_turn', stop_sequence: null },
          usage: { input_tokens: 65, cache_creation_input_tokens: 5, cache_read_input_tokens: 30, output_tokens: 20 },
        },
        { type: 'message_stop' },
      ],
    );
  });

  test('reasoning: thinking deltas, then the proof as signature_delta (wrapped when foreign); redacted blocks arrive whole', () => {
    const foreign = { dialect: 'openai-responses' as const, value: 'gAAAA', id: 'rs_1' };
    const frames = encodeStream([
      { ...CHAT_START, usage: USAGE },
      { type: 'block_start', index: 0, block: { type: 'reasoning' } },
      { type: 'reasoning_delta', index: 0, text: 'Think' },
      { type: 'reasoning_delta', index: 0, text: 'ing' },
      { type: 'reasoning_proof', index: 0, proof: foreign },
      { type: 'block_stop', index: 0 },
      { type: 'block_start', index: 1, block: { type: 'reasoning' } },
      { type: 'reasoning_proof', index: 1, proof: { dialect: ANTHROPIC, value: 'opaque', redacted: true } },
      { type: 'block_stop', index: 1 },
      { type: 'block_start', index: 2, block: { type: 'reasoning' } },
      { type: 'reasoning_delta', index: 2, text: 'chat reasoning, no proof' },
      { type: 'block_stop', index: 2 },
      { type: 'block_start', index: 3, block: { type: 'reasoning' } },
      { type: 'reasoning_delta', index: 3, text: 'own' },
      { type: 'reasoning_proof', index: 3, proof: { dialect: ANTHROPIC, value: 'EqQB' } },
      { type: 'block_stop', index: 3 },
      { type: 'finish', reason: 'stop', stopSequence: null },
    ]);
    const data = frames.map((f) => f.data);
    assert.deepEqual((data[0]?.['message'] as Json)['usage'], { input_tokens: 65, cache_creation_input_tokens: 5, cache_read_input_tokens: 30, output_tokens: 20 });
    assert.deepEqual(data.slice(1, 5), [
      { type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '', signature: '' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'Think' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'ing' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'signature_delta', signature: data[4] && (data[4]['delta'] as Json)['signature'] } },
    ]);
    assert.deepEqual(unwrapProof((data[4]?.['delta'] as Json)['signature'] as string), { proof: foreign, text: 'Thinking' });
    assert.deepEqual(data.slice(5, 15), [
      { type: 'content_block_stop', index: 0 },
      { type: 'content_block_start', index: 1, content_block: { type: 'redacted_thinking', data: 'opaque' } },
      { type: 'content_block_stop', index: 1 },
      // No proof: the signature stays the "" of the block start; no empty signature_delta.
      { type: 'content_block_start', index: 2, content_block: { type: 'thinking', thinking: '', signature: '' } },
      { type: 'content_block_delta', index: 2, delta: { type: 'thinking_delta', thinking: 'chat reasoning, no proof' } },
      { type: 'content_block_stop', index: 2 },
      { type: 'content_block_start', index: 3, content_block: { type: 'thinking', thinking: '', signature: '' } },
      { type: 'content_block_delta', index: 3, delta: { type: 'thinking_delta', thinking: 'own' } },
      { type: 'content_block_delta', index: 3, delta: { type: 'signature_delta', signature: 'EqQB' } },
      { type: 'content_block_stop', index: 3 },
    ]);
    assert.equal(data.at(-2)?.['type'], 'message_delta');
    assert.equal(data.at(-1)?.['type'], 'message_stop');
  });

  test('two parallel tool calls, and a late arguments delta of the first (chat upstreams) keeps its index', () => {
    const frames = encodeStream([
      CHAT_START,
      { type: 'block_start', index: 0, block: { type: 'tool_call', id: 'call_a', name: 'read' } },
      { type: 'arguments_delta', index: 0, json: '{"path":' },
      { type: 'block_stop', index: 0 },
      { type: 'block_start', index: 1, block: { type: 'tool_call', id: 'call_b', name: 'read' } },
      { type: 'arguments_delta', index: 1, json: '{"path":"b"}' },
      { type: 'arguments_delta', index: 0, json: '"a"}' },
      { type: 'block_stop', index: 1 },
      { type: 'finish', reason: 'tool_calls', stopSequence: null },
      { type: 'usage', usage: USAGE },
    ]);
    assert.deepEqual(
      frames.slice(1).map((f) => f.data),
      [
        { type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: 'call_a', name: 'read', input: {} } },
        { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '{"path":' } },
        { type: 'content_block_stop', index: 0 },
        { type: 'content_block_start', index: 1, content_block: { type: 'tool_use', id: 'call_b', name: 'read', input: {} } },
        { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '{"path":"b"}' } },
        { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '"a"}' } },
        { type: 'content_block_stop', index: 1 },
        {
          type: 'message_delta',
          delta: { stop_reason: 'tool_use', stop_sequence: null },
          usage: { input_tokens: 65, cache_creation_input_tokens: 5, cache_read_input_tokens: 30, output_tokens: 20 },
        },
        { type: 'message_stop' },
      ],
    );
  });

  test('a free-form (custom) tool call from a Responses upstream is sent whole as {"input": ...}', () => {
    const frames = encodeStream([
      CHAT_START,
      { type: 'block_start', index: 0, block: { type: 'tool_call', id: 'call_p', name: 'apply_patch', custom: true } },
      { type: 'arguments_delta', index: 0, json: '*** Begin' },
      { type: 'arguments_delta', index: 0, json: ' Patch' },
      { type: 'block_stop', index: 0 },
    ]);
    assert.deepEqual(
      frames.slice(1, 4).map((f) => f.data),
      [
        { type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: 'call_p', name: 'apply_patch', input: {} } },
        { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '{"input":"*** Begin Patch"}' } },
        { type: 'content_block_stop', index: 0 },
      ],
    );
  });

  test('an upstream error mid-stream: event error with Anthropic’s error body, nothing after', () => {
    const encoder = codec.createStreamEncoder(irRequest({ stream: true }));
    const frames = [
      CHAT_START,
      { type: 'block_start', index: 0, block: { type: 'text' } },
      { type: 'text_delta', index: 0, text: 'par' },
      { type: 'error', error: new GatewayError('GW_ERR_UPSTREAM_RATE_LIMITED', 'Rate limit reached') },
      { type: 'text_delta', index: 0, text: 'tial' },
    ].flatMap((e) => encoder.push(e as StreamEvent));
    assert.deepEqual(frames.at(-1), {
      event: 'error',
      data: JSON.stringify({ type: 'error', error: { type: 'rate_limit_error', message: 'Rate limit reached' } }),
    });
    assert.equal(frames.length, 4);
    assert.deepEqual(encoder.end(), []);
  });

  test('a decoded Anthropic stream encodes back to the same frames (pings aside)', () => {
    const upstream: Frame[] = [
      messageStart({ input_tokens: 10, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 1 }),
      blockStart(0, { type: 'thinking', thinking: '', signature: '' }),
      blockDelta(0, { type: 'thinking_delta', thinking: 'hm' }),
      blockDelta(0, { type: 'signature_delta', signature: 'SIG' }),
      blockStop(0),
      blockStart(1, { type: 'text', text: '' }),
      blockDelta(1, { type: 'text_delta', text: 'Calling.' }),
      blockStop(1),
      blockStart(2, { type: 'tool_use', id: 'toolu_1', name: 'f', input: {} }),
      blockDelta(2, { type: 'input_json_delta', partial_json: '{"a":1}' }),
      blockStop(2),
      messageDelta('tool_use', { input_tokens: 10, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 25 }),
      messageStop,
    ];
    const frames = encodeStream(decodeStream(upstream));
    assert.deepEqual(
      frames.map((f) => f.data),
      upstream.map(([, data]) => data),
    );
  });
});
