// The Chat Completions codec: chat requests to the IR and back, whole answers, streams both ways, errors.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { GatewayError } from '../../../../core/errors.js';
import { openaiChatCodec as codec } from '../../../../core/formats/openai-chat/codec.js';
import { createRequestDecoder } from '../../../../core/formats/openai-chat/request.js';
import { decodeFrameUsage } from '../../../../core/formats/openai-chat/usage.js';
import type { ChatRequest, Tool } from '../../../../core/ir/request.js';
import type { ChatResponse } from '../../../../core/ir/response.js';
import type { EncodedFrame, StreamEvent } from '../../../../core/ir/stream.js';
import type { Usage } from '../../../../core/ir/usage.js';
import { SseFrameParser } from '../../../../core/sse/frame-parser.js';
import { encodeFrame } from '../../../../core/sse/frame-writer.js';
import { BodyBytes } from '../../../../core/formats/body-bytes.js';
import { fixturePath } from '../../../helpers/repo-root.js';

const parse = createRequestDecoder();

/** A client body through the real request reader (JSON + schema check), then the codec. */
function decode(body: Record<string, unknown>): ChatRequest {
  return codec.decodeRequest(parse(BodyBytes.of(Buffer.from(JSON.stringify(body), 'utf8'))));
}

function encode(request: ChatRequest, model = 'gpt-upstream'): Record<string, unknown> {
  return JSON.parse(codec.encodeRequest(request, model).toString('utf8')) as Record<string, unknown>;
}

function baseRequest(overrides: Partial<ChatRequest>): ChatRequest {
  return {
    model: 'alias',
    messages: [],
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
    ...overrides,
  };
}

function rejects(fn: () => unknown, code: string, param: string | null): void {
  assert.throws(fn, (err: unknown) => err instanceof GatewayError && err.code === code && err.param === param);
}

/** Frames of an upstream stream body, as the relay hands them to the decoder (frames without data never do). */
function decodeStream(sse: string): { events: StreamEvent[]; end: () => readonly StreamEvent[] } {
  const decoder = codec.createStreamDecoder();
  const events: StreamEvent[] = [];
  for (const frame of new SseFrameParser().push(Buffer.from(sse, 'utf8'))) {
    if (frame.data !== null) events.push(...decoder.push(frame.event, frame.data));
  }
  return { events, end: () => decoder.end() };
}

function sse(chunks: readonly unknown[]): string {
  return chunks.map((c) => `data: ${typeof c === 'string' ? c : JSON.stringify(c)}\n\n`).join('');
}

function chunk(delta: Record<string, unknown>, finish: string | null = null): Record<string, unknown> {
  return { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1700, model: 'up-model', choices: [{ index: 0, delta, finish_reason: finish }] };
}

const USAGE: Usage = { promptTokens: 100, completionTokens: 20, cachedTokens: 60, cacheWriteTokens: 30, reasoningTokens: 5 };
const WIRE_USAGE = {
  prompt_tokens: 100,
  completion_tokens: 20,
  total_tokens: 120,
  prompt_tokens_details: { cached_tokens: 60, cache_write_tokens: 30 },
  completion_tokens_details: { reasoning_tokens: 5 },
};

function encodeStream(events: readonly StreamEvent[], request = baseRequest({ stream: true })): { frames: EncodedFrame[]; data: unknown[] } {
  const encoder = codec.createStreamEncoder(request);
  const frames = [...events.flatMap((e) => encoder.push(e)), ...(events.some((e) => e.type === 'error') ? [] : encoder.end())];
  return { frames, data: frames.map((f) => (f.data === '[DONE]' ? '[DONE]' : (JSON.parse(f.data) as unknown))) };
}

/** The `choices[0].delta` of every content chunk. */
function deltas(data: readonly unknown[]): unknown[] {
  return data.flatMap((d) => {
    const choices = (d as { choices?: { delta: unknown }[] }).choices;
    return choices !== undefined && choices.length > 0 ? [choices[0]?.delta] : [];
  });
}

describe('openai-chat decodeRequest', () => {
  it('reads a full agent turn: system and developer anywhere, images, reasoning, tool calls, tool results, options', () => {
    const request = decode({
      model: 'smart',
      stream: true,
      stream_options: { include_usage: true },
      messages: [
        { role: 'system', content: 'You are terse.' },
        { role: 'user', content: [{ type: 'text', text: 'What is in it?' }, { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBO', detail: 'low' } }] },
        {
          role: 'assistant',
          content: '',
          reasoning_content: 'Look it up.',
          tool_calls: [
            { id: 'call_1', type: 'function', function: { name: 'lookup', arguments: '{"q":"cat"}' } },
            { id: 'call_2', type: 'function', function: { name: 'fetch', arguments: '{"url":"https://x.test/a.png"}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'call_1', content: 'A cat.' },
        { role: 'tool', tool_call_id: 'call_2', content: [{ type: 'text', text: 'fetched' }] },
        { role: 'developer', content: [{ type: 'text', text: 'Answer in French.' }] },
        { role: 'assistant', content: null, refusal: 'I cannot.' },
      ],
      tools: [
        { type: 'function', function: { name: 'lookup', description: 'Search.', parameters: { type: 'object', properties: { q: { type: 'string' } } }, strict: true } },
        { type: 'function', function: { name: 'fetch' } },
      ],
      tool_choice: { type: 'function', function: { name: 'lookup' } },
      parallel_tool_calls: false,
      max_tokens: 500,
      max_completion_tokens: 1000,
      temperature: 0.2,
      top_p: 0.9,
      stop: 'END',
      response_format: { type: 'json_schema', json_schema: { name: 'answer', schema: { type: 'object' }, strict: true } },
      reasoning_effort: 'high',
      prompt_cache_key: 'thread-42',
      seed: 7,
    });
    assert.deepEqual(request, {
      model: 'smart',
      messages: [
        { role: 'system', parts: [{ type: 'text', text: 'You are terse.' }] },
        {
          role: 'user',
          parts: [
            { type: 'text', text: 'What is in it?' },
            { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'iVBO' }, detail: 'low' },
          ],
        },
        {
          role: 'assistant',
          parts: [
            { type: 'reasoning', text: 'Look it up.', proof: null },
            { type: 'tool_call', id: 'call_1', name: 'lookup', arguments: '{"q":"cat"}' },
            { type: 'tool_call', id: 'call_2', name: 'fetch', arguments: '{"url":"https://x.test/a.png"}' },
          ],
        },
        { role: 'tool', parts: [{ type: 'tool_result', callId: 'call_1', content: [{ type: 'text', text: 'A cat.' }], isError: false }] },
        { role: 'tool', parts: [{ type: 'tool_result', callId: 'call_2', content: [{ type: 'text', text: 'fetched' }], isError: false }] },
        { role: 'system', parts: [{ type: 'text', text: 'Answer in French.' }] },
        { role: 'assistant', parts: [{ type: 'text', text: 'I cannot.' }] },
      ],
      tools: [
        { kind: 'function', name: 'lookup', description: 'Search.', parameters: { type: 'object', properties: { q: { type: 'string' } } }, strict: true },
        { kind: 'function', name: 'fetch', description: null, parameters: { type: 'object', properties: {} }, strict: null },
      ],
      toolChoice: { type: 'tool', name: 'lookup' },
      parallelToolCalls: false,
      maxTokens: 1000,
      temperature: 0.2,
      topP: 0.9,
      stop: ['END'],
      responseFormat: { type: 'json_schema', name: 'answer', schema: { type: 'object' }, strict: true, description: null },
      reasoning: { effort: 'high', budgetTokens: null },
      stream: true,
      conversation: 'thread-42',
    });
  });

  it('reads a minimal body with defaults, max_tokens, stop arrays and json_object', () => {
    const request = decode({
      model: 'm',
      messages: [{ role: 'user', content: 'hi' }],
      max_tokens: 64,
      stop: ['a', 'b'],
      response_format: { type: 'json_object' },
      tool_choice: 'required',
    });
    assert.equal(request.maxTokens, 64);
    assert.deepEqual(request.stop, ['a', 'b']);
    assert.deepEqual(request.responseFormat, { type: 'json_object' });
    assert.deepEqual(request.toolChoice, { type: 'required' });
    assert.equal(request.stream, false);
    assert.equal(request.conversation, null);
    assert.equal(request.reasoning, null);
    assert.equal(decode({ model: 'm', messages: [{ role: 'user', content: 'x' }], response_format: { type: 'text' } }).responseFormat, null);
  });

  it('rejects what changes the answer shape or has no counterpart, naming the field', () => {
    const user = [{ role: 'user', content: 'hi' }];
    rejects(() => decode({ model: 'm', messages: user, n: 2 }), 'GW_ERR_TRANSLATION_UNSUPPORTED', 'n');
    rejects(() => decode({ model: 'm', messages: user, logprobs: true }), 'GW_ERR_TRANSLATION_UNSUPPORTED', 'logprobs');
    rejects(() => decode({ model: 'm', messages: user, tools: [{ type: 'custom', custom: { name: 'x' } }] }), 'GW_ERR_TRANSLATION_UNSUPPORTED', 'tools[0]');
    const audio = [{ role: 'user', content: [{ type: 'input_audio', input_audio: { data: 'AA', format: 'wav' } }] }];
    rejects(() => decode({ model: 'm', messages: audio }), 'GW_ERR_TRANSLATION_UNSUPPORTED', 'messages[0].content[0]');
    rejects(() => decode({ model: 'm', messages: [{ role: 'function', name: 'f', content: '1' }] }), 'GW_ERR_TRANSLATION_UNSUPPORTED', 'messages[0].role');
    rejects(() => decode({ model: 'm', messages: [{ role: 'tool', content: 'x' }] }), 'GW_ERR_REQUEST_MISSING_FIELD', 'messages[0].tool_call_id');
    rejects(() => decode({ model: 'm', messages: user, reasoning_effort: 'huge' }), 'GW_ERR_REQUEST_INVALID_FIELD', 'reasoning_effort');
    // n: 1 and logprobs: false are the defaults, not a request for anything.
    assert.equal(decode({ model: 'm', messages: user, n: 1, logprobs: false }).messages.length, 1);
  });
});

describe('openai-chat encodeRequest', () => {
  const read: Tool = { kind: 'function', name: 'read', description: null, parameters: { type: 'object', properties: { path: { type: 'string' } } }, strict: null };
  const conversation: ChatRequest = baseRequest({
    messages: [
      { role: 'system', parts: [{ type: 'text', text: 'Be terse.' }, { type: 'text', text: 'Use tools.' }] },
      { role: 'user', parts: [{ type: 'text', text: 'Show both files.' }] },
      {
        role: 'assistant',
        parts: [
          { type: 'reasoning', text: 'Two reads.', proof: { dialect: 'anthropic-messages', value: 'sig' } },
          { type: 'text', text: 'Reading.' },
          { type: 'tool_call', id: 'toolu_1', name: 'read', arguments: '{"path":"a.png"}' },
          { type: 'tool_call', id: 'toolu_2', name: 'apply_patch', arguments: '*** Begin Patch', custom: true },
        ],
      },
      {
        role: 'tool',
        parts: [
          {
            type: 'tool_result',
            callId: 'toolu_1',
            content: [{ type: 'text', text: 'the image:' }, { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'iVBO' } }],
            isError: false,
          },
        ],
      },
      { role: 'tool', parts: [{ type: 'tool_result', callId: 'toolu_2', content: [{ type: 'text', text: 'Done' }], isError: false, custom: true }] },
      { role: 'system', parts: [{ type: 'text', text: 'Now summarize.' }] },
    ],
    tools: [
      read,
      { kind: 'custom', name: 'apply_patch', description: 'Edit files.' },
      { kind: 'hosted', dialect: 'openai-responses', type: 'web_search', definition: { type: 'web_search' } },
    ],
    toolChoice: { type: 'auto' },
    parallelToolCalls: true,
    maxTokens: 4096,
    temperature: 0.5,
    stop: ['STOP'],
    reasoning: { effort: null, budgetTokens: 10000 },
    stream: true,
    conversation: 'c'.repeat(80),
  });

  it('writes messages in place, drops reasoning, moves tool-result images after the tool messages', () => {
    const body = encode(conversation);
    assert.deepEqual(body['messages'], [
      { role: 'system', content: 'Be terse.\n\nUse tools.' },
      { role: 'user', content: 'Show both files.' },
      {
        role: 'assistant',
        content: 'Reading.',
        tool_calls: [
          { id: 'toolu_1', type: 'function', function: { name: 'read', arguments: '{"path":"a.png"}' } },
          { id: 'toolu_2', type: 'function', function: { name: 'apply_patch', arguments: '{"input":"*** Begin Patch"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'toolu_1', content: 'the image:' },
      { role: 'tool', tool_call_id: 'toolu_2', content: 'Done' },
      { role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:image/png;base64,iVBO' } }] },
      { role: 'system', content: 'Now summarize.' },
    ]);
  });

  it('writes tools, options, effort from a budget, usage for streams and a hashed long cache key', () => {
    const body = encode(conversation);
    assert.equal(body['model'], 'gpt-upstream');
    assert.deepEqual(body['tools'], [
      { type: 'function', function: { name: 'read', parameters: { type: 'object', properties: { path: { type: 'string' } } } } },
      {
        type: 'function',
        function: {
          name: 'apply_patch',
          description: 'Edit files.\n\nPass the whole input of this tool as the string argument "input".',
          parameters: { type: 'object', properties: { input: { type: 'string' } }, required: ['input'] },
        },
      },
    ]);
    assert.equal(body['tool_choice'], 'auto');
    assert.equal(body['parallel_tool_calls'], true);
    assert.equal(body['max_completion_tokens'], 4096);
    assert.equal(body['max_tokens'], undefined);
    assert.equal(body['temperature'], 0.5);
    assert.deepEqual(body['stop'], ['STOP']);
    assert.equal(body['reasoning_effort'], 'high');
    assert.equal(body['stream'], true);
    assert.deepEqual(body['stream_options'], { include_usage: true });
    const key = body['prompt_cache_key'];
    assert.ok(typeof key === 'string' && key.length <= 64 && key !== 'c'.repeat(80));
    assert.equal(encode(conversation)['prompt_cache_key'], key, 'the digest is stable');
    assert.equal(encode(baseRequest({ conversation: 'thread-1' }))['prompt_cache_key'], 'thread-1');
  });

  it('maps effort budgets, leaves out tool options without tools, and rejects foreign hosted tools', () => {
    const effort = (budgetTokens: number): unknown => encode(baseRequest({ reasoning: { effort: null, budgetTokens } }))['reasoning_effort'];
    assert.deepEqual([effort(1024), effort(2048), effort(8192), effort(8193)], ['low', 'low', 'medium', 'high']);
    assert.equal(encode(baseRequest({ reasoning: { effort: 'none', budgetTokens: null } }))['reasoning_effort'], 'none');
    const noTools = encode(baseRequest({
      toolChoice: { type: 'tool', name: 'x' },
      parallelToolCalls: false,
      tools: [{ kind: 'hosted', dialect: 'anthropic-messages', type: 'web_search_20250305', definition: { type: 'web_search_20250305', name: 'web_search' } }],
    }));
    assert.deepEqual(Object.keys(noTools), ['model', 'messages', 'stream']);
    const bash = baseRequest({ tools: [{ kind: 'hosted', dialect: 'anthropic-messages', type: 'bash_20250124', definition: { type: 'bash_20250124', name: 'bash' } }] });
    assert.throws(() => encode(bash), (err: unknown) => err instanceof GatewayError && err.code === 'GW_ERR_TRANSLATION_UNSUPPORTED' && err.message.includes('"bash_20250124"'));
    const named = encode(baseRequest({ tools: [read], toolChoice: { type: 'tool', name: 'read' } }));
    assert.deepEqual(named['tool_choice'], { type: 'function', function: { name: 'read' } });
  });

  it('round-trips what Chat carries losslessly: decode(encode(x)) is x', () => {
    const request = baseRequest({
      model: 'gpt-upstream',
      messages: [
        { role: 'system', parts: [{ type: 'text', text: 'sys' }] },
        { role: 'user', parts: [{ type: 'text', text: 'look' }, { type: 'image', source: { kind: 'url', url: 'https://x.test/a.png' }, detail: 'high' }] },
        { role: 'assistant', parts: [{ type: 'text', text: 'ok' }, { type: 'tool_call', id: 'call_9', name: 'f', arguments: '{"a":1}' }] },
        { role: 'tool', parts: [{ type: 'tool_result', callId: 'call_9', content: [{ type: 'text', text: '1' }], isError: false }] },
        { role: 'assistant', parts: [{ type: 'text', text: 'done' }] },
      ],
      tools: [{ kind: 'function', name: 'f', description: 'd', parameters: { type: 'object', properties: {} }, strict: false }],
      toolChoice: { type: 'none' },
      parallelToolCalls: false,
      maxTokens: 10,
      temperature: 1,
      topP: 0.5,
      stop: ['x', 'y'],
      responseFormat: { type: 'json_schema', name: 'n', schema: { type: 'object' }, strict: null, description: 'why' },
      reasoning: { effort: 'low', budgetTokens: null },
      stream: true,
      conversation: 'k',
    });
    assert.deepEqual(decode(encode(request)), request);
  });
});

describe('openai-chat responses', () => {
  it('decodes an upstream completion with reasoning_content, tool calls and cache usage', () => {
    const body = {
      id: 'chatcmpl-abc',
      object: 'chat.completion',
      created: 1760000000,
      model: 'deepseek-reasoner',
      choices: [
        {
          index: 0,
          finish_reason: 'tool_calls',
          message: {
            role: 'assistant',
            content: 'Checking.',
            reasoning_content: 'Need the weather.',
            tool_calls: [{ id: 'call_a1', type: 'function', function: { name: 'lookup', arguments: '{"q":"cat"}' } }],
          },
        },
      ],
      usage: { ...WIRE_USAGE, prompt_tokens_details: { cached_tokens: 60 } },
    };
    const response = codec.decodeResponse(Buffer.from(JSON.stringify(body)));
    assert.deepEqual(response, {
      id: 'chatcmpl-abc',
      model: 'deepseek-reasoner',
      created: 1760000000,
      parts: [
        { type: 'reasoning', text: 'Need the weather.', proof: null },
        { type: 'text', text: 'Checking.' },
        { type: 'tool_call', id: 'call_a1', name: 'lookup', arguments: '{"q":"cat"}' },
      ],
      finish: 'tool_calls',
      stopSequence: null,
      usage: { ...USAGE, cacheWriteTokens: 0 },
    });
  });

  it('maps finish reasons, and a "stop" after tool calls to tool_calls', () => {
    const finish = (reason: string | null, calls = false): string => {
      const message = { role: 'assistant', content: 'x', ...(calls ? { tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{}' } }] } : {}) };
      const body = { id: 'i', model: 'm', created: 1, choices: [{ index: 0, message, finish_reason: reason }] };
      return codec.decodeResponse(Buffer.from(JSON.stringify(body))).finish;
    };
    assert.deepEqual(
      [finish('stop'), finish('length'), finish('tool_calls'), finish('function_call'), finish('content_filter'), finish('stop', true)],
      ['stop', 'length', 'tool_calls', 'tool_calls', 'content_filter', 'tool_calls'],
    );
  });

  it('throws upstream errors for error bodies sent with 200 and for non-answers', () => {
    const error = Buffer.from(JSON.stringify({ error: { message: 'Slow down', type: 'rate_limit_exceeded', param: null, code: null } }));
    assert.throws(() => codec.decodeResponse(error), (err: unknown) => err instanceof GatewayError && err.code === 'GW_ERR_UPSTREAM_RATE_LIMITED' && err.message === 'Slow down');
    assert.throws(() => codec.decodeResponse(Buffer.from('<html>')), (err: unknown) => err instanceof GatewayError && err.code === 'GW_ERR_UPSTREAM_ERROR');
    assert.throws(() => codec.decodeResponse(Buffer.from('{"object":"list"}')), (err: unknown) => err instanceof GatewayError && err.code === 'GW_ERR_UPSTREAM_ERROR');
  });

  it('encodes an answer of another dialect for a chat client', () => {
    const response: ChatResponse = {
      id: 'msg_01',
      model: 'claude-sonnet-4-5',
      created: 1700,
      parts: [
        { type: 'reasoning', text: 'Think.', proof: { dialect: 'anthropic-messages', value: 'sig' } },
        { type: 'reasoning', text: '', proof: { dialect: 'anthropic-messages', value: 'blob', redacted: true } },
        { type: 'text', text: 'Here ' },
        { type: 'text', text: 'you go.' },
        { type: 'tool_call', id: 'toolu_1', name: 'read', arguments: '{"path":"a"}' },
        { type: 'tool_call', id: 'call_2', name: 'apply_patch', arguments: 'raw patch', custom: true },
      ],
      finish: 'stop_sequence',
      stopSequence: 'END',
      usage: USAGE,
    };
    const body = JSON.parse(codec.encodeResponse(response, baseRequest({})).toString('utf8')) as unknown;
    assert.deepEqual(body, {
      id: 'chatcmpl-msg_01',
      object: 'chat.completion',
      created: 1700,
      model: 'claude-sonnet-4-5',
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: 'Here you go.',
            reasoning_content: 'Think.',
            tool_calls: [
              { id: 'toolu_1', type: 'function', function: { name: 'read', arguments: '{"path":"a"}' } },
              { id: 'call_2', type: 'function', function: { name: 'apply_patch', arguments: '{"input":"raw patch"}' } },
            ],
            refusal: null,
          },
          logprobs: null,
          finish_reason: 'stop',
        },
      ],
      usage: WIRE_USAGE,
    });
    const decoded = codec.decodeResponse(codec.encodeResponse({ ...response, parts: [{ type: 'text', text: 'hi' }], finish: 'length' }, baseRequest({})));
    assert.deepEqual([decoded.parts, decoded.finish, decoded.usage], [[{ type: 'text', text: 'hi' }], 'length', USAGE]);
  });
});

describe('openai-chat decodeError', () => {
  it('reads the OpenAI error body into the matching gateway error, keeping the upstream code', () => {
    const body = Buffer.from(JSON.stringify({ error: { message: 'Too long', type: 'invalid_request_error', param: 'messages', code: 'context_length_exceeded' } }));
    const err = codec.decodeError(400, body);
    assert.equal(err.code, 'GW_ERR_UPSTREAM_BAD_REQUEST');
    assert.equal(err.message, 'Too long');
    assert.equal(err.wireCode, 'context_length_exceeded');
    assert.equal(err.upstreamStatus, 400);
    assert.equal(codec.decodeError(429, Buffer.from('{"error":{"message":"quota","type":"insufficient_quota","code":"insufficient_quota"}}')).code, 'GW_ERR_UPSTREAM_RATE_LIMITED');
    assert.equal(codec.decodeError(404, Buffer.from('{"error":"no such model"}')).message, 'no such model');
    const html = codec.decodeError(502, Buffer.from('<html>Bad gateway</html>'));
    assert.equal(html.code, 'GW_ERR_UPSTREAM_ERROR');
    assert.equal(html.message, 'The upstream answered HTTP 502.');
    assert.equal(codec.decodeError(503, Buffer.from('')).code, 'GW_ERR_UPSTREAM_OVERLOADED');
  });
});

describe('openai-chat stream decoder', () => {
  it('decodes a recorded tool-call stream', () => {
    const { events, end } = decodeStream(readFileSync(fixturePath('sse/openai-chat-tool-call.sse'), 'utf8'));
    assert.deepEqual([...events, ...end()], [
      { type: 'start', id: 'chatcmpl-9xQ2mZ', model: 'gpt-4o-2024-08-06', created: 1718000000, usage: null },
      { type: 'block_start', index: 0, block: { type: 'tool_call', id: 'call_Qx7bN3', name: 'get_weather' } },
      { type: 'arguments_delta', index: 0, json: '{"city"' },
      { type: 'arguments_delta', index: 0, json: ':"Paris"}' },
      { type: 'block_stop', index: 0 },
      { type: 'finish', reason: 'tool_calls', stopSequence: null },
      { type: 'usage', usage: { promptTokens: 82, completionTokens: 17, cachedTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 } },
    ]);
  });

  it('decodes reasoning then text, with usage', () => {
    const { events, end } = decodeStream(sse([
      chunk({ role: 'assistant', content: '' }),
      chunk({ reasoning_content: 'Hmm, ' }),
      chunk({ reasoning: 'ok.' }),
      chunk({ content: 'Hel' }),
      chunk({ content: 'lo' }),
      chunk({}, 'stop'),
      { ...chunk({}), choices: [], usage: WIRE_USAGE },
      '[DONE]',
    ]));
    assert.deepEqual([...events, ...end()], [
      { type: 'start', id: 'chatcmpl-1', model: 'up-model', created: 1700, usage: null },
      { type: 'block_start', index: 0, block: { type: 'reasoning' } },
      { type: 'reasoning_delta', index: 0, text: 'Hmm, ' },
      { type: 'reasoning_delta', index: 0, text: 'ok.' },
      { type: 'block_stop', index: 0 },
      { type: 'block_start', index: 1, block: { type: 'text' } },
      { type: 'text_delta', index: 1, text: 'Hel' },
      { type: 'text_delta', index: 1, text: 'lo' },
      { type: 'block_stop', index: 1 },
      { type: 'finish', reason: 'stop', stopSequence: null },
      { type: 'usage', usage: USAGE },
    ]);
  });

  it('decodes text then two parallel tool calls, a late fragment of the first keeping its block index', () => {
    const { events, end } = decodeStream(sse([
      chunk({ role: 'assistant', content: 'Both.' }),
      chunk({ tool_calls: [{ index: 0, id: 'call_a', type: 'function', function: { name: 'read', arguments: '{"p":' } }] }),
      chunk({ tool_calls: [{ index: 1, id: 'call_b', type: 'function', function: { name: 'list', arguments: '{}' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '"a"}' } }] }),
      chunk({}, 'tool_calls'),
    ]));
    // No [DONE]: a finish_reason is a complete answer.
    assert.deepEqual([...events, ...end()], [
      { type: 'start', id: 'chatcmpl-1', model: 'up-model', created: 1700, usage: null },
      { type: 'block_start', index: 0, block: { type: 'text' } },
      { type: 'text_delta', index: 0, text: 'Both.' },
      { type: 'block_stop', index: 0 },
      { type: 'block_start', index: 1, block: { type: 'tool_call', id: 'call_a', name: 'read' } },
      { type: 'arguments_delta', index: 1, json: '{"p":' },
      { type: 'block_stop', index: 1 },
      { type: 'block_start', index: 2, block: { type: 'tool_call', id: 'call_b', name: 'list' } },
      { type: 'arguments_delta', index: 2, json: '{}' },
      { type: 'arguments_delta', index: 1, json: '"a"}' },
      { type: 'block_stop', index: 2 },
      { type: 'finish', reason: 'tool_calls', stopSequence: null },
    ]);
  });

  it('tells calls apart by id when a compatible server numbers every call 0 or sends no index', () => {
    const { events } = decodeStream(sse([
      chunk({ tool_calls: [{ index: 0, id: 'call_a', function: { name: 'a', arguments: '{}' } }] }),
      chunk({ tool_calls: [{ index: 0, id: 'call_b', function: { name: 'b', arguments: '{"x":' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '1}' } }] }),
      chunk({ tool_calls: [{ id: 'call_c', function: { name: 'c', arguments: '{}' } }] }),
      chunk({}, 'stop'),
    ]));
    const blocks = events.flatMap((e) => (e.type === 'block_start' && e.block.type === 'tool_call' ? [[e.index, e.block.id]] : []));
    assert.deepEqual(blocks, [[0, 'call_a'], [1, 'call_b'], [2, 'call_c']]);
    assert.deepEqual(events.filter((e) => e.type === 'arguments_delta'), [
      { type: 'arguments_delta', index: 0, json: '{}' },
      { type: 'arguments_delta', index: 1, json: '{"x":' },
      { type: 'arguments_delta', index: 1, json: '1}' },
      { type: 'arguments_delta', index: 2, json: '{}' },
    ]);
    // "stop" after tool calls: the client must still run them.
    assert.deepEqual(events.at(-1), { type: 'finish', reason: 'tool_calls', stopSequence: null });
  });

  it('turns an in-band error into one error event and nothing after', () => {
    const decoder = codec.createStreamDecoder();
    const before = decoder.push(null, JSON.stringify(chunk({ content: 'Hi' })));
    assert.equal(before.length, 3);
    const failed = decoder.push(null, JSON.stringify({ error: { message: 'Overloaded', type: 'server_error', code: 'overloaded' } }));
    assert.equal(failed.length, 1);
    const event = failed[0];
    assert.ok(event?.type === 'error');
    assert.equal(event.error.code, 'GW_ERR_UPSTREAM_OVERLOADED');
    assert.equal(event.error.message, 'Overloaded');
    assert.equal(event.error.upstreamStatus, null);
    assert.deepEqual(decoder.push(null, JSON.stringify(chunk({ content: 'more' }))), []);
    assert.deepEqual(decoder.end(), []);
  });

  it('throws GW_ERR_UPSTREAM_STREAM_BROKEN when the stream ends before a finish_reason or [DONE]', () => {
    const { events, end } = decodeStream(sse([chunk({ content: 'Hal' })]));
    assert.equal(events.length, 3);
    rejects(end, 'GW_ERR_UPSTREAM_STREAM_BROKEN', null);
    rejects(() => codec.createStreamDecoder().end(), 'GW_ERR_UPSTREAM_STREAM_BROKEN', null);
  });

  it('accepts [DONE] without a finish_reason as a stop, closing the open block', () => {
    const { events, end } = decodeStream(sse([chunk({ content: 'x' }), '[DONE]']));
    assert.deepEqual(end(), [{ type: 'block_stop', index: 0 }, { type: 'finish', reason: 'stop', stopSequence: null }]);
    assert.equal(events.length, 3);
  });
});

describe('openai-chat stream encoder', () => {
  const start: StreamEvent = { type: 'start', id: 'msg_01', model: 'claude-sonnet-4-5', created: 1700, usage: null };

  it('writes text and reasoning as deltas, the finish, then usage and [DONE]', () => {
    const { frames, data } = encodeStream([
      start,
      { type: 'block_start', index: 0, block: { type: 'reasoning' } },
      { type: 'reasoning_delta', index: 0, text: 'Think.' },
      { type: 'reasoning_proof', index: 0, proof: { dialect: 'anthropic-messages', value: 'sig' } },
      { type: 'block_stop', index: 0 },
      { type: 'block_start', index: 1, block: { type: 'text' } },
      { type: 'text_delta', index: 1, text: 'Hi' },
      { type: 'block_stop', index: 1 },
      { type: 'usage', usage: USAGE },
      { type: 'finish', reason: 'stop_sequence', stopSequence: 'END' },
    ]);
    assert.ok(frames.every((f) => f.event === undefined), 'chat frames are data-only');
    assert.deepEqual(data[0], {
      id: 'chatcmpl-msg_01',
      object: 'chat.completion.chunk',
      created: 1700,
      model: 'claude-sonnet-4-5',
      choices: [{ index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }],
    });
    assert.deepEqual(deltas(data), [{ role: 'assistant', content: '' }, { reasoning_content: 'Think.' }, { content: 'Hi' }, {}]);
    assert.equal((data[3] as { choices: { finish_reason: string }[] }).choices[0]?.finish_reason, 'stop');
    assert.deepEqual(data[4], { id: 'chatcmpl-msg_01', object: 'chat.completion.chunk', created: 1700, model: 'claude-sonnet-4-5', choices: [], usage: WIRE_USAGE });
    assert.equal(data[5], '[DONE]');
    assert.equal(data.length, 6);
    // The meter reads the usage chunk back and may drop it for clients that did not ask.
    const metered = decodeFrameUsage(encodeFrame(frames[4]?.data ?? ''));
    assert.deepEqual(metered, { usage: USAGE, usageOnly: true, final: true });
  });

  it('numbers two parallel tool calls 0 and 1, routing late fragments by block index', () => {
    const { data } = encodeStream([
      start,
      { type: 'block_start', index: 0, block: { type: 'text' } },
      { type: 'text_delta', index: 0, text: 'Both.' },
      { type: 'block_stop', index: 0 },
      { type: 'block_start', index: 1, block: { type: 'tool_call', id: 'toolu_a', name: 'read' } },
      { type: 'arguments_delta', index: 1, json: '{"p":' },
      { type: 'block_stop', index: 1 },
      { type: 'block_start', index: 2, block: { type: 'tool_call', id: 'toolu_b', name: 'list' } },
      { type: 'arguments_delta', index: 2, json: '{}' },
      { type: 'arguments_delta', index: 1, json: '"a"}' },
      { type: 'block_stop', index: 2 },
      { type: 'finish', reason: 'tool_calls', stopSequence: null },
    ]);
    assert.deepEqual(deltas(data), [
      { role: 'assistant', content: '' },
      { content: 'Both.' },
      { tool_calls: [{ index: 0, id: 'toolu_a', type: 'function', function: { name: 'read', arguments: '' } }] },
      { tool_calls: [{ index: 0, function: { arguments: '{"p":' } }] },
      { tool_calls: [{ index: 1, id: 'toolu_b', type: 'function', function: { name: 'list', arguments: '' } }] },
      { tool_calls: [{ index: 1, function: { arguments: '{}' } }] },
      { tool_calls: [{ index: 0, function: { arguments: '"a"}' } }] },
      {},
    ]);
    assert.equal((data[7] as { choices: { finish_reason: string }[] }).choices[0]?.finish_reason, 'tool_calls');
    // Usage is always written, zeros when the upstream said nothing.
    assert.deepEqual((data[8] as { usage: unknown }).usage, {
      prompt_tokens: 0,
      completion_tokens: 0,
      total_tokens: 0,
      prompt_tokens_details: { cached_tokens: 0, cache_write_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: 0 },
    });
  });

  it('sends a custom (free-form) call as {"input": ...} arguments once its block stops', () => {
    const { data } = encodeStream([
      start,
      { type: 'block_start', index: 0, block: { type: 'tool_call', id: 'call_p', name: 'apply_patch', custom: true } },
      { type: 'arguments_delta', index: 0, json: '*** Begin' },
      { type: 'arguments_delta', index: 0, json: ' Patch' },
      { type: 'block_stop', index: 0 },
      { type: 'finish', reason: 'tool_calls', stopSequence: null },
    ]);
    assert.deepEqual(deltas(data).slice(1, 3), [
      { tool_calls: [{ index: 0, id: 'call_p', type: 'function', function: { name: 'apply_patch', arguments: '' } }] },
      { tool_calls: [{ index: 0, function: { arguments: '{"input":"*** Begin Patch"}' } }] },
    ]);
  });

  it('writes an upstream error as a data frame with a top-level error, and nothing after', () => {
    const error = new GatewayError('GW_ERR_UPSTREAM_OVERLOADED', 'Overloaded', { wireCode: 'overloaded_error' });
    const { frames, data } = encodeStream([start, { type: 'block_start', index: 0, block: { type: 'text' } }, { type: 'text_delta', index: 0, text: 'Hi' }, { type: 'error', error }]);
    assert.equal(frames.length, 3);
    assert.deepEqual(data[2], { error: { message: 'Overloaded', type: 'server_error', param: null, code: 'overloaded_error' } });
  });

  it('carries a stream from a chat upstream to a chat client unchanged in substance', () => {
    const { events, end } = decodeStream(readFileSync(fixturePath('sse/openai-chat-tool-call.sse'), 'utf8'));
    const { data } = encodeStream([...events, ...end()]);
    assert.deepEqual(deltas(data), [
      { role: 'assistant', content: '' },
      { tool_calls: [{ index: 0, id: 'call_Qx7bN3', type: 'function', function: { name: 'get_weather', arguments: '' } }] },
      { tool_calls: [{ index: 0, function: { arguments: '{"city"' } }] },
      { tool_calls: [{ index: 0, function: { arguments: ':"Paris"}' } }] },
      {},
    ]);
    assert.equal((data[0] as { id: string }).id, 'chatcmpl-9xQ2mZ');
  });

  it('gives a chat client the reasoning text only: proofs have no field in Chat', () => {
    const { frames } = encodeStream([
      start,
      { type: 'block_start', index: 0, block: { type: 'reasoning' } },
      { type: 'reasoning_delta', index: 0, text: 'Secret plan.' },
      { type: 'reasoning_proof', index: 0, proof: { dialect: 'openai-responses', value: 'enc', id: 'rs_1' } },
      { type: 'block_stop', index: 0 },
      { type: 'finish', reason: 'stop', stopSequence: null },
    ]);
    const all = frames.map((f) => f.data).join('\n');
    assert.ok(all.includes('"reasoning_content":"Secret plan."'));
    assert.ok(!all.includes('"enc"') && !all.includes('rs_1') && !all.includes('gwrp1.'));
  });
});
