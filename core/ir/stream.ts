// A translated stream as typed events. Output is a sequence of blocks (text, reasoning, one tool call each),
// opened, filled and closed in order; a decoder assigns block indexes 0, 1, 2, ... as blocks open.

import type { GatewayError } from '../errors.js';
import type { ReasoningProof } from './message.js';
import type { FinishReason } from './response.js';
import type { Usage } from './usage.js';

export type BlockStart =
  | { readonly type: 'text' }
  | { readonly type: 'reasoning' }
  | { readonly type: 'tool_call'; readonly id: string; readonly name: string; readonly custom?: boolean };

export type StreamEvent =
  /** First event of every stream. `usage`: what the upstream said at the start (Anthropic: input tokens), else null. */
  | { readonly type: 'start'; readonly id: string; readonly model: string; readonly created: number; readonly usage: Usage | null }
  | { readonly type: 'block_start'; readonly index: number; readonly block: BlockStart }
  | { readonly type: 'text_delta'; readonly index: number; readonly text: string }
  | { readonly type: 'reasoning_delta'; readonly index: number; readonly text: string }
  /** The proof of a reasoning block (signature, encrypted content), before its block_stop. */
  | { readonly type: 'reasoning_proof'; readonly index: number; readonly proof: ReasoningProof }
  | { readonly type: 'arguments_delta'; readonly index: number; readonly json: string }
  | { readonly type: 'block_stop'; readonly index: number }
  /** The usage known so far, whole (not a difference); the last one is final. */
  | { readonly type: 'usage'; readonly usage: Usage }
  /** The upstream finished normally; nothing but usage follows. */
  | { readonly type: 'finish'; readonly reason: FinishReason; readonly stopSequence: string | null }
  /** The upstream reported an error in the stream; it is the last event. */
  | { readonly type: 'error'; readonly error: GatewayError };

/** Upstream frames to events. Stateful, one per stream. */
export interface StreamDecoder {
  /** `event` and `data` of one SSE frame; returns the events it completes (often none). */
  push(event: string | null, data: string): readonly StreamEvent[];
  /** The upstream ended the stream: the events still owed (open blocks closed). Throws when it ended too early. */
  end(): readonly StreamEvent[];
}

/** Events to a client's frames. Stateful, one per stream. */
export interface StreamEncoder {
  push(event: StreamEvent): readonly EncodedFrame[];
  /** After the last event: whatever the format still owes (terminal frames), when the decoder ended normally. */
  end(): readonly EncodedFrame[];
}

/** A frame to write: `event` is the SSE event name (omitted for formats without one). */
export interface EncodedFrame {
  readonly event?: string;
  readonly data: string;
}
