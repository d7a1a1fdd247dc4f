// What each client requires of a stream written in its format (Claude Code and the Anthropic SDK, the OpenAI
// SDK, Codex), checked frame by frame; each checker also returns what the client would have understood (text,
// reasoning, tool calls, usage, finish, error), so a test can compare it with what the upstream said.

import assert from 'node:assert/strict';
import type { CoreWireFormat as WireFormat } from '../../core/formats/codecs.js';
import { SseFrameParser } from '../../core/sse/frame-parser.js';

/** `arguments`: JSON text (a custom tool call: its raw input). */
export interface ToolCallSeen { readonly id: string; readonly name: string; readonly arguments: string }

/** Usage in IR terms as the client's wire reported it; null where the format has no such count. */
export interface UsageSeen {
  readonly promptTokens: number; readonly completionTokens: number; readonly cachedTokens: number;
  readonly cacheWriteTokens: number | null; readonly reasoningTokens: number | null;
}

export interface ClientStreamSummary {
  readonly model: string;
  readonly text: string;
  /** Reasoning text; several summary parts or blocks joined with "\n\n" (a block with a proof alone adds none). */
  readonly reasoning: string;
  /** Anthropic signatures / Responses encrypted_content given to the client, in order. */
  readonly proofs: readonly string[];
  readonly toolCalls: readonly ToolCallSeen[];
  /** The last usage the client was told; null when none. */
  readonly usage: UsageSeen | null;
  /** stop_reason / finish_reason / terminal response status; null when the stream ended in an error. */
  readonly finish: string | null;
  /** The in-band error: Anthropic error.type, OpenAI error.type (chat) or code (Responses). */
  readonly error: { readonly type: string; readonly message: string } | null;
}

type Json = Record<string, unknown>;
type ErrorSeen = ClientStreamSummary['error'];

interface Frame { readonly event: string | null; readonly data: string }

const FRAME_SHAPE = /^(event: [^\n]+\n)?(data: [^\n]*\n)+\n$/;

/** The frames of a whole stream, each checked to be one well-formed `event:`/`data:` block ended by a blank line. */
export function readFrames(bytes: Buffer): Frame[] {
  const parser = new SseFrameParser();
  const frames = [...parser.push(bytes), ...parser.end()];
  assert.ok(frames.length > 0, 'the stream has no frames');
  return frames.map((f, i) => {
    const raw = Buffer.from(f.raw).toString('utf8');
    assert.match(raw, FRAME_SHAPE, `frame ${i} is not one whole event/data block: ${JSON.stringify(raw)}`);
    assert.ok(f.data !== null, `frame ${i} has no data`);
    return { event: f.event, data: f.data };
  });
}

export function parse(data: string, where: string): Json {
  try {
    return obj(JSON.parse(data), where);
  } catch (err) {
    if (err instanceof SyntaxError) assert.fail(`${where}: data is not JSON: ${data}`);
    throw err;
  }
}

export function obj(value: unknown, where: string): Json {
  assert.ok(typeof value === 'object' && value !== null && !Array.isArray(value), `${where}: expected an object, got ${JSON.stringify(value)}`);
  return value as Json;
}

export function str(value: unknown, where: string): string {
  assert.ok(typeof value === 'string', `${where}: expected a string, got ${JSON.stringify(value)}`);
  return value;
}

export function arr(value: unknown, where: string): unknown[] {
  assert.ok(Array.isArray(value), `${where}: expected an array, got ${JSON.stringify(value)}`);
  return value;
}

/** Counts (non-negative integers) read from `value`; `path` may go one object deep (`details.cached`). */
export function counts(value: unknown, where: string, paths: readonly string[]): number[] {
  const u = obj(value, where);
  return paths.map((path) => {
    const [outer = '', inner] = path.split('.');
    const n = inner === undefined ? u[outer] : obj(u[outer], `${where}.${outer}`)[inner];
    assert.ok(typeof n === 'number' && Number.isInteger(n) && n >= 0, `${where}.${path}: expected a count, got ${JSON.stringify(n)}`);
    return n;
  });
}

export function checkClientStream(format: WireFormat, bytes: Buffer, expectError: boolean): ClientStreamSummary {
  const checkers = { 'anthropic-messages': checkAnthropicStream, 'openai-chat': checkChatStream, 'openai-responses': checkResponsesStream };
  return checkers[format](bytes, expectError);
}

// ---------------------------------------------------------------------------------------------- Anthropic

const STOP_REASONS = new Set(['end_turn', 'max_tokens', 'stop_sequence', 'tool_use', 'pause_turn', 'refusal']);
const ANTHROPIC_ERROR_TYPES = new Set(
  'invalid_request_error authentication_error billing_error permission_error not_found_error request_too_large rate_limit_error api_error timeout_error overloaded_error'.split(' '),
);

function anthropicUsage(value: unknown, where: string): UsageSeen {
  const [input = 0, write = 0, read = 0, output = 0] = counts(value, where, ['input_tokens', 'cache_creation_input_tokens', 'cache_read_input_tokens', 'output_tokens']);
  // output_tokens_details.thinking_tokens: newer API versions' count of reasoning tokens, when known.
  const details = obj(value, where)['output_tokens_details'];
  const reasoning = details === undefined ? null : (counts(details, `${where}.output_tokens_details`, ['thinking_tokens'])[0] ?? null);
  return { promptTokens: input + write + read, completionTokens: output, cachedTokens: read, cacheWriteTokens: write, reasoningTokens: reasoning };
}

interface OpenBlock { readonly index: number; readonly type: string; readonly id: string; readonly name: string; body: string; signature: string | null }

/** The SDK dispatches on `event:`; message_start with usage, blocks opened/filled/closed in index order, message_delta with usage, message_stop. */
export function checkAnthropicStream(bytes: Buffer, expectError: boolean): ClientStreamSummary {
  const datas = readFrames(bytes).map((f, i) => {
    const d = parse(f.data, `frame ${i}`);
    assert.equal(f.event, d['type'], `frame ${i}: the event: line must equal data.type`);
    return d;
  });
  assert.equal(datas[0]?.['type'], 'message_start', 'the first frame must be message_start');
  const message = obj(datas[0]?.['message'], 'message_start.message');
  assert.match(str(message['id'], 'message.id'), /^msg_/, 'message id starts with msg_');
  const { type, role, content, stop_reason, stop_sequence } = message;
  assert.deepEqual({ type, role, content, stop_reason, stop_sequence }, { type: 'message', role: 'assistant', content: [], stop_reason: null, stop_sequence: null });
  const model = str(message['model'], 'message.model');
  let usage: UsageSeen | null = anthropicUsage(message['usage'], 'message_start.message.usage');

  let text = '';
  const reasoning: string[] = [];
  const proofs: string[] = [];
  const toolCalls: ToolCallSeen[] = [];
  let open: OpenBlock | null = null;
  const openIndex = (): string => (open === null ? 'none' : String(open.index));
  let finish: string | null = null;
  let error: ErrorSeen = null;
  let blocks = 0;
  const collect = (block: OpenBlock): void => {
    if (block.type === 'text') text += block.body;
    else if (block.type === 'tool_use') toolCalls.push({ id: block.id, name: block.name, arguments: block.body === '' ? '{}' : block.body });
    else {
      reasoning.push(block.body);
      if (block.signature !== null) proofs.push(block.signature);
    }
  };

  for (let i = 1; i < datas.length; i++) {
    const d = datas[i] ?? {};
    const where = `frame ${i} (${String(d['type'])})`;
    assert.ok(error === null, `${where}: a frame after the error frame`);
    assert.ok(datas[i - 1]?.['type'] !== 'message_stop', `${where}: a frame after message_stop`);
    switch (d['type']) {
      case 'ping':
        break;
      case 'content_block_start': {
        assert.equal(open, null, `${where}: a block starts while block ${openIndex()} is open`);
        assert.equal(finish, null, `${where}: a block starts after message_delta`);
        assert.equal(d['index'], blocks, `${where}: block indexes go 0, 1, 2, ...`);
        const block = obj(d['content_block'], `${where}.content_block`);
        const blockType = str(block['type'], `${where}.content_block.type`);
        const started: OpenBlock = { index: blocks++, type: blockType, id: '', name: '', body: '', signature: null };
        if (blockType === 'text') assert.deepEqual(block, { type: 'text', text: '' }, `${where}: a text block starts empty`);
        else if (blockType === 'thinking') assert.deepEqual(block, { type: 'thinking', thinking: '', signature: '' }, `${where}: a thinking block starts empty`);
        else if (blockType === 'redacted_thinking') started.signature = str(block['data'], `${where}.data`);
        else {
          assert.equal(blockType, 'tool_use', `${where}: block type`);
          assert.deepEqual(block['input'], {}, `${where}: tool_use input starts as {}`);
          const id = str(block['id'], `${where}.id`);
          const name = str(block['name'], `${where}.name`);
          assert.ok(id !== '' && name !== '', `${where}: tool_use has an id and a name`);
          open = { ...started, id, name };
          break;
        }
        open = started;
        break;
      }
      case 'content_block_delta': {
        assert.ok(open !== null && d['index'] === open.index, `${where}: delta for block ${String(d['index'])}, open block ${openIndex()}`);
        const delta = obj(d['delta'], `${where}.delta`);
        const kind: string = `${open.type}/${String(delta['type'])}`;
        if (kind === 'text/text_delta') open.body += str(delta['text'], `${where}.delta.text`);
        else if (kind === 'tool_use/input_json_delta') open.body += str(delta['partial_json'], `${where}.delta.partial_json`);
        else if (kind === 'thinking/thinking_delta') {
          assert.equal(open.signature, null, `${where}: thinking after the signature`);
          open.body += str(delta['thinking'], `${where}.delta.thinking`);
        } else {
          assert.equal(kind, 'thinking/signature_delta', `${where}: that delta does not belong in that block`);
          assert.equal(open.signature, null, `${where}: a second signature_delta`);
          open.signature = str(delta['signature'], `${where}.delta.signature`);
          assert.notEqual(open.signature, '', `${where}: an empty signature is never sent as a delta`);
        }
        break;
      }
      case 'content_block_stop':
        assert.ok(open !== null && d['index'] === open.index, `${where}: stop of block ${String(d['index'])}, open block ${openIndex()}`);
        collect(open);
        open = null;
        break;
      case 'message_delta': {
        assert.equal(open, null, `${where}: message_delta while block ${openIndex()} is open`);
        const delta = obj(d['delta'], `${where}.delta`);
        finish = str(delta['stop_reason'], `${where}.delta.stop_reason`);
        assert.ok(STOP_REASONS.has(finish) && 'stop_sequence' in delta, `${where}: stop_reason ${finish} and stop_sequence`);
        usage = anthropicUsage(d['usage'], `${where}.usage`);
        break;
      }
      case 'message_stop':
        assert.ok(!expectError, `${where}: the stream should have ended in an error`);
        assert.notEqual(finish, null, `${where}: message_stop without a message_delta`);
        break;
      case 'error': {
        assert.ok(expectError, `${where}: unexpected error frame ${JSON.stringify(d)}`);
        const e = obj(d['error'], `${where}.error`);
        error = { type: str(e['type'], `${where}.error.type`), message: str(e['message'], `${where}.error.message`) };
        assert.ok(ANTHROPIC_ERROR_TYPES.has(error.type), `${where}: error type ${error.type}`);
        finish = null;
        break;
      }
      default:
        assert.fail(`${where}: unexpected event`);
    }
  }
  // A stream cut by an error leaves its block open; what it said so far still reached the client.
  if (open !== null) collect(open);
  assert.equal(datas.at(-1)?.['type'], expectError ? 'error' : 'message_stop', 'the last frame');
  return { model, text, reasoning: reasoning.filter((r) => r !== '').join('\n\n'), proofs, toolCalls, usage, finish, error };
}

// ---------------------------------------------------------------------------------------------- Chat

const FINISH_REASONS = new Set(['stop', 'length', 'tool_calls', 'content_filter']);

function chatUsage(value: unknown, where: string): UsageSeen {
  const paths = ['prompt_tokens', 'completion_tokens', 'total_tokens', 'prompt_tokens_details.cached_tokens', 'prompt_tokens_details.cache_write_tokens', 'completion_tokens_details.reasoning_tokens'];
  const [prompt = 0, completion = 0, total = 0, cached = 0, write = 0, reasoning = 0] = counts(value, where, paths);
  assert.equal(total, prompt + completion, `${where}.total_tokens`);
  return { promptTokens: prompt, completionTokens: completion, cachedTokens: cached, cacheWriteTokens: write, reasoningTokens: reasoning };
}

/** Data-only chunks of one id, role first, tool_calls indexes 0, 1, ..., one finish chunk, the usage chunk, `[DONE]` last. */
export function checkChatStream(bytes: Buffer, expectError: boolean): ClientStreamSummary {
  const frames = readFrames(bytes);
  frames.forEach((f, i) => assert.equal(f.event, null, `frame ${i}: chat frames have no event: line`));
  assert.equal(frames.filter((f) => f.data === '[DONE]').length, expectError ? 0 : 1, expectError ? 'no [DONE] after an error' : 'exactly one [DONE]');
  let error: ErrorSeen = null;
  if (expectError) {
    const last = parse(frames.at(-1)?.data ?? '', 'the last frame');
    assert.deepEqual(Object.keys(last), ['error'], 'the last frame is {"error":{...}} and nothing else');
    const e = obj(last['error'], 'the error frame');
    for (const key of ['message', 'type', 'param', 'code']) assert.ok(key in e, `error.${key} is present`);
    error = { type: str(e['type'], 'error.type'), message: str(e['message'], 'error.message') };
  } else assert.equal(frames.at(-1)?.data, '[DONE]', '[DONE] is the last frame');
  const chunks = frames.slice(0, -1).map((f, i) => parse(f.data, `chunk ${i}`));
  assert.ok(chunks.length > 0, 'at least one chunk');
  const id = str(chunks[0]?.['id'], 'chunk 0.id');
  assert.match(id, /^chatcmpl-/, 'the id starts with chatcmpl-');
  const model = str(chunks[0]?.['model'], 'chunk 0.model');
  let text = '';
  let reasoning = '';
  const calls: { id: string; name: string; arguments: string }[] = [];
  let finish: string | null = null;
  let usage: UsageSeen | null = null;
  chunks.forEach((c, i) => {
    const where = `chunk ${i}`;
    assert.deepEqual([c['id'], c['model'], c['object']], [id, model, 'chat.completion.chunk'], `${where}: id, model and object of every chunk`);
    assert.ok(Number.isInteger(c['created']), `${where}.created`);
    assert.equal(usage, null, `${where}: a chunk after the usage chunk`);
    const choices = arr(c['choices'], `${where}.choices`);
    if (choices.length === 0) {
      assert.notEqual(finish, null, `${where}: the usage chunk comes after the finish chunk`);
      usage = chatUsage(c['usage'], `${where}.usage`);
      return;
    }
    assert.equal(finish, null, `${where}: a choice chunk after the finish_reason chunk`);
    assert.equal(choices.length, 1, `${where}: one choice`);
    const choice = obj(choices[0], `${where}.choices[0]`);
    assert.equal(choice['index'], 0, `${where}.choices[0].index`);
    const delta = obj(choice['delta'], `${where}.choices[0].delta`);
    if (i === 0) assert.equal(delta['role'], 'assistant', `${where}: the first chunk says role assistant`);
    else assert.ok(!('role' in delta), `${where}: only the first chunk carries the role`);
    if (typeof delta['content'] === 'string') text += delta['content'];
    if (typeof delta['reasoning_content'] === 'string') reasoning += delta['reasoning_content'];
    for (const [k, entry] of arr(delta['tool_calls'] ?? [], `${where}.tool_calls`).entries()) {
      const tw = `${where}.tool_calls[${k}]`;
      const tc = obj(entry, tw);
      const fn = obj(tc['function'], `${tw}.function`);
      const call = calls[tc['index'] as number];
      if (tc['index'] === calls.length) {
        assert.equal(tc['type'], 'function', `${tw}.type of a new call`);
        const started = { id: str(tc['id'], `${tw}.id`), name: str(fn['name'], `${tw}.function.name`), arguments: str(fn['arguments'] ?? '', `${tw}.function.arguments`) };
        assert.ok(started.id !== '' && started.name !== '', `${tw}: a new call has an id and a name`);
        calls.push(started);
      } else {
        assert.ok(call !== undefined, `${tw}: index ${String(tc['index'])} is neither a call seen nor the next one (${calls.length})`);
        assert.ok(!('id' in tc) && !('name' in fn), `${tw}: only a call's first fragment carries id and name`);
        call.arguments += str(fn['arguments'], `${tw}.function.arguments`);
      }
    }
    if (choice['finish_reason'] !== null) {
      finish = str(choice['finish_reason'], `${where}.finish_reason`);
      assert.ok(FINISH_REASONS.has(finish), `${where}: finish_reason ${finish}`);
      assert.deepEqual(delta, {}, `${where}: the finish chunk has an empty delta`);
    }
  });
  if (!expectError) assert.ok(finish !== null && usage !== null, 'a finish_reason chunk, then the usage chunk (choices: [])');
  return { model, text, reasoning, proofs: [], toolCalls: calls, usage, finish: error === null ? finish : null, error };
}

// ---------------------------------------------------------------------------------------------- Responses

function responsesUsage(value: unknown, where: string): UsageSeen {
  const paths = ['input_tokens', 'output_tokens', 'total_tokens', 'input_tokens_details.cached_tokens', 'input_tokens_details.cache_write_tokens', 'output_tokens_details.reasoning_tokens'];
  const [input = 0, output = 0, total = 0, cached = 0, write = 0, reasoning = 0] = counts(value, where, paths);
  assert.equal(total, input + output, `${where}.total_tokens`);
  return { promptTokens: input, completionTokens: output, cachedTokens: cached, cacheWriteTokens: write, reasoningTokens: reasoning };
}

/** `parts`: a message's content parts, a reasoning item's summary parts, a call's one part (its arguments/input). */
interface OpenItem { readonly index: number; readonly id: string; readonly type: string; readonly parts: string[]; readonly partDone: boolean[]; readonly added: Json }

const ITEM_TYPES = new Set(['message', 'reasoning', 'function_call', 'custom_tool_call']);

/**
 * An event inside an item: the item type it belongs to, the field naming its part (calls have one part), and
 * its step: add a part; append a delta; `text` repeats the part; `part.text` repeats it and ends it; the
 * call's `arguments`/`input` repeats it and ends it.
 */
interface PartEvent { readonly item: string; readonly index: string | null; readonly step: 'add' | 'delta' | 'text' | 'part' | 'arguments' | 'input' }

const PART_EVENTS: Readonly<Record<string, PartEvent>> = {
  'response.content_part.added': { item: 'message', index: 'content_index', step: 'add' },
  'response.output_text.delta': { item: 'message', index: 'content_index', step: 'delta' },
  'response.output_text.done': { item: 'message', index: 'content_index', step: 'text' },
  'response.content_part.done': { item: 'message', index: 'content_index', step: 'part' },
  'response.reasoning_summary_part.added': { item: 'reasoning', index: 'summary_index', step: 'add' },
  'response.reasoning_summary_text.delta': { item: 'reasoning', index: 'summary_index', step: 'delta' },
  'response.reasoning_summary_text.done': { item: 'reasoning', index: 'summary_index', step: 'text' },
  'response.reasoning_summary_part.done': { item: 'reasoning', index: 'summary_index', step: 'part' },
  'response.function_call_arguments.delta': { item: 'function_call', index: null, step: 'delta' },
  'response.function_call_arguments.done': { item: 'function_call', index: null, step: 'arguments' },
  'response.custom_tool_call_input.delta': { item: 'custom_tool_call', index: null, step: 'delta' },
  'response.custom_tool_call_input.done': { item: 'custom_tool_call', index: null, step: 'input' },
};

function partEvent(item: OpenItem, d: Json, where: string, event: PartEvent): void {
  if (event.step === 'add') {
    assert.equal(d[event.index ?? ''], item.parts.length, `${where}: part indexes go 0, 1, ...`);
    assert.deepEqual(obj(d['part'], `${where}.part`)['text'], '', `${where}: a part starts empty`);
    assert.equal(obj(d['part'], `${where}.part`)['type'], item.type === 'message' ? 'output_text' : 'summary_text', `${where}.part.type`);
    item.parts.push('');
    item.partDone.push(false);
    return;
  }
  const p = event.index === null ? 0 : d[event.index];
  assert.ok(typeof p === 'number' && p < item.parts.length && item.partDone[p] === false, `${where}: part ${String(p)} is not open`);
  if (event.step === 'delta') item.parts[p] += str(d['delta'], `${where}.delta`);
  else if (event.step === 'text') assert.equal(d['text'], item.parts[p], `${where}: text equals the deltas`);
  else {
    const repeated = event.step === 'part' ? obj(d['part'], `${where}.part`)['text'] : d[event.step];
    assert.equal(repeated, item.parts[p], `${where}: equals the deltas`);
    item.partDone[p] = true;
  }
}

function checkAddedItem(item: Json, where: string): void {
  const type = item['type'];
  if (type === 'message') assert.deepEqual([item['role'], item['content'], item['status']], ['assistant', [], 'in_progress'], `${where}: a message starts empty`);
  else if (type === 'reasoning') assert.deepEqual(item['summary'], [], `${where}: reasoning starts with no summary`);
  else {
    assert.equal(item['status'], 'in_progress', `${where}.item.status`);
    assert.ok(str(item['call_id'], `${where}.item.call_id`) !== '' && str(item['name'], `${where}.item.name`) !== '', `${where}: a call has call_id and name`);
    assert.equal(item[type === 'function_call' ? 'arguments' : 'input'], '', `${where}: a call starts empty`);
  }
}

function checkDoneItem(open: OpenItem, item: Json, where: string): void {
  assert.deepEqual([item['id'], item['type']], [open.id, open.type], `${where}: the same item id and type as output_item.added`);
  assert.ok(open.partDone.every(Boolean), `${where}: every part was done before the item`);
  if (open.type === 'reasoning') {
    assert.deepEqual(item['summary'], open.parts.map((text) => ({ type: 'summary_text', text })), `${where}: summary equals the deltas`);
    if ('encrypted_content' in item) str(item['encrypted_content'], `${where}.item.encrypted_content`);
    return;
  }
  assert.equal(item['status'], 'completed', `${where}.item.status`);
  if (open.type === 'message') {
    const content = arr(item['content'], `${where}.item.content`).map((c) => obj(c, `${where}.item.content[]`));
    assert.deepEqual(content.map((c) => [c['type'], c['text']]), open.parts.map((t) => ['output_text', t]), `${where}: content equals the deltas`);
    assert.equal(item['role'], 'assistant');
  } else {
    assert.deepEqual([item['call_id'], item['name']], [open.added['call_id'], open.added['name']], `${where}: the same call_id and name`);
    assert.equal(item[open.type === 'function_call' ? 'arguments' : 'input'], open.parts[0], `${where}: equals the deltas`);
  }
}

/** `event:` = data.type, sequence_number 0..n, output_item.added before deltas and one output_item.done per item, a terminal event last. */
export function checkResponsesStream(bytes: Buffer, expectError: boolean): ClientStreamSummary {
  const datas = readFrames(bytes).map((f, i) => {
    const d = parse(f.data, `frame ${i}`);
    assert.equal(f.event, d['type'], `frame ${i}: the event: line must equal data.type`);
    assert.equal(d['sequence_number'], i, `frame ${i}: sequence_number goes 0, 1, 2, ...`);
    return d;
  });
  assert.deepEqual(datas.slice(0, 2).map((d) => d['type']), ['response.created', 'response.in_progress'], 'the first two frames');
  const created = obj(datas[0]?.['response'], 'response.created.response');
  const responseId = str(created['id'], 'response.id');
  assert.match(responseId, /^resp_/, 'response id starts with resp_');
  const model = str(created['model'], 'response.model');
  for (const d of datas.slice(0, 2)) {
    const { id, object, status, output } = obj(d['response'], `${String(d['type'])}.response`);
    assert.deepEqual({ id, object, status, output }, { id: responseId, object: 'response', status: 'in_progress', output: [] }, String(d['type']));
  }

  const items: OpenItem[] = [];
  const doneItems: Json[] = [];
  // Items may overlap (a call stays open while the next one starts, for late argument deltas); events name theirs.
  const open = new Map<number, OpenItem>();
  let finish: string | null = null;
  let usage: UsageSeen | null = null;
  let error: ErrorSeen = null;

  for (let i = 2; i < datas.length; i++) {
    const d = datas[i] ?? {};
    const type = str(d['type'], `frame ${i}.type`);
    const where = `frame ${i} (${type})`;
    const last = i === datas.length - 1;
    switch (type) {
      case 'response.output_item.added': {
        assert.equal(d['output_index'], items.length, `${where}: output_index goes 0, 1, 2, ...`);
        const item = obj(d['item'], `${where}.item`);
        const itemType = str(item['type'], `${where}.item.type`);
        const id = str(item['id'], `${where}.item.id`);
        assert.ok(ITEM_TYPES.has(itemType), `${where}: item type ${itemType}`);
        assert.ok(id !== '' && !items.some((it) => it.id === id), `${where}: item ids are unique and not empty`);
        checkAddedItem(item, where);
        const call = itemType === 'function_call' || itemType === 'custom_tool_call';
        const added: OpenItem = { index: items.length, id, type: itemType, parts: call ? [''] : [], partDone: call ? [false] : [], added: item };
        items.push(added);
        open.set(added.index, added);
        break;
      }
      case 'response.output_item.done': {
        const added = open.get(d['output_index'] as number);
        assert.ok(added !== undefined, `${where}: output_index ${String(d['output_index'])} is not an open item (never added, or done twice)`);
        const item = obj(d['item'], `${where}.item`);
        checkDoneItem(added, item, where);
        doneItems[added.index] = item;
        open.delete(added.index);
        break;
      }
      case 'response.completed':
      case 'response.incomplete': {
        assert.ok(last && !expectError, `${where}: the terminal event is last, and the stream should not have failed`);
        assert.deepEqual([...open.keys()], [], `${where}: items never done`);
        const r = obj(d['response'], `${where}.response`);
        finish = str(r['status'], `${where}.response.status`);
        assert.deepEqual([r['id'], r['object'], r['model'], r['error']], [responseId, 'response', model, null], `${where}: id, object, model, error`);
        assert.equal(finish, type.slice('response.'.length), `${where}: status`);
        assert.deepEqual(r['output'], doneItems, `${where}: output holds every item as in output_item.done`);
        if (finish === 'completed') assert.equal(r['incomplete_details'], null);
        else obj(r['incomplete_details'], `${where}.incomplete_details`);
        usage = responsesUsage(r['usage'], `${where}.response.usage`);
        break;
      }
      case 'error':
        assert.ok(expectError && i === datas.length - 2, `${where}: an expected error, followed by response.failed only`);
        error = { type: str(d['code'], `${where}.code`), message: str(d['message'], `${where}.message`) };
        assert.ok(error.type !== '' && 'param' in d, `${where}: code and param`);
        break;
      case 'response.failed': {
        assert.ok(last && error !== null, `${where}: response.failed is last, after error`);
        const r = obj(d['response'], `${where}.response`);
        const e = obj(r['error'], `${where}.response.error`);
        assert.deepEqual([r['status'], e['code'], e['message']], ['failed', error.type, error.message], `${where}: status failed, the same error`);
        break;
      }
      default: {
        const event = PART_EVENTS[type];
        assert.ok(event !== undefined, `${where}: unexpected event`);
        const item = open.get(d['output_index'] as number);
        assert.ok(item !== undefined, `${where}: output_index ${String(d['output_index'])} is not an open item`);
        assert.deepEqual([d['item_id'], item.type], [item.id, event.item], `${where}: item_id and type of the item at that output_index`);
        partEvent(item, d, where, event);
      }
    }
  }
  const terminal = String(datas.at(-1)?.['type']);
  assert.ok(expectError ? terminal === 'response.failed' : ['response.completed', 'response.incomplete'].includes(terminal), `the terminal event: ${terminal}`);
  const byId = new Map(doneItems.map((item) => [item['id'], item]));
  const encrypted = items.map((it) => byId.get(it.id)?.['encrypted_content']);
  return {
    model,
    text: items.filter((it) => it.type === 'message').map((it) => it.parts.join('')).join(''),
    reasoning: items.filter((it) => it.type === 'reasoning').map((it) => it.parts.join('\n\n')).filter((r) => r !== '').join('\n\n'),
    proofs: encrypted.filter((value): value is string => typeof value === 'string'),
    toolCalls: items
      .filter((it) => it.type === 'function_call' || it.type === 'custom_tool_call')
      .map((it) => ({ id: String(it.added['call_id']), name: String(it.added['name']), arguments: it.parts[0] ?? '' })),
    usage,
    finish,
    error,
  };
}
