// A Responses upstream's stream as IR events. Output items arrive one after the other; each becomes blocks:
// a message one text block per content part, a reasoning item one reasoning block (its summary parts joined
// by a blank line, its encrypted content as the proof), a call one tool_call block.

import { GatewayError } from '../../errors.js';
import type { BlockStart, StreamDecoder, StreamEvent } from '../../ir/stream.js';
import type { Usage } from '../../ir/usage.js';
import { count, field } from '../json-fields.js';
import { decodeFailedResponse, decodeStreamError } from './ir-error.js';
import { finishOf, flatName, readOutputItem } from './ir-response.js';
import { readUsage } from './usage.js';

interface OpenBlock {
  readonly index: number;
  readonly kind: BlockStart['type'];
  /** The output item the block belongs to. */
  readonly itemId: string | null;
  /** Whether any delta reached it (servers that send only the `.done` events are read from those). */
  filled: boolean;
  /** Reasoning: summary parts begun so far (a blank line goes between two). */
  summaryParts: number;
}

function str(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

export function createStreamDecoder(): StreamDecoder {
  let started = false;
  let nextIndex = 0;
  let open: OpenBlock | null = null;
  let sawCall = false;
  /** A terminal event was read (completed, incomplete, failed, error): nothing after it counts. */
  let done = false;
  /** Output items whose blocks were written, by item id (a message item's fallback needs to know). */
  const itemsWithBlocks = new Set<string>();

  function ensureStart(out: StreamEvent[], response: unknown): void {
    if (started) return;
    started = true;
    out.push({
      type: 'start',
      id: str(field(response, 'id')),
      model: str(field(response, 'model')),
      created: count(field(response, 'created_at'), Math.floor(Date.now() / 1000)),
      usage: null,
    });
  }

  function close(out: StreamEvent[]): void {
    if (open === null) return;
    out.push({ type: 'block_stop', index: open.index });
    open = null;
  }

  function begin(out: StreamEvent[], block: BlockStart, itemId: string | null): OpenBlock {
    close(out);
    const opened: OpenBlock = { index: nextIndex++, kind: block.type, itemId, filled: false, summaryParts: 0 };
    open = opened;
    if (itemId !== null) itemsWithBlocks.add(itemId);
    if (block.type === 'tool_call') sawCall = true;
    out.push({ type: 'block_start', index: opened.index, block });
    return opened;
  }

  /** The open block for a delta of `kind`; a delta without its opening event opens one (lenient servers). */
  function blockFor(out: StreamEvent[], kind: 'text' | 'reasoning', itemId: string | null): OpenBlock {
    if (open !== null && open.kind === kind) return open;
    return begin(out, { type: kind }, itemId);
  }

  function itemAdded(out: StreamEvent[], item: unknown): void {
    const id = typeof field(item, 'id') === 'string' ? (field(item, 'id') as string) : null;
    switch (field(item, 'type')) {
      case 'reasoning':
        begin(out, { type: 'reasoning' }, id);
        return;
      case 'function_call': {
        const block = begin(out, { type: 'tool_call', id: str(field(item, 'call_id')), name: flatName(str(field(item, 'name')), field(item, 'namespace')) }, id);
        const args = str(field(item, 'arguments'));
        if (args !== '') {
          block.filled = true;
          out.push({ type: 'arguments_delta', index: block.index, json: args });
        }
        return;
      }
      case 'custom_tool_call': {
        const block = begin(out, { type: 'tool_call', id: str(field(item, 'call_id')), name: str(field(item, 'name')), custom: true }, id);
        const input = str(field(item, 'input'));
        if (input !== '') {
          block.filled = true;
          out.push({ type: 'arguments_delta', index: block.index, json: input });
        }
        return;
      }
      default:
        // A message opens its text blocks per content part; hosted tool items have no IR counterpart.
        close(out);
    }
  }

  /** The item as a whole: what its deltas did not bring (a proof, or everything when nothing was streamed). */
  function itemDone(out: StreamEvent[], item: unknown): void {
    const id = typeof field(item, 'id') === 'string' ? (field(item, 'id') as string) : null;
    const type = field(item, 'type');
    const kind = type === 'reasoning' ? 'reasoning' : type === 'message' ? 'text' : 'tool_call';
    const current: OpenBlock | null = open !== null && open.kind === kind && (id === null || open.itemId === id) ? open : null;
    // An item whose block was closed already (another began first): its deltas were all it had to say.
    if (current === null && id !== null && itemsWithBlocks.has(id) && type !== 'message') return;
    if (type === 'reasoning') {
      const [part] = readOutputItem(item);
      const block = current ?? begin(out, { type: 'reasoning' }, id);
      if (part !== undefined && part.type === 'reasoning') {
        if (!block.filled && part.text !== '') out.push({ type: 'reasoning_delta', index: block.index, text: part.text });
        if (part.proof !== null) out.push({ type: 'reasoning_proof', index: block.index, proof: part.proof });
      }
      close(out);
    } else if (type === 'function_call' || type === 'custom_tool_call') {
      const [part] = readOutputItem(item);
      if (part === undefined || part.type !== 'tool_call') return;
      const block =
        current ?? begin(out, { type: 'tool_call', id: part.id, name: part.name, ...(part.custom === true ? { custom: true } : {}) }, id);
      if (!block.filled && part.arguments !== '') out.push({ type: 'arguments_delta', index: block.index, json: part.arguments });
      close(out);
    } else if (type === 'message') {
      close(out);
      if (id !== null && itemsWithBlocks.has(id)) return;
      // Nothing of this message was streamed: its text comes whole.
      for (const part of readOutputItem(item)) {
        if (part.type !== 'text') continue;
        const block = begin(out, { type: 'text' }, id);
        out.push({ type: 'text_delta', index: block.index, text: part.text });
        close(out);
      }
    }
  }

  function terminal(out: StreamEvent[], response: unknown, type: string): void {
    close(out);
    done = true;
    const usage: Usage | null = readUsage(field(response, 'usage'));
    if (usage !== null) out.push({ type: 'usage', usage });
    const output = field(response, 'output');
    const calls = Array.isArray(output) && output.some((i) => field(i, 'type') === 'function_call' || field(i, 'type') === 'custom_tool_call');
    const status = field(response, 'status') ?? (type === 'response.incomplete' ? 'incomplete' : 'completed');
    out.push({ type: 'finish', reason: finishOf(status, field(field(response, 'incomplete_details'), 'reason'), sawCall || calls), stopSequence: null });
  }

  return {
    push(event, data) {
      if (done) return [];
      let json: unknown;
      try {
        json = JSON.parse(data);
      } catch {
        return []; // [DONE] and other non-JSON frames: nothing to read
      }
      const type = str(field(json, 'type')) || (event ?? '');
      const out: StreamEvent[] = [];
      const response = field(json, 'response');
      const itemId = typeof field(json, 'item_id') === 'string' ? (field(json, 'item_id') as string) : null;
      switch (type) {
        case 'response.created':
        case 'response.in_progress':
        case 'response.queued':
          ensureStart(out, response);
          break;
        case 'response.output_item.added':
          ensureStart(out, response);
          itemAdded(out, field(json, 'item'));
          break;
        case 'response.output_item.done':
          ensureStart(out, response);
          itemDone(out, field(json, 'item'));
          break;
        case 'response.content_part.added': {
          // Reasoning items of open-weight servers have reasoning_text parts: their block is already open.
          const part = field(field(json, 'part'), 'type');
          if (part !== undefined && part !== 'output_text' && part !== 'refusal') break;
          ensureStart(out, response);
          begin(out, { type: 'text' }, itemId);
          break;
        }
        case 'response.content_part.done':
          if (open !== null && open.kind === 'text') close(out);
          break;
        case 'response.output_text.delta':
        case 'response.refusal.delta': {
          ensureStart(out, response);
          const block = blockFor(out, 'text', itemId);
          block.filled = true;
          out.push({ type: 'text_delta', index: block.index, text: str(field(json, 'delta')) });
          break;
        }
        case 'response.output_text.done':
        case 'response.refusal.done': {
          // Only servers that skip the deltas need this; the text is whole here.
          const text = str(field(json, type === 'response.output_text.done' ? 'text' : 'refusal'));
          if (text === '') break;
          ensureStart(out, response);
          const block = blockFor(out, 'text', itemId);
          if (!block.filled) {
            block.filled = true;
            out.push({ type: 'text_delta', index: block.index, text });
          }
          break;
        }
        case 'response.reasoning_summary_part.added': {
          ensureStart(out, response);
          const block = blockFor(out, 'reasoning', itemId);
          if (block.summaryParts > 0) out.push({ type: 'reasoning_delta', index: block.index, text: '\n\n' });
          block.summaryParts += 1;
          break;
        }
        case 'response.reasoning_summary_text.delta': {
          ensureStart(out, response);
          const block = blockFor(out, 'reasoning', itemId);
          block.filled = true;
          if (block.summaryParts === 0) block.summaryParts = 1;
          out.push({ type: 'reasoning_delta', index: block.index, text: str(field(json, 'delta')) });
          break;
        }
        case 'response.reasoning_text.delta': {
          ensureStart(out, response);
          const block = blockFor(out, 'reasoning', itemId);
          // The IR text is the summary when there is one; raw reasoning only stands in for a missing summary.
          if (block.summaryParts > 0) break;
          block.filled = true;
          out.push({ type: 'reasoning_delta', index: block.index, text: str(field(json, 'delta')) });
          break;
        }
        case 'response.function_call_arguments.delta':
        case 'response.custom_tool_call_input.delta': {
          if (open === null || open.kind !== 'tool_call') break; // a call whose item never opened: nothing to attach to
          open.filled = true;
          out.push({ type: 'arguments_delta', index: open.index, json: str(field(json, 'delta')) });
          break;
        }
        case 'response.function_call_arguments.done':
        case 'response.custom_tool_call_input.done': {
          const whole = str(field(json, type === 'response.function_call_arguments.done' ? 'arguments' : 'input'));
          if (open === null || open.kind !== 'tool_call' || open.filled || whole === '') break;
          open.filled = true;
          out.push({ type: 'arguments_delta', index: open.index, json: whole });
          break;
        }
        case 'response.completed':
        case 'response.incomplete':
          ensureStart(out, response);
          terminal(out, response, type);
          break;
        case 'response.failed':
          // The error is the last event: blocks still open stay unfinished, as the answer is.
          done = true;
          open = null;
          out.push({ type: 'error', error: decodeFailedResponse(response) });
          break;
        case 'error':
          done = true;
          open = null;
          out.push({ type: 'error', error: decodeStreamError(json) });
          break;
        default:
          // Annotations, hosted tool progress, pings and events added later carry nothing the IR holds.
          break;
      }
      return out;
    },

    end() {
      if (!done) {
        throw new GatewayError('GW_ERR_UPSTREAM_STREAM_BROKEN', 'The upstream stream ended before response.completed.');
      }
      const out: StreamEvent[] = [];
      close(out);
      return out;
    },
  };
}
