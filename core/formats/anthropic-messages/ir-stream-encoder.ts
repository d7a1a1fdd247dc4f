// IR events as the stream an Anthropic client reads: every frame named by `event:` (Claude Code and the SDK
// dispatch on it), message_start, content blocks, and message_delta + message_stop at the very end, when the
// final usage is known.

import type { GatewayError } from '../../errors.js';
import type { ReasoningProof } from '../../ir/message.js';
import type { ChatRequest } from '../../ir/request.js';
import type { FinishReason } from '../../ir/response.js';
import type { EncodedFrame, StreamEncoder, StreamEvent } from '../../ir/stream.js';
import type { Usage } from '../../ir/usage.js';
import { encodeError } from './errors.js';
import { clientReasoningBlock, clientSignature, messageId, stopReasonOf } from './ir-response.js';
import { writeUsage } from './ir-usage.js';

const FORMAT = 'anthropic-messages';

interface Block {
  /** The client's content block index, counted here so it is dense and ordered whatever IR indexes arrive. */
  readonly index: number;
  readonly kind: 'text' | 'reasoning' | 'tool_call';
  /** content_block_start was written. Reasoning waits for its first delta or proof: a redacted proof starts another block type. */
  started: boolean;
  /** A redacted_thinking block: complete at its start, nothing but its stop follows. */
  redacted: boolean;
  /** Reasoning text so far; a custom tool call's raw input so far. */
  text: string;
  proof: ReasoningProof | null;
  /** A free-form (Responses custom) tool call: its deltas are raw input, sent at its stop as {"input": ...}. */
  readonly custom: boolean;
}

function frame(data: { readonly type: string } & Record<string, unknown>): EncodedFrame {
  return { event: data.type, data: JSON.stringify(data) };
}

/**
 * The frame of nearly every translated chunk, as frame() would write it (the same keys in the same order), with
 * only the text through JSON.stringify: no object per chunk to build and walk.
 */
function textDeltaFrame(index: number, text: string): EncodedFrame {
  return { event: 'content_block_delta', data: `{"type":"content_block_delta","index":${index},"delta":{"type":"text_delta","text":${JSON.stringify(text)}}}` };
}

class AnthropicStreamEncoder implements StreamEncoder {
  private started = false;
  private failed = false;
  private ended = false;
  private id = 'msg_gateway';
  private model = '';
  private usage: Usage | null = null;
  private finish: { reason: FinishReason; stopSequence: string | null } | null = null;
  /** Blocks by IR index; closed blocks stay so a late delta (chat tool calls) still finds its client index. */
  private readonly blocks = new Map<number, Block>();
  private open: Block | null = null;
  private nextIndex = 0;

  push(event: StreamEvent): readonly EncodedFrame[] {
    if (this.failed || this.ended) return [];
    const out: EncodedFrame[] = [];
    switch (event.type) {
      case 'start':
        if (this.started) break;
        this.id = messageId(event.id);
        this.model = event.model;
        this.usage = event.usage;
        this.writeStart(out);
        break;
      case 'block_start':
        this.ensureStarted(out);
        this.closeOpen(out);
        this.startBlock(event.index, event.block, out);
        break;
      case 'text_delta': {
        const block = this.blocks.get(event.index);
        if (block === undefined || event.text === '') break;
        out.push(textDeltaFrame(block.index, event.text));
        break;
      }
      case 'reasoning_delta': {
        const block = this.blocks.get(event.index);
        if (block === undefined || block.redacted || event.text === '') break;
        this.startThinking(block, out);
        block.text += event.text;
        out.push(frame({ type: 'content_block_delta', index: block.index, delta: { type: 'thinking_delta', thinking: event.text } }));
        break;
      }
      case 'reasoning_proof': {
        const block = this.blocks.get(event.index);
        if (block === undefined) break;
        if (!block.started && event.proof.redacted === true && event.proof.dialect === FORMAT) {
          block.redacted = true;
          block.started = true;
          out.push(frame({ type: 'content_block_start', index: block.index, content_block: clientReasoningBlock({ text: '', proof: event.proof }) }));
        } else {
          // Written as a signature_delta at the block's stop, when the whole text (wrapped with a foreign proof) is known.
          block.proof = event.proof;
        }
        break;
      }
      case 'arguments_delta': {
        // A late delta of an earlier tool call (chat upstreams may interleave them) keeps that call's index.
        const block = this.blocks.get(event.index);
        if (block === undefined || event.json === '') break;
        if (block.custom) {
          block.text += event.json;
          break;
        }
        out.push(frame({ type: 'content_block_delta', index: block.index, delta: { type: 'input_json_delta', partial_json: event.json } }));
        break;
      }
      case 'block_stop': {
        const block = this.blocks.get(event.index);
        if (block !== undefined && block === this.open) this.closeOpen(out);
        break;
      }
      case 'usage':
        this.usage = event.usage;
        break;
      case 'finish':
        this.finish = { reason: event.reason, stopSequence: event.stopSequence };
        break;
      case 'error':
        this.failed = true;
        out.push(errorFrame(event.error));
        break;
    }
    return out;
  }

  end(): readonly EncodedFrame[] {
    if (this.failed || this.ended) return [];
    this.ended = true;
    const out: EncodedFrame[] = [];
    this.ensureStarted(out);
    this.closeOpen(out);
    const finish = this.finish ?? { reason: 'stop', stopSequence: null };
    out.push(
      frame({
        type: 'message_delta',
        delta: { stop_reason: stopReasonOf(finish.reason), stop_sequence: finish.reason === 'stop_sequence' ? finish.stopSequence : null },
        usage: writeUsage(this.usage),
      }),
    );
    out.push(frame({ type: 'message_stop' }));
    return out;
  }

  private writeStart(out: EncodedFrame[]): void {
    this.started = true;
    out.push(
      frame({
        type: 'message_start',
        message: {
          id: this.id,
          type: 'message',
          role: 'assistant',
          model: this.model,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: writeUsage(this.usage),
        },
      }),
    );
  }

  /** Events before `start` do not happen with the gateway's decoders; a client still needs message_start first. */
  private ensureStarted(out: EncodedFrame[]): void {
    if (!this.started) this.writeStart(out);
  }

  private startBlock(irIndex: number, start: Extract<StreamEvent, { type: 'block_start' }>['block'], out: EncodedFrame[]): void {
    const custom = start.type === 'tool_call' && start.custom === true;
    const block: Block = { index: this.nextIndex++, kind: start.type, started: start.type !== 'reasoning', redacted: false, text: '', proof: null, custom };
    this.blocks.set(irIndex, block);
    this.open = block;
    if (start.type === 'text') {
      out.push(frame({ type: 'content_block_start', index: block.index, content_block: { type: 'text', text: '' } }));
    } else if (start.type === 'tool_call') {
      out.push(frame({ type: 'content_block_start', index: block.index, content_block: { type: 'tool_use', id: start.id, name: start.name, input: {} } }));
    }
  }

  private startThinking(block: Block, out: EncodedFrame[]): void {
    if (block.started) return;
    block.started = true;
    out.push(frame({ type: 'content_block_start', index: block.index, content_block: { type: 'thinking', thinking: '', signature: '' } }));
  }

  private closeOpen(out: EncodedFrame[]): void {
    const block = this.open;
    if (block === null) return;
    this.open = null;
    if (block.kind === 'reasoning' && !block.redacted) {
      this.startThinking(block, out);
      const signature = clientSignature(block.proof, block.text);
      // An empty signature is never sent as a delta: the block start already said "".
      if (signature !== '') out.push(frame({ type: 'content_block_delta', index: block.index, delta: { type: 'signature_delta', signature } }));
    }
    if (block.custom) {
      const json = JSON.stringify({ input: block.text });
      out.push(frame({ type: 'content_block_delta', index: block.index, delta: { type: 'input_json_delta', partial_json: json } }));
    }
    out.push(frame({ type: 'content_block_stop', index: block.index }));
  }
}

/** `event: error` with Anthropic's error body: the SDK and Claude Code raise it by that name. */
function errorFrame(error: GatewayError): EncodedFrame {
  return { event: 'error', data: encodeError(error).body };
}

export function createStreamEncoder(_request: ChatRequest): StreamEncoder {
  return new AnthropicStreamEncoder();
}
