// Translated streams over recorded upstream fixtures: every upstream dialect's stream (text, reasoning, parallel
// tool calls, an error mid-stream) is translated to every other client format (core's three and the Gemini feature's),
// checked against what that client
// requires, compared with a golden output, and replayed split at every byte (inside multibyte UTF-8 too) with
// identical bytes out. UPDATE_GOLDEN=1 rewrites the goldens (after the client checks pass).

import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { CoreWireFormat } from '../../../core/formats/codecs.js';
import type { ErrorCode, GatewayError } from '../../../core/errors.js';
import type { WireCodec } from '../../../core/formats/codec.js';
import { codecFor } from '../../../core/formats/codecs.js';
import { StreamTranslation } from '../../../core/formats/translate-stream.js';
import type { ReasoningProof } from '../../../core/ir/message.js';
import { unwrapProof } from '../../../core/ir/proof-tag.js';
import type { ChatRequest } from '../../../core/ir/request.js';
import type { Usage } from '../../../core/ir/usage.js';
import { frameBatches } from '../../../core/sse/frame-batches.js';
import { answerCallId } from '../../../features/gemini/call-ids.js';
import { geminiCodec } from '../../../features/gemini/codec.js';
import { checkClientStream, type ClientStreamSummary } from '../../helpers/client-stream-checks.js';
import { checkGeminiStream } from '../../helpers/gemini-stream-checks.js';
import { fixtureUrl } from '../../helpers/repo-root.js';

const STREAMS = fixtureUrl('streams/');
const GOLDEN = fixtureUrl('golden/');
const UPDATE = process.env['UPDATE_GOLDEN'] === '1';

/** The Gemini feature's API, as a literal (its GEMINI_API is typed as any API name). */
const GEMINI = 'gemini' as const;
type WireFormat = CoreWireFormat | typeof GEMINI;
const FORMATS: readonly WireFormat[] = ['anthropic-messages', 'openai-chat', 'openai-responses', GEMINI];

function codecOf(format: WireFormat): WireCodec {
  return format === GEMINI ? geminiCodec : codecFor(format);
}

function checkStream(format: WireFormat, bytes: Buffer, expectError: boolean): ClientStreamSummary {
  return format === GEMINI ? checkGeminiStream(bytes, expectError) : checkClientStream(format, bytes, expectError);
}
type Case = 'text' | 'reasoning' | 'tools' | 'error';
const CASES: readonly Case[] = ['text', 'reasoning', 'tools', 'error'];

const WEATHER_SCHEMA = {
  type: 'object',
  properties: { city: { type: 'string' }, unit: { type: 'string', enum: ['celsius', 'fahrenheit'] } },
  required: ['city', 'unit'],
  additionalProperties: false,
};
const TIME_SCHEMA = {
  type: 'object',
  properties: { timezone: { type: 'string' }, city: { type: 'string' } },
  required: ['timezone', 'city'],
  additionalProperties: false,
};

/** What the client asked, in the IR; the Responses encoder names calls after these tools. */
const REQUEST: ChatRequest = {
  model: 'gw-test-model',
  messages: [
    { role: 'system', parts: [{ type: 'text', text: 'You are a concise assistant.' }] },
    { role: 'user', parts: [{ type: 'text', text: 'Quel temps fait-il à Paris, et quelle heure est-il à Tokyo ?' }] },
  ],
  tools: [
    { kind: 'function', name: 'get_weather', description: 'Current weather for a city.', parameters: WEATHER_SCHEMA, strict: true },
    { kind: 'function', name: 'get_time', description: 'Local time in an IANA time zone.', parameters: TIME_SCHEMA, strict: true },
  ],
  toolChoice: { type: 'auto' },
  parallelToolCalls: true,
  maxTokens: 4096,
  temperature: null,
  topP: null,
  stop: [],
  responseFormat: null,
  reasoning: { effort: 'medium', budgetTokens: null },
  stream: true,
  conversation: null,
};

// What every dialect's fixture of a case says (the fixtures share their content).
const TEXT = 'Voilà ! Le café crème est prêt. 東京の天気は晴れ、気温は18°Cです 🌤️. Bonne journée, naïve Zoë 👋🏽!';
const REASONING = 'The user asks about the weather in Paris. Météo-France says it is sunny; answer briefly.\n\nKeep it short: 晴れ, 18°C ☀️.';
const ANSWER = 'It’s sunny in Paris today — 18 °C, ideal for a café en terrasse ☀️.';
const PREAMBLE = 'Je vérifie la météo à Paris et l’heure à Tōkyō.';
const PARTIAL = 'Voici la réponse : le modèle a commencé à écri';
const CALL_ARGS = [
  { name: 'get_weather', args: { city: 'Paris', unit: 'celsius' } },
  { name: 'get_time', args: { timezone: 'Asia/Tokyo', city: '東京' } },
];

interface Expected {
  readonly text: string;
  readonly reasoning: string;
  readonly finish: 'stop' | 'tool_calls' | null;
  readonly calls: readonly { readonly name: string; readonly args: unknown }[];
}

const BY_CASE: Record<Case, Expected> = {
  text: { text: TEXT, reasoning: '', finish: 'stop', calls: [] },
  reasoning: { text: ANSWER, reasoning: REASONING, finish: 'stop', calls: [] },
  tools: { text: PREAMBLE, reasoning: '', finish: 'tool_calls', calls: CALL_ARGS },
  error: { text: PARTIAL, reasoning: '', finish: null, calls: [] },
};

const usage = (promptTokens: number, cachedTokens: number, cacheWriteTokens: number, completionTokens: number, reasoningTokens: number): Usage => ({
  promptTokens,
  cachedTokens,
  cacheWriteTokens,
  completionTokens,
  reasoningTokens,
});

interface UpstreamFacts {
  readonly models: Record<Case, string>;
  /** IR usage the fixture reports (promptTokens includes cache reads and writes). */
  readonly usage: Record<Exclude<Case, 'error'>, Usage>;
  readonly callIds: readonly [string, string];
  /** The reasoning proof of a case, and the reasoning text it goes with; none where the dialect gave none. */
  readonly proofs: Partial<Record<Case, { readonly proof: ReasoningProof; readonly text: string }>>;
  readonly error: { readonly code: ErrorCode; readonly message: string };
}

const ANTHROPIC_SIGNATURE =
  'EpMECkYIBxgCKkBq3m9sZ0lVdW1hY2hpbmVzIGRyZWFtIG9mIGVsZWN0cmljIHNoZWVwPz8/IG1heWJlLiBFbmQgb2Ygc2lnbmF0dXJlIGJs' +
  'b2NrIGZvciB0ZXN0aW5nEgwV7nK2kXq1c3ZkYWJhGgx0ZXN0aW5nLWJsb2IiMHRoaXMgaXMgbm90IGEgcmVhbCBzaWduYXR1cmUgYnV0IGl0IGxv' +
  'b2tzIGxpa2Ugb25lKhVzaWduYXR1cmUtcGxhY2Vob2xkZXIYAQ==';
const RESPONSES_ENCRYPTED =
  'gAAAAABo8cB3kq2Vd1xQm6T0yJ9LrW4nZsE8hP5uC7fA3bG2iK1oN6jM0vX9wY4tS8dR5eU3lH7pO2qI6cF1gB0aZ9yT4xW8vV3uK7sJ2nM5mL1kP6oQ0rE9iD' +
  '3hG8fC4bA2zY7wX1vU5tS9qR3pO6nM0lK4jI8hG2fE6dC0bA5zY9xW3vU7tS1rQ5pO9nM3lK7jI1hG5fE9dC3bA7zY1xW5vU9tS3rQ7pO1nM5lK9jI3hG7fE1dC5b=';

const GEMINI_ANSWER_SIGNATURE = 'CiQBjz1rX3P2m5Yq8Wc0nGZ7uJrHk4sVtQx9eLdAa2bC3dE4fGhIjKlMnOpQrStUvWxYz0123456789+/AbCdEfGhIjKlMnOpQrStUvWxYz==';
const GEMINI_CALL_SIGNATURE =
  'EpYCCpMCAdHtim9kR3bQ7wX2yZ5aB8cD1eF4gH6iJ9kL0mN3oP5qR7sT2uV4wX6yZ8aB0cD2eF4gH6iJ8kL0mN2oP4qR6sT8uV0wX2yZ4aB6cD8eF0gH2iJ4kL6mN8oP0qR2sT4uV6wX8yZ0==';

const FACTS: Record<WireFormat, UpstreamFacts> = {
  'anthropic-messages': {
    models: { text: 'claude-sonnet-4-5-20250929', reasoning: 'claude-sonnet-4-5-20250929', tools: 'claude-sonnet-4-5-20250929', error: 'claude-sonnet-4-5-20250929' },
    // input_tokens excludes cache reads and writes: 12 + 1530 + 20480, ...
    usage: { text: usage(22022, 20480, 1530, 41, 0), reasoning: usage(22022, 22010, 0, 187, 0), tools: usage(22068, 21750, 0, 126, 0) },
    callIds: ['toolu_01A09q90qw90lq917835lq9', 'toolu_01B7xkUj3pRzW8b2Qe5Tn6Hd'],
    proofs: { reasoning: { proof: { dialect: 'anthropic-messages', value: ANTHROPIC_SIGNATURE }, text: REASONING } },
    error: { code: 'GW_ERR_UPSTREAM_OVERLOADED', message: 'Overloaded' },
  },
  'openai-chat': {
    models: { text: 'gpt-4o-2024-08-06', reasoning: 'deepseek-reasoner', tools: 'gpt-4o-2024-08-06', error: 'gpt-4o-2024-08-06' },
    usage: { text: usage(1830, 1536, 0, 41, 0), reasoning: usage(1830, 1536, 0, 212, 160), tools: usage(2176, 1920, 0, 63, 0) },
    callIds: ['call_Qx7bN3mK9pLs2VdR8tYw1ZcF', 'call_Hn4Tj6Ye2Wq8Ua0Ko5Rb3Xs7'],
    proofs: {},
    error: { code: 'GW_ERR_UPSTREAM_ERROR', message: 'The server had an error while processing your request. Sorry about that!' },
  },
  'openai-responses': {
    models: { text: 'gpt-5-2025-08-07', reasoning: 'gpt-5-2025-08-07', tools: 'gpt-5-2025-08-07', error: 'gpt-5-2025-08-07' },
    usage: { text: usage(1830, 1536, 0, 41, 0), reasoning: usage(2410, 2048, 0, 212, 160), tools: usage(2688, 2304, 256, 63, 0) },
    callIds: ['call_Wd2Kx9Lm4Qz7Tn1Bv6Rj3Hs', 'call_Pf8Yc3Nq5Ua0Ge2Xo7Ki4Mt'],
    proofs: { reasoning: { proof: { dialect: 'openai-responses', value: RESPONSES_ENCRYPTED, id: 'rs_68f1c1b3a5f48190b2c3d4e5f6a7b8c9' }, text: REASONING } },
    error: {
      code: 'GW_ERR_UPSTREAM_ERROR',
      message:
        'An error occurred while processing your request. You can retry your request, or contact us through our help center at help.openai.com if the error persists. Please include the request ID req_7f3e2d1c0b9a8f7e6d5c4b3a2f1e0d9c in your message.',
    },
  },
  // Thoughts carry no signature; Gemini 3 signs the answer on a last empty-text part, and the first of parallel calls.
  [GEMINI]: {
    models: { text: 'gemini-2.5-flash', reasoning: 'gemini-3-pro-preview', tools: 'gemini-3-pro-preview', error: 'gemini-2.5-flash' },
    // candidatesTokenCount leaves the thoughts out: completion = candidates + thoughts.
    usage: { text: usage(1830, 1536, 0, 41, 0), reasoning: usage(1830, 1536, 0, 212, 160), tools: usage(2176, 1920, 0, 63, 0) },
    // The calls come without ids: they are named after the responseId.
    callIds: [answerCallId('pCzZaLsMNg3r8JPy9zS1lRt', 0), answerCallId('pCzZaLsMNg3r8JPy9zS1lRt', 1)],
    proofs: {
      reasoning: { proof: { dialect: GEMINI, value: GEMINI_ANSWER_SIGNATURE }, text: '' },
      tools: { proof: { dialect: GEMINI, value: GEMINI_CALL_SIGNATURE }, text: '' },
    },
    error: { code: 'GW_ERR_UPSTREAM_OVERLOADED', message: 'The model is overloaded. Please try again later.' },
  },
};

/** The finish each client's wire says for an IR finish. */
const FINISH_WORDS: Record<WireFormat, Record<'stop' | 'tool_calls', string>> = {
  'anthropic-messages': { stop: 'end_turn', tool_calls: 'tool_use' },
  'openai-chat': { stop: 'stop', tool_calls: 'tool_calls' },
  'openai-responses': { stop: 'completed', tool_calls: 'completed' },
  [GEMINI]: { stop: 'STOP', tool_calls: 'STOP' },
};

/** Anthropic error types of the gateway's error kinds (an upstream overload stays an overload). */
const ANTHROPIC_ERROR_TYPE: Partial<Record<ErrorCode, string>> = { GW_ERR_UPSTREAM_OVERLOADED: 'overloaded_error', GW_ERR_UPSTREAM_ERROR: 'api_error' };
/** Google's status names of the same (an upstream overload stays UNAVAILABLE). */
const GEMINI_ERROR_STATUS: Partial<Record<ErrorCode, string>> = { GW_ERR_UPSTREAM_OVERLOADED: 'UNAVAILABLE', GW_ERR_UPSTREAM_ERROR: 'UNAVAILABLE' };

async function* chunksOf(chunks: readonly Uint8Array[]): AsyncGenerator<Uint8Array> {
  for (const chunk of chunks) yield chunk;
}

interface Translated {
  readonly bytes: Buffer;
  readonly errors: readonly GatewayError[];
}

async function translate(upstream: WireFormat, client: WireFormat, chunks: readonly Uint8Array[]): Promise<Translated> {
  const out: Buffer[] = [];
  const errors: GatewayError[] = [];
  const hooks = {
    onUpstreamError: (e: GatewayError): GatewayError => {
      errors.push(e);
      return e;
    },
    // Every fixture ends with its dialect's terminal event: a broken stream here is a decoder bug.
    onBroken: (err: unknown): GatewayError => {
      throw err;
    },
  };
  const frames = frameBatches(chunksOf(chunks), new StreamTranslation(codecOf(upstream), codecOf(client), REQUEST, hooks));
  for await (const batch of frames) for (const frame of batch) out.push(Buffer.from(frame.raw));
  return { bytes: Buffer.concat(out), errors };
}

function checkContent(upstream: WireFormat, client: WireFormat, kase: Case, seen: ClientStreamSummary, errors: readonly GatewayError[]): void {
  const facts = FACTS[upstream];
  const expected = BY_CASE[kase];
  assert.equal(seen.model, facts.models[kase], 'the upstream model reaches the client');
  assert.equal(seen.text, expected.text, 'text deltas carry the upstream text exactly');
  // Chat clients get reasoning as reasoning_content; every client gets the upstream's reasoning text.
  assert.equal(seen.reasoning, expected.reasoning, 'reasoning text');
  assert.deepEqual(
    seen.toolCalls.map((c) => ({ id: c.id, name: c.name, args: JSON.parse(c.arguments) as unknown })),
    expected.calls.map((c, i) => ({ id: facts.callIds[i], name: c.name, args: c.args })),
    'tool calls: ids, names and arguments',
  );
  checkProofs(upstream, client, kase, seen);
  if (kase === 'error') {
    assert.equal(errors.length, 1, 'the upstream error is reported once');
    assert.equal(errors[0]?.code, facts.error.code, 'the upstream error class');
    assert.equal(errors[0]?.message, facts.error.message, 'the upstream error message');
    assert.equal(seen.error?.message, facts.error.message, 'the client sees the upstream message');
    if (client === 'anthropic-messages') assert.equal(seen.error?.type, ANTHROPIC_ERROR_TYPE[facts.error.code], 'Anthropic error type');
    if (client === GEMINI) assert.equal(seen.error?.type, GEMINI_ERROR_STATUS[facts.error.code], 'Gemini error status');
    return;
  }
  assert.equal(errors.length, 0, 'no upstream error');
  assert.equal(seen.error, null);
  assert.equal(seen.finish, expected.finish === null ? null : FINISH_WORDS[client][expected.finish], 'finish');
  const want = facts.usage[kase];
  const got = seen.usage;
  assert.ok(got !== null, 'the client is told the usage');
  assert.deepEqual(
    {
      promptTokens: got.promptTokens,
      completionTokens: got.completionTokens,
      cachedTokens: got.cachedTokens,
      cacheWriteTokens: got.cacheWriteTokens ?? want.cacheWriteTokens,
      reasoningTokens: got.reasoningTokens ?? want.reasoningTokens,
    },
    want,
    'usage, cache reads and writes mapped per the IR rules',
  );
}

/**
 * A foreign proof reaches Anthropic, Responses and Gemini clients wrapped (with its text); Chat clients lose it; no
 * proof, nothing.
 */
function checkProofs(upstream: WireFormat, client: WireFormat, kase: Case, seen: ClientStreamSummary): void {
  const expected = FACTS[upstream].proofs[kase];
  if (expected === undefined || client === 'openai-chat') {
    assert.deepEqual(seen.proofs, [], 'no reasoning proof given to the client');
    return;
  }
  assert.equal(seen.proofs.length, 1, 'one reasoning proof');
  const unwrapped = unwrapProof(seen.proofs[0] ?? '');
  assert.deepEqual(unwrapped, expected, 'the upstream proof, wrapped with its text');
}

function firstDifference(a: Buffer, b: Buffer): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return i;
  return n;
}

function assertSameBytes(got: Buffer, want: Buffer, what: string): void {
  if (got.equals(want)) return;
  const at = firstDifference(got, want);
  assert.fail(
    `${what}: output differs at byte ${at}:\n got: ${JSON.stringify(got.subarray(Math.max(0, at - 60), at + 60).toString('utf8'))}\nwant: ${JSON.stringify(want.subarray(Math.max(0, at - 60), at + 60).toString('utf8'))}`,
  );
}

function compareGolden(file: URL, bytes: Buffer): void {
  if (UPDATE) {
    if (!existsSync(file) || !readFileSync(file).equals(bytes)) {
      mkdirSync(new URL('.', file), { recursive: true });
      writeFileSync(file, bytes);
      console.log(`UPDATE_GOLDEN=1: wrote ${file.pathname}`);
    }
    return;
  }
  assert.ok(existsSync(file), `golden ${file.pathname} is missing: run with UPDATE_GOLDEN=1`);
  assertSameBytes(bytes, readFileSync(file), `golden ${file.pathname}`);
}

// Anthropic streams carry no timestamp: the decoder takes the clock's, so the clock is fixed for goldens.
// (A plain swap, not mock.method: that records every one of the ~100k calls.)
const realNow = Date.now;
before(() => {
  Date.now = () => 1_760_000_123_000;
});
after(() => {
  Date.now = realNow;
});

for (const upstream of FORMATS) {
  for (const kase of CASES) {
    describe(`${upstream}/${kase}.sse`, () => {
      const fixture = readFileSync(new URL(`${upstream}/${kase}.sse`, STREAMS));
      // Plain Uint8Array chunks, as a socket gives them (the parser must not rely on Buffer).
      const bytes = new Uint8Array(fixture);
      it('holds multibyte UTF-8, so some splits fall inside a character', () => {
        assert.ok(fixture.length > fixture.toString('utf8').length);
      });
      for (const client of FORMATS.filter((f) => f !== upstream)) {
        it(`to ${client}: client checks, golden, every byte split`, async () => {
          const whole = await translate(upstream, client, [bytes]);
          const seen = checkStream(client, whole.bytes, kase === 'error');
          checkContent(upstream, client, kase, seen, whole.errors);
          compareGolden(new URL(`${upstream}/${kase}.to-${client}.sse`, GOLDEN), whole.bytes);

          for (let p = 1; p < bytes.length; p++) {
            const split = await translate(upstream, client, [bytes.subarray(0, p), bytes.subarray(p)]);
            assertSameBytes(split.bytes, whole.bytes, `split at byte ${p}`);
          }
          const bytewise = await translate(upstream, client, Array.from({ length: bytes.length }, (_, i) => bytes.subarray(i, i + 1)));
          assertSameBytes(bytewise.bytes, whole.bytes, 'one byte per chunk');
          assert.equal(bytewise.errors.length, whole.errors.length, 'one byte per chunk: the same upstream errors');
        });
      }
    });
  }
}

/** The checks themselves: each mutation breaks one thing a client needs, and must be caught. */
describe('client checks reject what a client cannot read', () => {
  const golden = (name: string): string => readFileSync(new URL(name, GOLDEN), 'utf8');
  const rejects = (format: WireFormat, text: string, expectError = false): void => {
    assert.throws(() => checkStream(format, Buffer.from(text, 'utf8'), expectError), assert.AssertionError);
  };
  const withoutFrame = (text: string, pattern: RegExp): string => {
    const frames = text.split('\n\n');
    const at = frames.findIndex((f) => pattern.test(f));
    assert.ok(at >= 0, `no frame matches ${pattern}`);
    return frames.filter((_, i) => i !== at).join('\n\n');
  };

  it('Anthropic: a frame without its event: line, a missing message_stop, a delta for a closed block', () => {
    const text = golden('openai-chat/tools.to-anthropic-messages.sse');
    checkClientStream('anthropic-messages', Buffer.from(text, 'utf8'), false);
    rejects('anthropic-messages', text.replace('event: content_block_delta\n', ''));
    rejects('anthropic-messages', withoutFrame(text, /message_stop/));
    rejects('anthropic-messages', text.replace('"index":2,"delta"', '"index":1,"delta"'));
    rejects('anthropic-messages', withoutFrame(text, /message_delta/));
  });

  it('Chat: no [DONE], an event: line, a tool call index skipped, [DONE] after an error', () => {
    const text = golden('anthropic-messages/tools.to-openai-chat.sse');
    checkClientStream('openai-chat', Buffer.from(text, 'utf8'), false);
    rejects('openai-chat', withoutFrame(text, /\[DONE\]/));
    rejects('openai-chat', `event: chunk\n${text}`);
    rejects('openai-chat', text.replace('"index":1,"id"', '"index":2,"id"'));
    rejects('openai-chat', `${golden('anthropic-messages/error.to-openai-chat.sse')}data: [DONE]\n\n`, true);
  });

  it('Responses: a sequence_number gap, an item never done, a terminal event missing', () => {
    const text = golden('openai-chat/tools.to-openai-responses.sse');
    checkClientStream('openai-responses', Buffer.from(text, 'utf8'), false);
    rejects('openai-responses', text.replace('"sequence_number":3,', '"sequence_number":4,'));
    rejects('openai-responses', withoutFrame(text, /output_item\.done.*"output_index":2/));
    rejects('openai-responses', withoutFrame(text, /response\.completed/));
    rejects('openai-responses', withoutFrame(golden('openai-chat/error.to-openai-responses.sse'), /response\.failed/), true);
  });

  it('Gemini: an event: line, [DONE], no finishReason, a call without an id, two data fields in a part', () => {
    const text = golden('anthropic-messages/tools.to-gemini.sse');
    checkGeminiStream(Buffer.from(text, 'utf8'), false);
    rejects(GEMINI, `event: chunk\n${text}`);
    rejects(GEMINI, `${text}data: [DONE]\n\n`);
    rejects(GEMINI, text.replace('"finishReason":"STOP",', ''));
    rejects(GEMINI, text.replace('"functionCall":{"id":"toolu_01A09q90qw90lq917835lq9",', '"functionCall":{'));
    rejects(GEMINI, text.replace('{"text":"Je', '{"functionCall":{},"text":"Je'));
  });
});
