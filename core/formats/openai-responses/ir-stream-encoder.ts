// IR events as the Responses stream Codex reads. Codex builds its history from `response.output_item.done`
// and fails without a terminal `response.completed`, so every item is announced (added) before its deltas and
// closed (done) once; every frame carries a sequence_number counting from 0.

import { randomUUID } from 'node:crypto';
import type { GatewayError } from '../../errors.js';
import type { ReasoningProof } from '../../ir/message.js';
import type { ChatRequest } from '../../ir/request.js';
import type { FinishReason } from '../../ir/response.js';
import type { EncodedFrame, StreamEncoder, StreamEvent } from '../../ir/stream.js';
import { ZERO_USAGE, type Usage } from '../../ir/usage.js';
import {
  callItem,
  callItemId,
  callShape,
  customInput,
  itemId,
  messageItem,
  reasoningItem,
  responseId,
  responseObject,
  statusOf,
  type CallShape,
  type ResponseFields,
} from './ir-response.js';

type Item = Record<string, unknown>;

/** One output item being written; `text` is the message text, the reasoning text or the call's arguments. */
interface OpenItem {
  readonly kind: 'message' | 'reasoning' | 'call';
  readonly outputIndex: number;
  readonly id: string;
  text: string;
  /** Reasoning: whether the summary part was announced (only when there is text to put in it). */
  summaryOpen: boolean;
  proof: ReasoningProof | null;
  /** Calls: how the client declared the tool, the call id, and whether the arguments are a custom tool's raw input. */
  readonly shape: CallShape | null;
  readonly callId: string;
  readonly rawInput: boolean;
  finished: boolean;
}

const NO_FIELDS: Readonly<Record<string, unknown>> = {};
const NOTHING_MORE = { incompleteDetails: null, error: null } as const;

/** Codex stops retrying on these codes and words its message after them; keep them when the upstream said so. */
const MEANINGFUL_CODES: ReadonlySet<string> = new Set(['context_length_exceeded', 'insufficient_quota', 'usage_not_included', 'rate_limit_exceeded', 'invalid_prompt']);

/** The code of a failed response, as errors.ts chooses it for errors the gateway writes itself. */
function failureCode(err: GatewayError): string {
  if (err.wireCode !== null && MEANINGFUL_CODES.has(err.wireCode)) return err.wireCode;
  if (err.kind === 'rate_limit') return 'rate_limit_exceeded';
  return err.status >= 500 ? 'server_error' : (err.wireCode ?? 'invalid_request');
}

export function createStreamEncoder(request: ChatRequest): StreamEncoder {
  let sequence = 0;
  let id = `resp_${randomUUID().replaceAll('-', '')}`;
  let model = request.model;
  let created = Math.floor(Date.now() / 1000);
  let started = false;
  let failed = false;
  let usage: Usage | null = null;
  let finish: FinishReason | null = null;
  /** Finished items by output index (null while an item is being written). */
  const output: (Item | null)[] = [];
  const items = new Map<number, OpenItem>();
  /**
   * Calls whose `done` waits: a Chat upstream may send argument deltas for an earlier call after a later one
   * began, so calls are closed only when something else starts or the answer ends.
   */
  let pendingCalls: OpenItem[] = [];

  /** `at` (the item's ids) goes before `fields`, as a spread after the first members: docs/performance.md, "Object literals V8 builds in its runtime". */
  function frame(type: string, fields: Record<string, unknown>, at: Readonly<Record<string, unknown>> = NO_FIELDS): EncodedFrame {
    return { event: type, data: JSON.stringify({ type, sequence_number: sequence++, ...at, ...fields }) };
  }

  /** The response object as it stands: empty while in progress, with the finished items and usage at the end. */
  function response(status: ResponseFields['status'], more: Pick<ResponseFields, 'incompleteDetails' | 'error'> = NOTHING_MORE): Item {
    const inProgress = status === 'in_progress';
    return responseObject({
      id,
      created,
      model,
      status,
      ...more,
      output: inProgress ? [] : output.filter((item): item is Item => item !== null),
      usage: inProgress ? null : (usage ?? ZERO_USAGE),
    });
  }

  function ensureStarted(out: EncodedFrame[]): void {
    if (started) return;
    started = true;
    out.push(frame('response.created', { response: response('in_progress') }));
    out.push(frame('response.in_progress', { response: response('in_progress') }));
  }

  function open(blockIndex: number, kind: OpenItem['kind'], shape: CallShape | null, callId: string, rawInput: boolean): OpenItem {
    const outputIndex = output.length;
    output.push(null);
    const itemIdOf = shape === null ? itemId(kind === 'message' ? 'message' : 'reasoning', id, outputIndex) : callItemId(shape, callId);
    const item: OpenItem = { kind, outputIndex, id: itemIdOf, text: '', summaryOpen: false, proof: null, shape, callId, rawInput, finished: false };
    items.set(blockIndex, item);
    return item;
  }

  function finishItem(out: EncodedFrame[], item: OpenItem): void {
    if (item.finished) return;
    item.finished = true;
    const at = { item_id: item.id, output_index: item.outputIndex };
    let done: Item;
    if (item.kind === 'message') {
      out.push(frame('response.output_text.done', { content_index: 0, text: item.text, logprobs: [] }, at));
      out.push(frame('response.content_part.done', { content_index: 0, part: { type: 'output_text', text: item.text, annotations: [] } }, at));
      done = messageItem(item.id, item.text);
    } else if (item.kind === 'reasoning') {
      if (item.summaryOpen) {
        out.push(frame('response.reasoning_summary_text.done', { summary_index: 0, text: item.text }, at));
        out.push(frame('response.reasoning_summary_part.done', { summary_index: 0, part: { type: 'summary_text', text: item.text } }, at));
      }
      done = reasoningItem(item.id, item.text, item.proof);
    } else {
      const shape = item.shape ?? { kind: 'function', name: '', namespace: null };
      if (shape.kind === 'custom') {
        // The input is known only now: other dialects wrap it in {"input": ...} JSON that arrives in pieces.
        const input = customInput(item.text, item.rawInput);
        if (input !== '') out.push(frame('response.custom_tool_call_input.delta', { delta: input }, at));
        out.push(frame('response.custom_tool_call_input.done', { input }, at));
        done = callItem(shape, item.callId, input, 'completed');
      } else {
        out.push(frame('response.function_call_arguments.done', { name: shape.name, arguments: item.text }, at));
        done = callItem(shape, item.callId, item.text, 'completed');
      }
    }
    output[item.outputIndex] = done;
    out.push(frame('response.output_item.done', { output_index: item.outputIndex, item: done }));
  }

  function finishCalls(out: EncodedFrame[]): void {
    for (const call of pendingCalls) finishItem(out, call);
    pendingCalls = [];
  }

  function blockStart(out: EncodedFrame[], event: Extract<StreamEvent, { type: 'block_start' }>): void {
    ensureStarted(out);
    const block = event.block;
    if (block.type === 'tool_call') {
      const shape = callShape(block.name, block.custom === true, request.tools);
      const item = open(event.index, 'call', shape, block.id, block.custom === true);
      pendingCalls.push(item);
      out.push(frame('response.output_item.added', { output_index: item.outputIndex, item: callItem(shape, block.id, '', 'in_progress') }));
      return;
    }
    finishCalls(out);
    if (block.type === 'text') {
      const item = open(event.index, 'message', null, '', false);
      out.push(
        frame('response.output_item.added', {
          output_index: item.outputIndex,
          item: { id: item.id, type: 'message', status: 'in_progress', role: 'assistant', content: [] },
        }),
      );
      out.push(
        frame('response.content_part.added', {
          item_id: item.id,
          output_index: item.outputIndex,
          content_index: 0,
          part: { type: 'output_text', text: '', annotations: [] },
        }),
      );
      return;
    }
    const item = open(event.index, 'reasoning', null, '', false);
    out.push(frame('response.output_item.added', { output_index: item.outputIndex, item: { id: item.id, type: 'reasoning', summary: [] } }));
  }

  /** The item of a block still being written (deltas for a finished item cannot be told to the client any more). */
  function live(index: number, kind: OpenItem['kind']): OpenItem | null {
    const item = items.get(index);
    return item !== undefined && item.kind === kind && !item.finished ? item : null;
  }

  function fail(out: EncodedFrame[], err: GatewayError): void {
    failed = true;
    const code = failureCode(err);
    out.push(frame('error', { code, message: err.message, param: null }));
    out.push(frame('response.failed', { response: response('failed', { incompleteDetails: null, error: { code, message: err.message } }) }));
  }

  return {
    push(event) {
      if (failed) return [];
      const out: EncodedFrame[] = [];
      switch (event.type) {
        case 'start':
          if (!started) {
            id = responseId(event.id === '' ? id : event.id);
            model = event.model === '' ? model : event.model;
            created = event.created;
          }
          ensureStarted(out);
          break;
        case 'block_start':
          blockStart(out, event);
          break;
        case 'text_delta': {
          const item = live(event.index, 'message');
          if (item === null || event.text === '') break;
          item.text += event.text;
          out.push(frame('response.output_text.delta', { item_id: item.id, output_index: item.outputIndex, content_index: 0, delta: event.text, logprobs: [] }));
          break;
        }
        case 'reasoning_delta': {
          const item = live(event.index, 'reasoning');
          if (item === null || event.text === '') break;
          const at = { item_id: item.id, output_index: item.outputIndex, summary_index: 0 };
          if (!item.summaryOpen) {
            item.summaryOpen = true;
            out.push(frame('response.reasoning_summary_part.added', { part: { type: 'summary_text', text: '' } }, at));
          }
          item.text += event.text;
          out.push(frame('response.reasoning_summary_text.delta', { delta: event.text }, at));
          break;
        }
        case 'reasoning_proof': {
          const item = live(event.index, 'reasoning');
          if (item !== null) item.proof = event.proof;
          break;
        }
        case 'arguments_delta': {
          const item = live(event.index, 'call');
          if (item === null) break;
          item.text += event.json;
          // A custom tool's input is written whole when the call ends (see finishItem).
          if (item.shape?.kind === 'function' && event.json !== '') {
            out.push(frame('response.function_call_arguments.delta', { item_id: item.id, output_index: item.outputIndex, delta: event.json }));
          }
          break;
        }
        case 'block_stop': {
          const item = items.get(event.index);
          // Calls stay open for late argument deltas; see pendingCalls.
          if (item !== undefined && item.kind !== 'call') finishItem(out, item);
          break;
        }
        case 'usage':
          usage = event.usage;
          break;
        case 'finish':
          finish = event.reason;
          finishCalls(out);
          break;
        case 'error':
          fail(out, event.error);
          break;
      }
      return out;
    },

    end() {
      if (failed) return [];
      const out: EncodedFrame[] = [];
      ensureStarted(out);
      finishCalls(out);
      for (const item of [...items.values()].sort((a, b) => a.outputIndex - b.outputIndex)) finishItem(out, item);
      const { status, incompleteDetails } = statusOf(finish ?? 'stop');
      out.push(frame(status === 'incomplete' ? 'response.incomplete' : 'response.completed', { response: response(status, { incompleteDetails, error: null }) }));
      return out;
    },
  };
}
