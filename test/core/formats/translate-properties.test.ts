// Properties of the translation codecs (core's three and the Gemini feature's) over generated inputs: requests in
// the lossless subset survive encode -> decode in every dialect, and across dialects (A -> IR -> B -> IR); streams
// encoded by one codec and decoded by the same codec give back the same blocks, text, reasoning and tool arguments.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import type { CoreWireFormat } from '../../../core/formats/codecs.js';
import type { WireCodec } from '../../../core/formats/codec.js';
import { codecFor as coreCodec } from '../../../core/formats/codecs.js';
import type { ParsedRequest } from '../../../core/formats/format.js';
import type { Message, Part, ToolCallPart } from '../../../core/ir/message.js';
import type { ChatRequest, FunctionTool, Tool, ToolChoice } from '../../../core/ir/request.js';
import type { StreamEvent } from '../../../core/ir/stream.js';
import { SseFrameParser } from '../../../core/sse/frame-parser.js';
import { encodeFrame } from '../../../core/sse/frame-writer.js';
import { BodyBytes } from '../../../core/formats/body-bytes.js';
import { geminiCodec } from '../../../features/gemini/codec.js';

/** The Gemini feature's API, as a literal (its GEMINI_API is typed as any API name). */
const GEMINI = 'gemini' as const;
type WireFormat = CoreWireFormat | typeof GEMINI;
const FORMATS: readonly WireFormat[] = ['anthropic-messages', 'openai-chat', 'openai-responses', GEMINI];

function codecFor(format: WireFormat): WireCodec {
  return format === GEMINI ? geminiCodec : coreCodec(format);
}
const RUNS = 300;
/** Plain objects (fast-check may build null-prototype ones, which deepStrictEqual tells apart). */
const PLAIN = { noNullPrototype: true } as const;

// ------------------------------------------------------------------------------------------ arbitraries

/** Any non-empty text (every code point; empty texts are dropped by design, Anthropic rejects them). */
const text = fc.string({ unit: 'binary', minLength: 1, maxLength: 30 });
/** Names every dialect accepts (no `__`: that marks a flattened Responses namespace). */
const toolName = fc.stringMatching(/^[a-zA-Z][a-zA-Z0-9_-]{0,20}$/).filter((n) => !n.includes('__'));
const propertyName = fc.stringMatching(/^[a-z][a-z0-9_]{0,10}$/);
/** JSON-object arguments, as compact JSON text (Anthropic carries them as an object and writes them back compact). */
const argumentsJson = fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 }).map((o) => JSON.stringify(o));

const objectSchema = fc
  .record({
    properties: fc.uniqueArray(fc.tuple(propertyName, fc.constantFrom('string', 'number', 'integer', 'boolean')), { selector: (p) => p[0], maxLength: 4 }),
    required: fc.boolean(),
  }, PLAIN)
  .map(({ properties, required }) => ({
    type: 'object',
    properties: Object.fromEntries(properties.map(([name, type]) => [name, { type }])),
    ...(required && properties.length > 0 ? { required: properties.map(([name]) => name) } : {}),
  }));

const functionTool: fc.Arbitrary<FunctionTool> = fc.record({
  kind: fc.constant('function' as const),
  name: toolName,
  description: fc.option(text, { nil: null }),
  parameters: objectSchema,
  strict: fc.option(fc.boolean(), { nil: null }),
}, PLAIN);

const textParts = (min: number, max: number): fc.Arbitrary<Part[]> =>
  fc.array(text.map((t): Part => ({ type: 'text', text: t })), { minLength: min, maxLength: max });

interface Turn {
  /** The user message opening the turn; optional right after tool results (the model may simply go on). */
  readonly user: Part[] | null;
  readonly answer: string | null;
  readonly calls: readonly { readonly name: string; readonly args: string; readonly result: string }[];
}

const turn: fc.Arbitrary<Turn> = fc
  .record({
    user: fc.option(textParts(1, 2), { nil: null }),
    answer: fc.option(text, { nil: null }),
    calls: fc.array(fc.record({ name: toolName, args: argumentsJson, result: text }, PLAIN), { maxLength: 2 }),
  }, PLAIN)
  .filter((t) => t.answer !== null || t.calls.length > 0);

/** user, assistant (text, then calls), one tool message per call, ...: the conversation shape every dialect carries. */
function conversation(system: string | null, turns: readonly Turn[], trailingUser: Part[] | null, idPrefix: string): Message[] {
  const messages: Message[] = system === null ? [] : [{ role: 'system', parts: [{ type: 'text', text: system }] }];
  let lastHadCalls = false;
  turns.forEach((t, i) => {
    // Anthropic merges consecutive user turns, so a user message only follows an assistant or tool results.
    const user = t.user ?? (lastHadCalls ? null : [{ type: 'text' as const, text: `turn ${i}` }]);
    if (user !== null) messages.push({ role: 'user', parts: user });
    const calls: ToolCallPart[] = t.calls.map((c, k) => ({ type: 'tool_call', id: `${idPrefix}_${i}_${k}`, name: c.name, arguments: c.args }));
    messages.push({ role: 'assistant', parts: [...(t.answer === null ? [] : [{ type: 'text' as const, text: t.answer }]), ...calls] });
    t.calls.forEach((c, k) => {
      messages.push({ role: 'tool', parts: [{ type: 'tool_result', callId: `${idPrefix}_${i}_${k}`, content: [{ type: 'text', text: c.result }], isError: false }] });
    });
    lastHadCalls = calls.length > 0;
  });
  if (trailingUser !== null) messages.push({ role: 'user', parts: trailingUser });
  return messages;
}

const fraction = fc.integer({ min: 0, max: 100 }).map((n) => n / 100);

const request: fc.Arbitrary<ChatRequest> = fc
  .record({
    model: toolName,
    system: fc.option(text, { nil: null }),
    turns: fc.array(turn, { maxLength: 3 }),
    trailingUser: fc.option(textParts(1, 2), { nil: null }),
    idPrefix: fc.stringMatching(/^(call|toolu)_[A-Za-z0-9]{1,16}$/),
    tools: fc.uniqueArray(functionTool, { selector: (t) => t.name, maxLength: 3 }),
    choice: fc.constantFrom('none', 'auto', 'required', 'tool', null),
    choiceName: toolName,
    maxTokens: fc.option(fc.integer({ min: 1, max: 200_000 }), { nil: null }),
    temperature: fc.option(fraction, { nil: null }),
    topP: fc.option(fraction, { nil: null }),
    stop: fc.array(text, { maxLength: 3 }),
    stream: fc.boolean(),
    conversation: fc.option(fc.string({ unit: 'binary', minLength: 1, maxLength: 64 }).filter((s) => s.length <= 64), { nil: null }),
  }, PLAIN)
  .filter((r) => r.turns.length > 0 || r.trailingUser !== null)
  .map((r): ChatRequest => {
    const messages = conversation(r.system, r.turns, r.trailingUser, r.idPrefix);
    const choiceName = r.tools[0]?.name ?? r.choiceName;
    const toolChoice: ToolChoice | null = r.choice === null ? null : r.choice === 'tool' ? { type: 'tool', name: choiceName } : { type: r.choice };
    return {
      model: r.model,
      messages,
      tools: r.tools,
      toolChoice,
      parallelToolCalls: null,
      maxTokens: r.maxTokens,
      temperature: r.temperature,
      topP: r.topP,
      stop: r.stop,
      responseFormat: null,
      reasoning: null,
      stream: r.stream,
      conversation: r.conversation,
    };
  });

// ------------------------------------------------------------------------------------------ normalization

/**
 * What a round trip through `format` keeps of a request in the lossless subset, as the shared rules define it:
 * - every dialect: no tool_choice is sent without tools (the providers reject it);
 * - Anthropic: max_tokens is required (8192 when the IR has none); strict:false is its default and not sent;
 * - Responses: there is no `stop`; tools are non-strict unless asked (strict null is sent as false).
 * - Gemini: tools have no strict flag, and there is no conversation key (Gemini caches prefixes by itself).
 */
function normalize(format: WireFormat, ir: ChatRequest): ChatRequest {
  const tools = ir.tools.map((tool): Tool => {
    if (tool.kind !== 'function') return tool;
    if (format === 'anthropic-messages' && tool.strict === false) return { ...tool, strict: null };
    if (format === 'openai-responses' && tool.strict === null) return { ...tool, strict: false };
    if (format === GEMINI) return { ...tool, strict: null };
    return tool;
  });
  return {
    ...ir,
    tools,
    toolChoice: ir.tools.length === 0 ? null : ir.toolChoice,
    maxTokens: format === 'anthropic-messages' ? (ir.maxTokens ?? 8192) : ir.maxTokens,
    stop: format === 'openai-responses' ? [] : ir.stop,
    conversation: format === GEMINI ? null : ir.conversation,
  };
}

/**
 * The request a client of `format` would have sent, as the route's shallow decoder hands it to the codec. Gemini's
 * path names the model and the method says whether it streams: `ir` stands for the path.
 */
function parsed(format: WireFormat, raw: Buffer, ir: ChatRequest): ParsedRequest {
  const json = JSON.parse(raw.toString('utf8')) as Record<string, unknown>;
  if (format === GEMINI) return { raw: BodyBytes.of(raw), head: json, json, model: ir.model, stream: ir.stream, conversation: null };
  const metadata = json['metadata'];
  const key =
    format === 'anthropic-messages'
      ? typeof metadata === 'object' && metadata !== null
        ? (metadata as Record<string, unknown>)['user_id']
        : undefined
      : json['prompt_cache_key'];
  assert.equal(typeof json['model'], 'string', 'the encoded body names the model');
  return { raw: BodyBytes.of(raw), head: json, json, model: json['model'] as string, stream: json['stream'] === true, conversation: typeof key === 'string' ? key : null };
}

function roundTrip(codec: WireCodec, ir: ChatRequest): ChatRequest {
  return codec.decodeRequest(parsed(codec.format as WireFormat, codec.encodeRequest(ir, ir.model), ir));
}

describe('request round trips in the lossless subset', () => {
  for (const format of FORMATS) {
    it(`${format}: decode(encode(ir)) equals the normalized ir`, () => {
      const codec = codecFor(format);
      fc.assert(
        fc.property(request, (ir) => {
          assert.deepStrictEqual(roundTrip(codec, ir), normalize(format, ir));
        }),
        { numRuns: RUNS, includeErrorInReport: true },
      );
    });
  }

  for (const a of FORMATS) {
    for (const b of FORMATS.filter((f) => f !== a)) {
      it(`${a} -> IR -> ${b} -> IR equals the ir normalized by both`, () => {
        fc.assert(
          fc.property(request, (ir) => {
            const viaA = roundTrip(codecFor(a), ir);
            assert.deepStrictEqual(roundTrip(codecFor(b), viaA), normalize(b, normalize(a, ir)));
          }),
          { numRuns: RUNS, includeErrorInReport: true },
        );
      });
    }
  }
});

// ------------------------------------------------------------------------------------------ streams

const STREAM_REQUEST: ChatRequest = {
  model: 'gw-test-model',
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

type BlockKind = 'text' | 'reasoning' | 'tool_call';

interface Block {
  readonly kind: BlockKind;
  readonly content: string;
  readonly id?: string;
  readonly name?: string;
}

/** One codec's encoder writes the events as frames (bytes, as the relay writes them); the same codec's decoder reads them. */
function streamThrough(codec: WireCodec, events: readonly StreamEvent[]): StreamEvent[] {
  const encoder = codec.createStreamEncoder(STREAM_REQUEST);
  const frames = [...events.flatMap((e) => encoder.push(e)), ...encoder.end()];
  const bytes = Buffer.concat(frames.map((f) => encodeFrame(f.data, f.event).raw));
  const parser = new SseFrameParser();
  const decoder = codec.createStreamDecoder();
  const out: StreamEvent[] = [];
  for (const frame of [...parser.push(bytes), ...parser.end()]) {
    if (frame.data !== null) out.push(...decoder.push(frame.event, frame.data));
  }
  out.push(...decoder.end());
  return out;
}

/** Blocks as the events tell them, checking start first, indexes in order and every block closed. */
function blocksOf(events: readonly StreamEvent[]): Block[] {
  assert.equal(events[0]?.type, 'start', 'start is the first event');
  const blocks: { kind: BlockKind; content: string; id?: string; name?: string; open: boolean }[] = [];
  for (const e of events.slice(1)) {
    assert.notEqual(e.type, 'start', 'one start');
    assert.notEqual(e.type, 'error', 'no error');
    if (e.type === 'block_start') {
      assert.equal(e.index, blocks.length, 'block indexes go 0, 1, 2, ...');
      blocks.push(e.block.type === 'tool_call' ? { kind: 'tool_call', content: '', id: e.block.id, name: e.block.name, open: true } : { kind: e.block.type, content: '', open: true });
    } else if (e.type === 'text_delta' || e.type === 'reasoning_delta' || e.type === 'arguments_delta') {
      const block = blocks[e.index];
      assert.ok(block !== undefined, `a delta for block ${e.index}, which never started`);
      assert.equal(block.kind, e.type === 'text_delta' ? 'text' : e.type === 'reasoning_delta' ? 'reasoning' : 'tool_call');
      block.content += e.type === 'arguments_delta' ? e.json : e.text;
    } else if (e.type === 'block_stop') {
      const block = blocks[e.index];
      assert.ok(block?.open === true, `block_stop for block ${e.index}, which is not open`);
      block.open = false;
    }
  }
  assert.ok(blocks.every((b) => !b.open), 'every block is closed');
  return blocks.map(({ open: _open, ...block }) => block);
}

/** Chat has no block boundaries: adjacent text (or reasoning) blocks read back as one. */
function mergeAdjacent(blocks: readonly Block[]): Block[] {
  const out: Block[] = [];
  for (const block of blocks) {
    const last = out.at(-1);
    if (last !== undefined && block.kind !== 'tool_call' && last.kind === block.kind) out[out.length - 1] = { ...last, content: last.content + block.content };
    else out.push(block);
  }
  return out;
}

const delta = fc.string({ unit: 'binary', maxLength: 12 });

/** A block's content in random pieces (some empty), never empty as a whole. */
const pieces = (whole: fc.Arbitrary<string>): fc.Arbitrary<string[]> =>
  fc.tuple(whole, fc.array(fc.nat(), { maxLength: 5 })).map(([s, cuts]) => {
    const at = [...new Set(cuts.map((c) => c % (s.length + 1)))].sort((x, y) => x - y);
    return [0, ...at].map((from, i) => s.slice(from, at[i] ?? s.length));
  });

interface GenBlock {
  readonly kind: BlockKind;
  readonly deltas: readonly string[];
  readonly name: string;
}

const genBlock: fc.Arbitrary<GenBlock> = fc.oneof(
  fc.record({ kind: fc.constant<BlockKind>('text'), deltas: fc.array(delta, { minLength: 1, maxLength: 6 }), name: fc.constant('') }),
  fc.record({ kind: fc.constant<BlockKind>('reasoning'), deltas: fc.array(delta, { minLength: 1, maxLength: 6 }), name: fc.constant('') }),
  fc.record({ kind: fc.constant<BlockKind>('tool_call'), deltas: pieces(argumentsJson), name: toolName }),
).filter((b) => b.deltas.join('') !== '');

function eventsOf(blocks: readonly GenBlock[]): StreamEvent[] {
  const events: StreamEvent[] = [{ type: 'start', id: 'gen0001', model: 'gen-model', created: 1_760_000_000, usage: null }];
  blocks.forEach((b, index) => {
    events.push({ type: 'block_start', index, block: b.kind === 'tool_call' ? { type: 'tool_call', id: `call_gen${index}`, name: b.name } : { type: b.kind } });
    for (const d of b.deltas) {
      events.push(b.kind === 'text' ? { type: 'text_delta', index, text: d } : b.kind === 'reasoning' ? { type: 'reasoning_delta', index, text: d } : { type: 'arguments_delta', index, json: d });
    }
    events.push({ type: 'block_stop', index });
  });
  const tools = blocks.some((b) => b.kind === 'tool_call');
  events.push({ type: 'finish', reason: tools ? 'tool_calls' : 'stop', stopSequence: null });
  events.push({ type: 'usage', usage: { promptTokens: 10, completionTokens: 5, cachedTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 } });
  return events;
}

function expectedBlocks(blocks: readonly GenBlock[]): Block[] {
  return blocks.map((b, index) =>
    b.kind === 'tool_call' ? { kind: b.kind, content: b.deltas.join(''), id: `call_gen${index}`, name: b.name } : { kind: b.kind, content: b.deltas.join('') },
  );
}

describe('stream encoder -> decoder of one codec', () => {
  for (const format of FORMATS) {
    it(`${format}: random unicode text deltas come back as the same text`, () => {
      const codec = codecFor(format);
      fc.assert(
        fc.property(fc.array(delta, { minLength: 1, maxLength: 12 }), (deltas) => {
          const events = streamThrough(codec, eventsOf([{ kind: 'text', deltas, name: '' }]));
          const text = events.flatMap((e) => (e.type === 'text_delta' ? [e.text] : [])).join('');
          assert.equal(text, deltas.join(''));
        }),
        { numRuns: RUNS, includeErrorInReport: true },
      );
    });

    it(`${format}: text, reasoning and tool call blocks come back in order with their content`, () => {
      const codec = codecFor(format);
      fc.assert(
        fc.property(fc.array(genBlock, { minLength: 1, maxLength: 5 }), (blocks) => {
          const got = blocksOf(streamThrough(codec, eventsOf(blocks)));
          const want = expectedBlocks(blocks);
          // Chat and Gemini have no block boundaries: adjacent text (or reasoning) reads back as one block.
          if (format === 'openai-chat' || format === GEMINI) assert.deepStrictEqual(mergeAdjacent(got), mergeAdjacent(want));
          else assert.deepStrictEqual(got, want);
        }),
        { numRuns: RUNS, includeErrorInReport: true },
      );
    });
  }
});
