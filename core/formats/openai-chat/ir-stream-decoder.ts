// Chat Completions stream chunks from an upstream, as IR stream events. Chat has no blocks: a block is opened
// when the kind of delta changes (reasoning, text, a new tool call index) and closed when the next one opens.

import { GatewayError } from '../../errors.js';
import type { StreamDecoder, StreamEvent } from '../../ir/stream.js';
import { count, field } from '../json-fields.js';
import { readError } from './ir-error.js';
import { readFinish } from './ir-usage.js';
import { readUsage } from './usage.js';

type OpenKind = 'text' | 'reasoning' | 'tool_call';

/** Put in a candidate content slot to check it is that slot (learn()). */
const PROBE = '\u0000gateway probe';

function nonEmpty(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null;
}

export function createStreamDecoder(): StreamDecoder {
  let started = false;
  let open: { readonly index: number; readonly kind: OpenKind } | null = null;
  let nextIndex = 0;
  /** Chat tool_calls[].index -> the IR block of that call (kept after it closes: late fragments still find it). */
  const toolBlocks = new Map<number, { readonly index: number; readonly id: string }>();
  let finished = false;
  let done = false;
  let failed = false;
  /**
   * The text around the content string of the last chunk, when that chunk was only a text delta: a chunk that
   * repeats that text exactly with another string in between is that same delta (see textOnly).
   */
  let template: { readonly prefix: string; readonly suffix: string; readonly index: number } | null = null;

  /**
   * Nearly every chunk of a streamed answer is the one before with another `content` string (id, model,
   * created, the choice's other fields repeat). Such a chunk is decoded by parsing only that string, not the
   * whole chunk: ~a fifth of a translated chunk's CPU. Anything else, or anything that does not match
   * byte for byte around the string, takes the whole parse.
   */
  function textOnly(data: string): readonly StreamEvent[] | null {
    const t = template;
    if (t === null || data.length < t.prefix.length + t.suffix.length + 2 || !data.startsWith(t.prefix) || !data.endsWith(t.suffix)) return null;
    const literal = data.slice(t.prefix.length, data.length - t.suffix.length);
    if (literal.charCodeAt(0) !== 0x22) return null;
    let text: unknown;
    try {
      text = JSON.parse(literal);
    } catch {
      return null;
    }
    // An empty content may give way to another field (refusal) that the template holds: the whole parse decides.
    if (typeof text !== 'string' || text === '') return null;
    return [{ type: 'text_delta', index: t.index, text }];
  }

  /**
   * After a whole parse: keep the chunk as the template when all it gave was a text delta of the open text block
   * from `content`, and the text around that string is found to hold exactly that string's slot (a probe string
   * put there parses back as the content, once per template).
   */
  function learn(data: string, json: unknown, out: readonly StreamEvent[]): void {
    template = null;
    const only = out.length === 1 ? out[0] : undefined;
    if (only?.type !== 'text_delta' || open === null || open.kind !== 'text' || open.index !== only.index) return;
    const choices = field(json, 'choices');
    if (!Array.isArray(choices) || choices.length !== 1 || field(field(choices[0], 'delta'), 'content') !== only.text) return;
    const encoded = JSON.stringify(only.text);
    const at = data.indexOf(encoded);
    if (at < 0 || data.indexOf(encoded, at + 1) >= 0) return;
    const prefix = data.slice(0, at);
    const suffix = data.slice(at + encoded.length);
    // Never the content itself: a content equal to the probe would pass the check in whatever slot was found.
    const probe = only.text === PROBE ? `${PROBE} 2` : PROBE;
    let parsed: unknown;
    try {
      parsed = JSON.parse(`${prefix}${JSON.stringify(probe)}${suffix}`);
    } catch {
      return;
    }
    const probed = field(parsed, 'choices');
    if (!Array.isArray(probed) || field(field(probed[0], 'delta'), 'content') !== probe) return;
    template = { prefix, suffix, index: only.index };
  }

  function close(out: StreamEvent[]): void {
    if (open === null) return;
    out.push({ type: 'block_stop', index: open.index });
    open = null;
  }

  /** The open block of `kind`, opening one (and closing the other) when needed. */
  function blockOf(kind: 'text' | 'reasoning', out: StreamEvent[]): number {
    if (open !== null && open.kind === kind) return open.index;
    close(out);
    open = { index: nextIndex++, kind };
    out.push({ type: 'block_start', index: open.index, block: { type: kind } });
    return open.index;
  }

  function toolCall(call: unknown, position: number, out: StreamEvent[]): void {
    const key = count(field(call, 'index'), position);
    const fn = field(call, 'function');
    const id = nonEmpty(field(call, 'id'));
    let block = toolBlocks.get(key);
    // Only a call's first fragment has an id: a new id under a known index is a new call (some compatible
    // servers number every call 0, or send no index at all).
    if (block === undefined || (id !== null && id !== block.id)) {
      close(out);
      const index = nextIndex++;
      block = { index, id: id ?? `call_${index}` };
      toolBlocks.set(key, block);
      open = { index, kind: 'tool_call' };
      out.push({ type: 'block_start', index, block: { type: 'tool_call', id: block.id, name: nonEmpty(field(fn, 'name')) ?? '' } });
    }
    // A fragment of an earlier call arrives with that call's block index, even if another block opened since.
    const args = nonEmpty(field(fn, 'arguments'));
    if (args !== null) out.push({ type: 'arguments_delta', index: block.index, json: args });
  }

  /** Every chunk repeats id, model and created; the first one starts the stream. */
  function start(json: unknown, out: StreamEvent[]): void {
    if (started) return;
    started = true;
    out.push({
      type: 'start',
      id: nonEmpty(field(json, 'id')) ?? '',
      model: nonEmpty(field(json, 'model')) ?? '',
      created: count(field(json, 'created'), Math.floor(Date.now() / 1000)),
      usage: null,
    });
  }

  function chunk(json: unknown, out: StreamEvent[]): void {
    start(json, out);
    const choices = field(json, 'choices');
    const choice: unknown = Array.isArray(choices) ? (choices.find((c: unknown) => field(c, 'index') === 0) ?? choices[0]) : undefined;
    // Only usage may follow the finish.
    if (choice !== undefined && !finished) {
      const delta = field(choice, 'delta');
      // Not an OpenAI field: DeepSeek, vLLM and others stream reasoning there (OpenRouter, Ollama: `reasoning`).
      const reasoning = nonEmpty(field(delta, 'reasoning_content')) ?? nonEmpty(field(delta, 'reasoning'));
      if (reasoning !== null) out.push({ type: 'reasoning_delta', index: blockOf('reasoning', out), text: reasoning });
      const text = nonEmpty(field(delta, 'content')) ?? nonEmpty(field(delta, 'refusal'));
      if (text !== null) out.push({ type: 'text_delta', index: blockOf('text', out), text });
      const calls = field(delta, 'tool_calls');
      if (Array.isArray(calls)) calls.forEach((call: unknown, k) => toolCall(call, k, out));
      const reason = field(choice, 'finish_reason');
      if (reason !== undefined && reason !== null) {
        close(out);
        finished = true;
        out.push({ type: 'finish', reason: readFinish(reason, toolBlocks.size > 0), stopSequence: null });
      }
    }
    const usage = readUsage(field(json, 'usage'));
    if (usage !== null) out.push({ type: 'usage', usage });
  }

  return {
    push(event: string | null, data: string): readonly StreamEvent[] {
      // An empty data line is a keepalive of some compatible servers, not a chunk.
      if (failed || data.trim() === '') return [];
      if (data.trim() === '[DONE]') {
        done = true;
        return [];
      }
      if (event !== 'error') {
        const fast = textOnly(data);
        if (fast !== null) return fast;
      }
      let json: unknown;
      try {
        json = JSON.parse(data);
      } catch {
        failed = true;
        const error = new GatewayError('GW_ERR_UPSTREAM_STREAM_BROKEN', 'The upstream sent a stream chunk that is not JSON.');
        return [{ type: 'error', error }];
      }
      // The OpenAI SDK treats both as the stream's error.
      const error = field(json, 'error');
      if (event === 'error' || (error !== undefined && error !== null)) {
        failed = true;
        return [{ type: 'error', error: readError(error, null, json) }];
      }
      const out: StreamEvent[] = [];
      chunk(json, out);
      learn(data, json, out);
      return out;
    },

    end(): readonly StreamEvent[] {
      if (failed) return [];
      // A finish_reason is enough: some compatible servers never send [DONE].
      if (!finished && !done) {
        throw new GatewayError('GW_ERR_UPSTREAM_STREAM_BROKEN', 'The upstream stream ended before the answer was complete.');
      }
      const out: StreamEvent[] = [];
      start({}, out);
      close(out);
      // [DONE] without a finish_reason: the answer is whole, only its reason is unknown.
      if (!finished) out.push({ type: 'finish', reason: readFinish(null, toolBlocks.size > 0), stopSequence: null });
      return out;
    },
  };
}
