// An Anthropic upstream's stream as IR events. Anthropic content blocks map 1:1 onto IR blocks, except the
// provider's own tool blocks (server_tool_use, *_tool_result), whose events are skipped; IR indexes are
// therefore assigned here rather than copied.

import { GatewayError } from '../../errors.js';
import type { BlockStart, StreamDecoder, StreamEvent } from '../../ir/stream.js';
import type { Usage } from '../../ir/usage.js';
import { field } from '../json-fields.js';
import { inBandError } from './ir-error.js';
import { finishOf } from './ir-response.js';
import { readUsage } from './usage.js';

const FORMAT = 'anthropic-messages';

interface OpenBlock {
  /** The upstream's content block index. */
  readonly upstream: number;
  /** The IR block index. */
  readonly index: number;
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

class AnthropicStreamDecoder implements StreamDecoder {
  private started = false;
  private finished = false;
  /** message_stop arrived: the stream ended as it should. */
  private stopped = false;
  /** An error event was passed on: it is the last event. */
  private failed = false;
  private usage: Usage | null = null;
  private nextIndex = 0;
  private open: OpenBlock | null = null;

  push(event: string | null, data: string): readonly StreamEvent[] {
    if (this.failed || this.stopped) return [];
    let json: unknown;
    try {
      json = JSON.parse(data);
    } catch {
      return this.fail(new GatewayError('GW_ERR_UPSTREAM_STREAM_BROKEN', 'The upstream sent a stream event that is not JSON.'));
    }
    // data.type and the event name agree on Anthropic streams; data.type is what the SDK reads.
    const type = field(json, 'type') ?? event;
    if (type === 'error') return this.fail(inBandError(json));
    if (type === 'message_start') return this.start(field(json, 'message'));
    const out: StreamEvent[] = [];
    switch (type) {
      case 'content_block_start':
        this.ensureStarted(out);
        this.blockStart(field(json, 'index'), field(json, 'content_block'), out);
        break;
      case 'content_block_delta':
        this.blockDelta(field(json, 'index'), field(json, 'delta'), out);
        break;
      case 'content_block_stop':
        if (this.open !== null && this.open.upstream === field(json, 'index')) this.close(out);
        break;
      case 'message_delta':
        this.ensureStarted(out);
        this.messageDelta(json, out);
        break;
      case 'message_stop':
        this.ensureStarted(out);
        this.close(out);
        // A message_stop without a stop_reason before it still ends the answer normally.
        if (!this.finished) out.push({ type: 'finish', reason: 'stop', stopSequence: null });
        this.finished = true;
        this.stopped = true;
        break;
      default:
      // ping, and events of newer API versions.
    }
    return out;
  }

  end(): readonly StreamEvent[] {
    if (this.failed) return [];
    if (!this.stopped) throw new GatewayError('GW_ERR_UPSTREAM_STREAM_BROKEN', 'The upstream stream ended before message_stop.');
    return [];
  }

  private fail(error: GatewayError): StreamEvent[] {
    this.failed = true;
    return [{ type: 'error', error }];
  }

  private start(message: unknown): StreamEvent[] {
    if (this.started) return [];
    this.started = true;
    this.usage = readUsage(field(message, 'usage'), null);
    const out: StreamEvent[] = [
      {
        type: 'start',
        id: text(field(message, 'id')),
        model: text(field(message, 'model')),
        created: Math.floor(Date.now() / 1000),
        usage: this.usage,
      },
    ];
    if (this.usage !== null) out.push({ type: 'usage', usage: this.usage });
    return out;
  }

  /** Content before message_start (never seen from Anthropic itself, possible from look-alikes) still needs a start. */
  private ensureStarted(out: StreamEvent[]): void {
    if (!this.started) out.push(...this.start(null));
  }

  private close(out: StreamEvent[]): void {
    if (this.open === null) return;
    out.push({ type: 'block_stop', index: this.open.index });
    this.open = null;
  }

  private openBlock(upstream: number, block: BlockStart, out: StreamEvent[]): number {
    this.close(out);
    const index = this.nextIndex++;
    this.open = { upstream, index };
    out.push({ type: 'block_start', index, block });
    return index;
  }

  private blockStart(upstreamIndex: unknown, block: unknown, out: StreamEvent[]): void {
    const upstream = typeof upstreamIndex === 'number' ? upstreamIndex : -1;
    switch (field(block, 'type')) {
      case 'text': {
        const index = this.openBlock(upstream, { type: 'text' }, out);
        const initial = text(field(block, 'text'));
        if (initial !== '') out.push({ type: 'text_delta', index, text: initial });
        return;
      }
      case 'thinking': {
        const index = this.openBlock(upstream, { type: 'reasoning' }, out);
        const initial = text(field(block, 'thinking'));
        if (initial !== '') out.push({ type: 'reasoning_delta', index, text: initial });
        const signature = text(field(block, 'signature'));
        if (signature !== '') out.push({ type: 'reasoning_proof', index, proof: { dialect: FORMAT, value: signature } });
        return;
      }
      case 'redacted_thinking': {
        // Arrives whole: the encrypted data is the block's proof, there is no readable text.
        const index = this.openBlock(upstream, { type: 'reasoning' }, out);
        out.push({ type: 'reasoning_proof', index, proof: { dialect: FORMAT, value: text(field(block, 'data')), redacted: true } });
        return;
      }
      case 'tool_use': {
        const index = this.openBlock(upstream, { type: 'tool_call', id: text(field(block, 'id')), name: text(field(block, 'name')) }, out);
        // Streams start tool_use with input {} and send the arguments as deltas; a filled input is the whole of them.
        const input = field(block, 'input');
        if (typeof input === 'object' && input !== null && Object.keys(input).length > 0) {
          out.push({ type: 'arguments_delta', index, json: JSON.stringify(input) });
        }
        return;
      }
      default:
        // server_tool_use, web_search_tool_result, ...: skipped with their deltas (no block stays open for them).
        this.close(out);
    }
  }

  private blockDelta(upstreamIndex: unknown, delta: unknown, out: StreamEvent[]): void {
    if (this.open === null || this.open.upstream !== upstreamIndex) return;
    const index = this.open.index;
    switch (field(delta, 'type')) {
      case 'text_delta': {
        const value = text(field(delta, 'text'));
        if (value !== '') out.push({ type: 'text_delta', index, text: value });
        return;
      }
      case 'thinking_delta': {
        const value = text(field(delta, 'thinking'));
        if (value !== '') out.push({ type: 'reasoning_delta', index, text: value });
        return;
      }
      case 'signature_delta': {
        const value = text(field(delta, 'signature'));
        if (value !== '') out.push({ type: 'reasoning_proof', index, proof: { dialect: FORMAT, value } });
        return;
      }
      case 'input_json_delta': {
        // The first fragment is often "".
        const value = text(field(delta, 'partial_json'));
        if (value !== '') out.push({ type: 'arguments_delta', index, json: value });
        return;
      }
      default:
      // citations_delta and newer kinds: no IR counterpart.
    }
  }

  private messageDelta(json: unknown, out: StreamEvent[]): void {
    // Cumulative counts; the ones left out (or null) keep what message_start said.
    const usage = readUsage(field(json, 'usage'), this.usage);
    if (usage !== null) {
      this.usage = usage;
      out.push({ type: 'usage', usage });
    }
    const delta = field(json, 'delta');
    const stopReason = field(delta, 'stop_reason');
    if (this.finished || stopReason === undefined || stopReason === null) return;
    this.close(out);
    this.finished = true;
    const stopSequence = field(delta, 'stop_sequence');
    out.push({ type: 'finish', reason: finishOf(stopReason), stopSequence: typeof stopSequence === 'string' ? stopSequence : null });
  }
}

export function createStreamDecoder(): StreamDecoder {
  return new AnthropicStreamDecoder();
}
