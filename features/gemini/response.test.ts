// Whole answers both ways, usage both ways (cache and thought tokens, candidates that already hold the thoughts),
// finish reasons both ways, and Gemini's errors (plain, in the array form, with a retry delay, not JSON at all).

import assert from 'node:assert/strict';
import { describe, it, test } from 'node:test';
import { GatewayError } from '../../core/errors.js';
import type { ChatRequest } from '../../core/ir/request.js';
import type { ChatResponse, FinishReason } from '../../core/ir/response.js';
import { geminiCodec as codec } from './codec.js';
import { readFinish, writeFinish } from './finish-reasons.js';
import { readUsageMetadata, writeUsageMetadata } from './ir-usage.js';

type Json = Record<string, unknown>;

const decode = (body: unknown): ChatResponse => codec.decodeResponse(Buffer.from(JSON.stringify(body), 'utf8'));

const REQUEST: ChatRequest = {
  model: 'm',
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
};

const encode = (response: Partial<ChatResponse>): Json =>
  JSON.parse(
    codec
      .encodeResponse({ id: 'msg_1', model: 'claude-x', created: 1, parts: [], finish: 'stop', stopSequence: null, usage: null, ...response }, REQUEST)
      .toString('utf8'),
  ) as Json;

/** The reference's answer (section 4). */
const ANSWER = {
  candidates: [
    {
      content: {
        role: 'model',
        parts: [
          { text: '**Planning**\nI need the file list.', thought: true },
          { functionCall: { name: 'list_directory', args: { dir_path: '.' } }, thoughtSignature: 'EpYC' },
        ],
      },
      finishReason: 'STOP',
      index: 0,
      safetyRatings: [{ category: 'HARM_CATEGORY_HARASSMENT', probability: 'NEGLIGIBLE' }],
    },
  ],
  promptFeedback: { safetyRatings: [] },
  usageMetadata: { promptTokenCount: 1200, cachedContentTokenCount: 1024, candidatesTokenCount: 20, thoughtsTokenCount: 150, toolUsePromptTokenCount: 0, totalTokenCount: 1370 },
  modelVersion: 'gemini-2.5-pro',
  responseId: 'mQvXaN',
};

test("decodeResponse: the reference's answer, the call's signature as a proof before it, the id made from the responseId", () => {
  const r = decode(ANSWER);
  assert.deepEqual([r.id, r.model, r.finish], ['mQvXaN', 'gemini-2.5-pro', 'tool_calls']);
  assert.deepEqual(r.parts, [
    { type: 'reasoning', text: '**Planning**\nI need the file list.', proof: null },
    { type: 'reasoning', text: '', proof: { dialect: 'gemini', value: 'EpYC' } },
    { type: 'tool_call', id: 'call_mQvXaN_0', name: 'list_directory', arguments: '{"dir_path":"."}' },
  ]);
  assert.deepEqual(r.usage, { promptTokens: 1200, completionTokens: 170, cachedTokens: 1024, cacheWriteTokens: 0, reasoningTokens: 150 });
});

test('decodeResponse: a blocked prompt, the JSON-array form, text signed on its part, a call repeated under its id', () => {
  const blocked = decode({ promptFeedback: { blockReason: 'PROHIBITED_CONTENT' }, usageMetadata: { promptTokenCount: 9, totalTokenCount: 9 } });
  assert.deepEqual([blocked.finish, blocked.parts], ['content_filter', []]);
  const pieces = decode([
    { candidates: [{ content: { role: 'model', parts: [{ text: 'Hel' }] }, index: 0 }], responseId: 'r1', modelVersion: 'g' },
    { candidates: [{ content: { role: 'model', parts: [{ text: 'lo', thoughtSignature: 'S' }, { functionCall: { id: 'k', name: 'f', args: {} } }, { functionCall: { id: 'k', name: 'f', args: {} } }] }, finishReason: 'MAX_TOKENS' }] },
  ]);
  assert.deepEqual(pieces.parts, [
    { type: 'text', text: 'Hel' },
    { type: 'reasoning', text: '', proof: { dialect: 'gemini', value: 'S' } },
    { type: 'text', text: 'lo' },
    { type: 'tool_call', id: 'k', name: 'f', arguments: '{}' },
  ]);
  assert.equal(pieces.finish, 'tool_calls', 'calls come whole: they are to be run even at MAX_TOKENS');
});

test('decodeResponse: an error with status 200 is that error; a body that is no answer is an upstream error', () => {
  assert.throws(() => decode({ error: { code: 429, message: 'quota', status: 'RESOURCE_EXHAUSTED' } }), (e: unknown) => e instanceof GatewayError && e.code === 'GW_ERR_UPSTREAM_RATE_LIMITED');
  for (const body of ['<html>', '{"choices":[]}', '[]']) {
    assert.throws(() => codec.decodeResponse(Buffer.from(body)), (e: unknown) => e instanceof GatewayError && e.code === 'GW_ERR_UPSTREAM_ERROR');
  }
});

describe('usage', () => {
  it('from Gemini: tool-use prompt counted as input, thoughts added to the candidates', () => {
    assert.deepEqual(readUsageMetadata({ promptTokenCount: 100, toolUsePromptTokenCount: 20, cachedContentTokenCount: 64, candidatesTokenCount: 30, thoughtsTokenCount: 50, totalTokenCount: 200 }), {
      promptTokens: 120,
      completionTokens: 80,
      cachedTokens: 64,
      cacheWriteTokens: 0,
      reasoningTokens: 50,
    });
  });

  it('from upstreams whose candidates already hold the thoughts (prompt + candidates = total): not counted twice', () => {
    assert.deepEqual(readUsageMetadata({ promptTokenCount: 100, candidatesTokenCount: 80, thoughtsTokenCount: 50, totalTokenCount: 180 })?.completionTokens, 80);
    assert.equal(readUsageMetadata(undefined), null);
    // An early stream chunk: the prompt only.
    assert.deepEqual(readUsageMetadata({ promptTokenCount: 100, totalTokenCount: 100 }), { promptTokens: 100, completionTokens: 0, cachedTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 });
  });

  it('to a Gemini client: all input in promptTokenCount (cache reads and writes), reasoning apart from the candidates', () => {
    assert.deepEqual(writeUsageMetadata({ promptTokens: 22022, cachedTokens: 20480, cacheWriteTokens: 1530, completionTokens: 300, reasoningTokens: 120 }), {
      promptTokenCount: 22022,
      candidatesTokenCount: 180,
      totalTokenCount: 22322,
      cachedContentTokenCount: 20480,
      thoughtsTokenCount: 120,
    });
    assert.deepEqual(writeUsageMetadata(null), { promptTokenCount: 0, candidatesTokenCount: 0, totalTokenCount: 0, cachedContentTokenCount: 0, thoughtsTokenCount: 0 });
  });

  it('round trip: what a Gemini client is told reads back as the same usage (but cache writes, which Gemini has no count for)', () => {
    const usage = { promptTokens: 5000, cachedTokens: 4096, cacheWriteTokens: 0, completionTokens: 900, reasoningTokens: 700 };
    assert.deepEqual(readUsageMetadata(writeUsageMetadata(usage)), usage);
  });
});

describe('finish reasons', () => {
  it('from Gemini', () => {
    const cases: [string, boolean, FinishReason][] = [
      ['STOP', false, 'stop'],
      ['STOP', true, 'tool_calls'],
      ['MAX_TOKENS', false, 'length'],
      ['SAFETY', false, 'content_filter'],
      ['RECITATION', true, 'content_filter'],
      ['PROHIBITED_CONTENT', false, 'content_filter'],
      ['OTHER', false, 'content_filter'],
      ['MALFORMED_FUNCTION_CALL', false, 'stop'],
      ['UNEXPECTED_TOOL_CALL', false, 'stop'],
      ['FINISH_REASON_UNSPECIFIED', false, 'stop'],
      ['SOMETHING_NEW', false, 'stop'],
    ];
    for (const [reason, calls, want] of cases) assert.equal(readFinish(reason, calls), want, `${reason} with calls: ${calls}`);
  });

  it('to Gemini, always one', () => {
    assert.deepEqual(
      (['stop', 'stop_sequence', 'tool_calls', 'length', 'content_filter'] as const).map(writeFinish),
      ['STOP', 'STOP', 'STOP', 'MAX_TOKENS', 'SAFETY'],
    );
  });
});

test("encodeResponse: one candidate, thoughts as thought parts, a proof on the next call (Gemini CLI keeps those), usage, ids as the IR's", () => {
  const body = encode({
    parts: [
      { type: 'reasoning', text: 'Let me look.', proof: { dialect: 'anthropic-messages', value: 'sigA' } },
      { type: 'text', text: 'Looking.' },
      { type: 'tool_call', id: 'toolu_1', name: 'ls', arguments: '{"dir":"."}' },
      { type: 'tool_call', id: 'toolu_2', name: 'ls', arguments: 'not json' },
    ],
    finish: 'tool_calls',
    usage: { promptTokens: 10, cachedTokens: 0, cacheWriteTokens: 0, completionTokens: 5, reasoningTokens: 2 },
  });
  const candidate = (body['candidates'] as Json[])[0] as Json;
  const parts = (candidate['content'] as Json)['parts'] as Json[];
  assert.deepEqual(parts.map((p) => Object.keys(p)), [['text', 'thought'], ['text'], ['functionCall', 'thoughtSignature'], ['functionCall']]);
  assert.match(parts[2]?.['thoughtSignature'] as string, /^gwrp1\./);
  assert.deepEqual(parts[3], { functionCall: { id: 'toolu_2', name: 'ls', args: {} } });
  assert.deepEqual([candidate['finishReason'], candidate['index'], body['modelVersion'], body['responseId']], ['STOP', 0, 'claude-x', 'msg_1']);
  assert.deepEqual(body['usageMetadata'], { promptTokenCount: 10, candidatesTokenCount: 3, totalTokenCount: 15, cachedContentTokenCount: 0, thoughtsTokenCount: 2 });
});

test('encodeResponse: with no call, the proof rides on the last part that is not a thought; with no part at all, on an empty text', () => {
  const proof = { dialect: 'openai-responses', value: 'enc', id: 'rs_1' };
  const last = encode({ parts: [{ type: 'reasoning', text: 'why', proof }, { type: 'text', text: 'Answer.' }] });
  const parts = ((last['candidates'] as Json[])[0]?.['content'] as Json)['parts'] as Json[];
  assert.deepEqual(parts.map((p) => p['thoughtSignature'] === undefined), [true, false]);
  const alone = encode({ parts: [{ type: 'reasoning', text: '', proof }], finish: 'length' });
  const candidate = (alone['candidates'] as Json[])[0] as Json;
  assert.deepEqual(((candidate['content'] as Json)['parts'] as Json[]).map((p) => p['text']), ['']);
  assert.equal(candidate['finishReason'], 'MAX_TOKENS');
  const filtered = encode({ parts: [], finish: 'content_filter' });
  assert.deepEqual((filtered['candidates'] as Json[])[0], { finishReason: 'SAFETY', index: 0 });
});

describe('errors', () => {
  const error = (status: number, body: unknown): GatewayError =>
    codec.decodeError(status, Buffer.from(typeof body === 'string' ? body : JSON.stringify(body), 'utf8'));
  const QUOTA = {
    error: {
      code: 429,
      message: 'You exceeded your current quota, please check your plan and billing details.',
      status: 'RESOURCE_EXHAUSTED',
      details: [
        { '@type': 'type.googleapis.com/google.rpc.QuotaFailure', violations: [{ quotaId: 'GenerateRequestsPerMinutePerProjectPerModel-FreeTier' }] },
        { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '14.5s' },
      ],
    },
  };

  it('a 429 keeps its class, message and status, and the retry delay Google asked', () => {
    const e = error(429, QUOTA);
    assert.deepEqual([e.code, e.status, e.message, e.wireCode, e.retryAfter, e.upstreamStatus], [
      'GW_ERR_UPSTREAM_RATE_LIMITED',
      429,
      'You exceeded your current quota, please check your plan and billing details.',
      'RESOURCE_EXHAUSTED',
      15,
      429,
    ]);
  });

  it('the one-element array of streamGenerateContent reads the same', () => {
    const e = error(429, [QUOTA]);
    assert.deepEqual([e.code, e.wireCode, e.retryAfter], ['GW_ERR_UPSTREAM_RATE_LIMITED', 'RESOURCE_EXHAUSTED', 15]);
  });

  it('each status class; a bad key keeps its ErrorInfo reason when there is no status', () => {
    assert.equal(error(400, { error: { code: 400, message: 'API key not valid.', status: 'INVALID_ARGUMENT' } }).code, 'GW_ERR_UPSTREAM_BAD_REQUEST');
    assert.equal(error(404, { error: { code: 404, message: 'models/x is not found', status: 'NOT_FOUND' } }).code, 'GW_ERR_UPSTREAM_NOT_FOUND');
    assert.equal(error(503, { error: { code: 503, message: 'The model is overloaded.', status: 'UNAVAILABLE' } }).code, 'GW_ERR_UPSTREAM_OVERLOADED');
    assert.equal(error(500, { error: { code: 500, message: 'Internal error', status: 'INTERNAL' } }).code, 'GW_ERR_UPSTREAM_ERROR');
    const key = error(400, { error: { code: 400, message: 'bad key', details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'API_KEY_INVALID' }] } });
    assert.equal(key.wireCode, 'API_KEY_INVALID');
  });

  it('a body that is not JSON tells the status alone', () => {
    const e = error(502, '<html>Bad Gateway</html>');
    assert.deepEqual([e.code, e.upstreamStatus], ['GW_ERR_UPSTREAM_ERROR', 502]);
    assert.match(e.message, /HTTP 502/);
  });
});
