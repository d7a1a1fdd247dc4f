// The typed hub every translation goes through: one conversation model that each wire format reads and writes.
// A wire format never converts to another vendor's JSON directly (N + M codecs, not N x M translators).

import type { WireFormat } from '../config/resolved.js';

export type ImageSource =
  | { readonly kind: 'url'; readonly url: string }
  | { readonly kind: 'base64'; readonly mediaType: string; readonly data: string };

/**
 * What makes a reasoning block replayable, and for which dialect: an Anthropic thinking `signature` (or a
 * `redacted_thinking` blob), a Responses reasoning item's `encrypted_content` (and its id). It is only valid
 * for the dialect that wrote it; encoders drop reasoning whose proof belongs to another dialect.
 */
export interface ReasoningProof {
  readonly dialect: WireFormat;
  readonly value: string;
  /** Responses reasoning item id. */
  readonly id?: string;
  /** Anthropic redacted_thinking: `value` is its `data`, there is no readable text. */
  readonly redacted?: boolean;
}

export interface TextPart {
  readonly type: 'text';
  readonly text: string;
}

export interface ImagePart {
  readonly type: 'image';
  readonly source: ImageSource;
  /** OpenAI's detail hint (auto, low, high), kept where the target has it. */
  readonly detail?: string;
}

export interface ReasoningPart {
  readonly type: 'reasoning';
  readonly text: string;
  readonly proof: ReasoningProof | null;
}

export interface ToolCallPart {
  readonly type: 'tool_call';
  readonly id: string;
  readonly name: string;
  /** The arguments as JSON text, exactly as the model produced them (custom tools: the raw input string). */
  readonly arguments: string;
  /** A Responses `custom` tool call (free-form input, not JSON arguments). */
  readonly custom?: boolean;
}

export interface ToolResultPart {
  readonly type: 'tool_result';
  readonly callId: string;
  readonly content: readonly (TextPart | ImagePart)[];
  readonly isError: boolean;
  /** Answers a Responses `custom` tool call. */
  readonly custom?: boolean;
}

export type Part = TextPart | ImagePart | ReasoningPart | ToolCallPart | ToolResultPart;

/**
 * One turn. `system` covers system and developer instructions, wherever they stood; `tool` messages hold
 * exactly one tool_result part each, in the order the calls were answered.
 */
export interface Message {
  readonly role: 'system' | 'user' | 'assistant' | 'tool';
  readonly parts: readonly Part[];
}
