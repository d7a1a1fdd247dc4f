// A chat request in the gateway's own vocabulary: what every client format decodes to and every upstream
// dialect encodes from.

import type { WireFormat } from '../config/resolved.js';
import type { Message } from './message.js';

export interface FunctionTool {
  readonly kind: 'function';
  /** The name the model sees. A Responses `namespace` member is flattened to `<namespace>__<name>`. */
  readonly name: string;
  /** The Responses namespace this tool was declared in, so Responses encoders can nest it (and split call names) again. */
  readonly namespace?: string;
  readonly description: string | null;
  /** JSON Schema of the arguments (an object schema). */
  readonly parameters: Record<string, unknown>;
  readonly strict: boolean | null;
}

/** A Responses free-form tool: its input is one string (a grammar may constrain it; other dialects cannot). */
export interface CustomTool {
  readonly kind: 'custom';
  readonly name: string;
  readonly description: string | null;
}

/**
 * A tool the provider runs itself (Responses web_search, Anthropic web_search_20250305, ...): kept as sent for
 * the dialect it belongs to; other dialects drop or reject it (see each encoder).
 */
export interface HostedTool {
  readonly kind: 'hosted';
  readonly dialect: WireFormat;
  readonly type: string;
  readonly definition: Record<string, unknown>;
}

export type Tool = FunctionTool | CustomTool | HostedTool;

export type ToolChoice =
  | { readonly type: 'auto' }
  | { readonly type: 'none' }
  | { readonly type: 'required' }
  | { readonly type: 'tool'; readonly name: string };

export type ResponseFormat =
  | { readonly type: 'json_object' }
  | {
      readonly type: 'json_schema';
      readonly name: string;
      readonly schema: Record<string, unknown>;
      readonly strict: boolean | null;
      readonly description: string | null;
    };

export type ReasoningEffort = 'none' | 'minimal' | 'low' | 'medium' | 'high' | 'xhigh' | 'max';

export interface Reasoning {
  /** null: the client gave a budget, not an effort. */
  readonly effort: ReasoningEffort | null;
  /** Anthropic's budget_tokens; null when the client gave an effort. */
  readonly budgetTokens: number | null;
}

export interface ChatRequest {
  readonly model: string;
  readonly messages: readonly Message[];
  readonly tools: readonly Tool[];
  readonly toolChoice: ToolChoice | null;
  /** false: at most one tool call per turn. */
  readonly parallelToolCalls: boolean | null;
  /** The output limit, reasoning included (max_tokens, max_completion_tokens, max_output_tokens). */
  readonly maxTokens: number | null;
  readonly temperature: number | null;
  readonly topP: number | null;
  readonly stop: readonly string[];
  readonly responseFormat: ResponseFormat | null;
  /** null: the client asked for no reasoning setting (or turned it off: then effort is 'none'). */
  readonly reasoning: Reasoning | null;
  readonly stream: boolean;
  /** The conversation key (metadata.user_id, prompt_cache_key), sent on so the upstream's cache routing can use it. */
  readonly conversation: string | null;
}
