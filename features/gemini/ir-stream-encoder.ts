// IR events as the stream a Gemini client reads: `data:` events of one-line GenerateContentResponse JSON, no event
// names and no [DONE]. Text and thoughts go out as they come; a tool call is buffered and sent whole as one
// functionCall part at its block_stop (Gemini never streams a call's arguments); the last event carries the
// finishReason and the final usage, so a stream always has one (Gemini CLI retries a stream without it).

import type { ReasoningPart } from '../../core/ir/message.js';
import type { ChatRequest } from '../../core/ir/request.js';
import type { FinishReason } from '../../core/ir/response.js';
import type { EncodedFrame, StreamEncoder, StreamEvent } from '../../core/ir/stream.js';
import type { Usage } from '../../core/ir/usage.js';
import { errorObject } from './errors.js';
import { candidate, functionCallPart } from './ir-response.js';
import { writeUsageMetadata } from './ir-usage.js';
import { clientSignature } from './thought-signatures.js';

type Json = Record<string, unknown>;

interface Block {
  readonly kind: 'text' | 'reasoning' | 'tool_call';
  /** A tool call's id and name (empty otherwise). */
  readonly id: string;
  readonly name: string;
  readonly custom: boolean;
  /** Reasoning text so far (a foreign proof is wrapped with it); a tool call's arguments so far. */
  text: string;
  proof: ReasoningPart['proof'];
}

class GeminiStreamEncoder implements StreamEncoder {
  private id = '';
  private model = '';
  private usage: Usage | null = null;
  private finish: FinishReason | null = null;
  private failed = false;
  private readonly blocks = new Map<number, Block>();
  /** Proven reasoning closed since the last call: its proofs ride on the next functionCall part. */
  private proofs: ReasoningPart[] = [];

  push(event: StreamEvent): readonly EncodedFrame[] {
    if (this.failed) return [];
    switch (event.type) {
      case 'start':
        this.id = event.id;
        this.model = event.model;
        if (event.usage !== null) this.usage = event.usage;
        return [];
      case 'block_start': {
        const b = event.block;
        const call = b.type === 'tool_call';
        this.blocks.set(event.index, { kind: b.type, id: call ? b.id : '', name: call ? b.name : '', custom: call && b.custom === true, text: '', proof: null });
        return [];
      }
      case 'text_delta':
        return event.text === '' ? [] : [this.chunk([{ text: event.text }])];
      case 'reasoning_delta': {
        const block = this.blocks.get(event.index);
        if (block === undefined || event.text === '') return [];
        block.text += event.text;
        return [this.chunk([{ text: event.text, thought: true }])];
      }
      case 'reasoning_proof': {
        const block = this.blocks.get(event.index);
        if (block !== undefined) block.proof = event.proof;
        return [];
      }
      case 'arguments_delta': {
        const block = this.blocks.get(event.index);
        if (block !== undefined) block.text += event.json;
        return [];
      }
      case 'block_stop':
        return this.stop(event.index);
      case 'usage':
        this.usage = event.usage;
        return [];
      case 'finish':
        this.finish = event.reason;
        return [];
      case 'error':
        this.failed = true;
        // Gemini CLI reads an in-band error as an empty chunk; the stream then ends with no finishReason, which it
        // retries, as it retries a broken stream.
        return [{ data: JSON.stringify(errorObject(event.error)) }];
    }
  }

  /** The last event: proofs that found no call after them, the finishReason and the final usage. */
  end(): readonly EncodedFrame[] {
    if (this.failed) return [];
    const signature = clientSignature(this.proofs);
    this.proofs = [];
    const parts: Json[] = signature === null ? [] : [{ text: '', thoughtSignature: signature }];
    return [this.frame(candidate(parts, this.finish ?? 'stop'), true)];
  }

  private stop(index: number): readonly EncodedFrame[] {
    const block = this.blocks.get(index);
    if (block === undefined) return [];
    this.blocks.delete(index);
    if (block.kind === 'reasoning') {
      if (block.proof !== null) this.proofs.push({ type: 'reasoning', text: block.text, proof: block.proof });
      return [];
    }
    if (block.kind !== 'tool_call') return [];
    const signature = clientSignature(this.proofs);
    this.proofs = [];
    return [this.chunk([functionCallPart({ id: block.id, name: block.name, arguments: block.text, custom: block.custom }, signature)])];
  }

  private chunk(parts: readonly Json[]): EncodedFrame {
    return this.frame(candidate(parts, null), false);
  }

  private frame(c: Json, last: boolean): EncodedFrame {
    const body = {
      candidates: [c],
      ...(last ? { usageMetadata: writeUsageMetadata(this.usage) } : {}),
      modelVersion: this.model,
      responseId: this.id,
    };
    return { data: JSON.stringify(body) };
  }
}

/** `_request`: Gemini clients declare function tools only, so calls need no renaming. */
export function createStreamEncoder(_request: ChatRequest): StreamEncoder {
  return new GeminiStreamEncoder();
}
