// Gemini streams both ways: a capture shaped as Gemini CLI's turns come back (thoughts, text, a signed call, a
// usage-only last chunk with running totals) decoded into IR events; signatures wherever they sit; in-band errors
// and streams that end without a finishReason; and the encoder's frames for a Gemini client.

import assert from 'node:assert/strict';
import { describe, it, test } from 'node:test';
import { GatewayError } from '../../core/errors.js';
import type { ChatRequest } from '../../core/ir/request.js';
import type { StreamEvent } from '../../core/ir/stream.js';
import { SseFrameParser } from '../../core/sse/frame-parser.js';
import { geminiCodec as codec } from './codec.js';

type Json = Record<string, unknown>;

/** Every event of an upstream's SSE bytes, split at `at` (a frame may be cut anywhere). */
function decodeSse(text: string, at = 0): StreamEvent[] {
  const bytes = Buffer.from(text, 'utf8');
  const parser = new SseFrameParser();
  const decoder = codec.createStreamDecoder();
  const frames = [...parser.push(bytes.subarray(0, at)), ...parser.push(bytes.subarray(at)), ...parser.end()];
  const out = frames.flatMap((f) => (f.data === null ? [] : decoder.push(f.event, f.data)));
  return [...out, ...decoder.end()];
}

const sse = (...chunks: unknown[]): string => chunks.map((c) => `data: ${JSON.stringify(c)}\r\n\r\n`).join('');

const chunk = (parts: unknown[] | null, more: Json = {}): Json => ({
  candidates: [Object.assign({}, parts === null ? {} : { content: { parts, role: 'model' } }, more['finishReason'] === undefined ? {} : { finishReason: more['finishReason'] }, { index: 0 })],
  ...(more['usageMetadata'] === undefined ? {} : { usageMetadata: more['usageMetadata'] }),
  modelVersion: 'gemini-2.5-pro',
  responseId: 'AbCd-12_x',
});

/** Shaped as a recorded Gemini CLI turn (reference section 4): running usage on every chunk, the last one usage-only. */
const CAPTURE = sse(
  chunk([{ text: '**Listing files**\n\nI should call `list_directory` on the ', thought: true }], { usageMetadata: { promptTokenCount: 8410, totalTokenCount: 8410 } }),
  chunk([{ text: 'project root.', thought: true }], { usageMetadata: { promptTokenCount: 8410, totalTokenCount: 8410 } }),
  chunk([{ text: 'Je regarde le répertoire 📁.' }], { usageMetadata: { promptTokenCount: 8410, candidatesTokenCount: 9, totalTokenCount: 8521, thoughtsTokenCount: 102 } }),
  chunk([{ functionCall: { name: 'list_directory', args: { dir_path: '.' } }, thoughtSignature: 'CpwCAdHtim8' }], {
    usageMetadata: { promptTokenCount: 8410, candidatesTokenCount: 24, totalTokenCount: 8536, thoughtsTokenCount: 102, cachedContentTokenCount: 8120 },
  }),
  chunk(null, { finishReason: 'STOP', usageMetadata: { promptTokenCount: 8410, candidatesTokenCount: 24, totalTokenCount: 8536, thoughtsTokenCount: 102, cachedContentTokenCount: 8120 } }),
);

test('a captured turn: start, thoughts, text, the signature as a proof before its call, finish, usage as running totals', () => {
  const events = decodeSse(CAPTURE);
  const usages = events.filter((e) => e.type === 'usage');
  assert.equal(usages.length, 5, 'one usage event per chunk that carries usage');
  assert.deepEqual(usages.at(-1), { type: 'usage', usage: { promptTokens: 8410, completionTokens: 126, cachedTokens: 8120, cacheWriteTokens: 0, reasoningTokens: 102 } });
  assert.deepEqual(
    events.filter((e) => e.type !== 'usage'),
    [
      { type: 'start', id: 'AbCd-12_x', model: 'gemini-2.5-pro', created: (events[0] as { created: number }).created, usage: null },
      { type: 'block_start', index: 0, block: { type: 'reasoning' } },
      { type: 'reasoning_delta', index: 0, text: '**Listing files**\n\nI should call `list_directory` on the ' },
      { type: 'reasoning_delta', index: 0, text: 'project root.' },
      { type: 'block_stop', index: 0 },
      { type: 'block_start', index: 1, block: { type: 'text' } },
      { type: 'text_delta', index: 1, text: 'Je regarde le répertoire 📁.' },
      { type: 'block_stop', index: 1 },
      { type: 'block_start', index: 2, block: { type: 'reasoning' } },
      { type: 'reasoning_proof', index: 2, proof: { dialect: 'gemini', value: 'CpwCAdHtim8' } },
      { type: 'block_stop', index: 2 },
      { type: 'block_start', index: 3, block: { type: 'tool_call', id: 'call_AbCd-12_x_0', name: 'list_directory' } },
      { type: 'arguments_delta', index: 3, json: '{"dir_path":"."}' },
      { type: 'block_stop', index: 3 },
      { type: 'finish', reason: 'tool_calls', stopSequence: null },
    ],
  );
  for (let at = 1; at < Buffer.byteLength(CAPTURE); at += 7) {
    assert.deepEqual(decodeSse(CAPTURE, at).slice(1), events.slice(1), `split at byte ${at}`);
  }
});

describe('signatures wherever they sit (pitfalls 1 and 3)', () => {
  const proofs = (events: readonly StreamEvent[]): unknown[] => events.flatMap((e) => (e.type === 'reasoning_proof' ? [e.proof.value] : []));
  const kinds = (events: readonly StreamEvent[]): string[] => events.flatMap((e) => (e.type === 'block_start' ? [e.block.type] : []));

  it('on the last chunk of a text answer: the text goes on after a proof block', () => {
    const events = decodeSse(sse(chunk([{ text: 'Hello, ' }]), chunk([{ text: 'world.', thoughtSignature: 'S1' }], { finishReason: 'STOP' })));
    assert.deepEqual(kinds(events), ['text', 'reasoning', 'text']);
    assert.deepEqual(proofs(events), ['S1']);
    assert.equal(events.flatMap((e) => (e.type === 'text_delta' ? [e.text] : [])).join(''), 'Hello, world.');
  });

  it('on an empty-text part, on a thought, on every step: none lost, placeholders dropped', () => {
    const events = decodeSse(
      sse(
        chunk([{ text: 'hmm', thought: true, thoughtSignature: 'T' }, { text: 'more', thought: true }]),
        chunk([{ functionCall: { id: 'a', name: 'f', args: {} }, thoughtSignature: 'A' }, { functionCall: { id: 'b', name: 'f', args: {} }, thoughtSignature: 'skip_thought_signature_validator' }]),
        chunk([{ text: '', thoughtSignature: 'E' }], { finishReason: 'STOP' }),
      ),
    );
    assert.deepEqual(proofs(events), ['T', 'A', 'E']);
    // The signed thought's block ends with its proof: later thought text is a block of its own.
    assert.deepEqual(kinds(events), ['reasoning', 'reasoning', 'reasoning', 'tool_call', 'tool_call', 'reasoning']);
  });

  it('a call repeated under its id is one call', () => {
    const call = { functionCall: { id: 'x', name: 'f', args: { a: 1 } }, thoughtSignature: 'S' };
    const events = decodeSse(sse(chunk([call]), chunk([{ functionCall: { id: 'x', name: 'f', args: { a: 1 } } }], { finishReason: 'STOP' })));
    assert.deepEqual(kinds(events), ['reasoning', 'tool_call']);
  });
});

describe('how a stream ends', () => {
  it('an in-band error is an error event, the last one', () => {
    const events = decodeSse(sse(chunk([{ text: 'par' }]), { error: { code: 429, message: 'Resource has been exhausted', status: 'RESOURCE_EXHAUSTED' } }, chunk([{ text: 'ignored' }])));
    const last = events.at(-1);
    assert.ok(last?.type === 'error');
    assert.deepEqual([last.error.code, last.error.message, last.error.wireCode], ['GW_ERR_UPSTREAM_RATE_LIMITED', 'Resource has been exhausted', 'RESOURCE_EXHAUSTED']);
    assert.equal(events.filter((e) => e.type === 'text_delta').length, 1);
  });

  it('without a finishReason it is broken; keepalives and a stray [DONE] are nothing', () => {
    assert.throws(() => decodeSse(sse(chunk([{ text: 'cut' }]))), (e: unknown) => e instanceof GatewayError && e.code === 'GW_ERR_UPSTREAM_STREAM_BROKEN');
    const events = decodeSse(`: keepalive\r\n\r\n${sse(chunk([{ text: 'ok' }], { finishReason: 'STOP' }))}data: [DONE]\r\n\r\n`);
    assert.deepEqual(events.at(-1), { type: 'finish', reason: 'stop', stopSequence: null });
  });

  it('a blocked prompt finishes as content_filter; a frame that is not JSON is an error', () => {
    const blocked = decodeSse(sse({ promptFeedback: { blockReason: 'SAFETY' }, usageMetadata: { promptTokenCount: 7, totalTokenCount: 7 }, modelVersion: 'g', responseId: 'r' }));
    assert.ok(blocked.some((e) => e.type === 'finish' && e.reason === 'content_filter'));
    const broken = decodeSse('data: {"candidates":\r\n\r\n');
    assert.equal(broken.at(-1)?.type, 'error');
  });
});

// ---------------------------------------------------------------------------------------------- encoder

const REQUEST: ChatRequest = {
  model: 'gemini-2.5-pro',
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
  stream: true,
  conversation: null,
};

function encodeEvents(events: readonly StreamEvent[]): Json[] {
  const encoder = codec.createStreamEncoder(REQUEST);
  const frames = [...events.flatMap((e) => encoder.push(e)), ...encoder.end()];
  for (const f of frames) assert.equal(f.event, undefined, 'no event names');
  return frames.map((f) => JSON.parse(f.data) as Json);
}

const partsOf = (c: Json): unknown => ((c['candidates'] as Json[])[0]?.['content'] as Json | undefined)?.['parts'];

test('encoder: text and thoughts as they come, a call whole at its stop with the proof before it, finish and usage last', () => {
  const proof = { dialect: 'anthropic-messages', value: 'sig' };
  const chunks = encodeEvents([
    { type: 'start', id: 'msg_1', model: 'claude-x', created: 1, usage: null },
    { type: 'block_start', index: 0, block: { type: 'reasoning' } },
    { type: 'reasoning_delta', index: 0, text: 'think' },
    { type: 'reasoning_proof', index: 0, proof },
    { type: 'block_stop', index: 0 },
    { type: 'block_start', index: 1, block: { type: 'text' } },
    { type: 'text_delta', index: 1, text: 'Hi' },
    { type: 'block_stop', index: 1 },
    { type: 'block_start', index: 2, block: { type: 'tool_call', id: 'toolu_1', name: 'ls' } },
    { type: 'arguments_delta', index: 2, json: '{"dir"' },
    { type: 'arguments_delta', index: 2, json: ':"."}' },
    { type: 'block_stop', index: 2 },
    { type: 'finish', reason: 'tool_calls', stopSequence: null },
    { type: 'usage', usage: { promptTokens: 100, cachedTokens: 80, cacheWriteTokens: 10, completionTokens: 30, reasoningTokens: 12 } },
  ]);
  assert.deepEqual(partsOf(chunks[0] as Json), [{ text: 'think', thought: true }]);
  assert.deepEqual(partsOf(chunks[1] as Json), [{ text: 'Hi' }]);
  const call = (partsOf(chunks[2] as Json) as Json[])[0] as Json;
  assert.deepEqual(call['functionCall'], { id: 'toolu_1', name: 'ls', args: { dir: '.' } });
  assert.match(call['thoughtSignature'] as string, /^gwrp1\./);
  assert.deepEqual(chunks[3], {
    candidates: [{ finishReason: 'STOP', index: 0 }],
    usageMetadata: { promptTokenCount: 100, candidatesTokenCount: 18, totalTokenCount: 130, cachedContentTokenCount: 80, thoughtsTokenCount: 12 },
    modelVersion: 'claude-x',
    responseId: 'msg_1',
  });
  assert.equal(chunks.length, 4);
  for (const c of chunks.slice(0, 3)) assert.ok(!('usageMetadata' in c) && (c['candidates'] as Json[])[0]?.['finishReason'] === undefined);
});

test('encoder: a proof with no call after it rides on the last chunk; a stream with nothing still finishes; an error is the last frame', () => {
  const trailing = encodeEvents([
    { type: 'start', id: 'r', model: 'm', created: 1, usage: null },
    { type: 'block_start', index: 0, block: { type: 'reasoning' } },
    { type: 'reasoning_proof', index: 0, proof: { dialect: 'openai-responses', value: 'enc' } },
    { type: 'block_stop', index: 0 },
    { type: 'finish', reason: 'length', stopSequence: null },
  ]);
  const last = (trailing.at(-1)?.['candidates'] as Json[])[0] as Json;
  assert.equal(last['finishReason'], 'MAX_TOKENS');
  assert.match(((last['content'] as Json)['parts'] as Json[])[0]?.['thoughtSignature'] as string, /^gwrp1\./);

  const empty = encodeEvents([]);
  assert.equal(empty.length, 1);
  assert.deepEqual((empty[0]?.['candidates'] as Json[])[0], { finishReason: 'STOP', index: 0 });

  const encoder = codec.createStreamEncoder(REQUEST);
  const frames = encoder.push({ type: 'error', error: new GatewayError('GW_ERR_UPSTREAM_OVERLOADED', 'Overloaded') });
  assert.deepEqual(JSON.parse(frames[0]?.data ?? ''), { error: { code: 503, message: 'Overloaded', status: 'UNAVAILABLE' } });
  assert.deepEqual(encoder.push({ type: 'text_delta', index: 0, text: 'x' }), []);
  assert.deepEqual(encoder.end(), [], 'no finish after an error');
});
