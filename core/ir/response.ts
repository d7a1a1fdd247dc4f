// A finished answer (non-stream), and the reasons an answer ends.

import type { ReasoningPart, TextPart, ToolCallPart } from './message.js';
import type { Usage } from './usage.js';

/** Why generation stopped; each format maps these to its own words. */
export type FinishReason = 'stop' | 'stop_sequence' | 'length' | 'tool_calls' | 'content_filter';

export type OutputPart = TextPart | ReasoningPart | ToolCallPart;

export interface ChatResponse {
  readonly id: string;
  readonly model: string;
  /** Unix seconds. */
  readonly created: number;
  readonly parts: readonly OutputPart[];
  readonly finish: FinishReason;
  /** The stop sequence that matched, when finish is stop_sequence and the upstream said which. */
  readonly stopSequence: string | null;
  readonly usage: Usage | null;
}
