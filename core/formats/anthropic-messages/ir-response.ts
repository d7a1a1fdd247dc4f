// Whole Anthropic answers and the IR: an upstream's message decoded, an IR answer written for a client.

import { GatewayError } from '../../errors.js';
import type { ReasoningPart, ReasoningProof, ToolCallPart } from '../../ir/message.js';
import { wrapProof } from '../../ir/proof-tag.js';
import type { ChatRequest } from '../../ir/request.js';
import type { ChatResponse, FinishReason, OutputPart } from '../../ir/response.js';
import { field } from '../json-fields.js';
import { inBandError } from './ir-error.js';
import { writeUsage } from './ir-usage.js';
import { readUsage } from './usage.js';

type Json = Record<string, unknown>;

const FORMAT = 'anthropic-messages';

/** Tool arguments as the object Anthropic's tool_use.input must be; text that is not a JSON object reads as {}. */
function parseArguments(text: string): Json {
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Json) : {};
  } catch {
    return {};
  }
}

/** tool_use.input of a call: a custom (free-form) call carries its raw input string as {"input": ...}. */
export function toolCallInput(part: ToolCallPart): Json {
  return part.custom === true ? { input: part.arguments } : parseArguments(part.arguments);
}

/** stop_reason as a finish reason; a missing or unknown one (a newer API) reads as a normal stop. */
export function finishOf(stopReason: unknown): FinishReason {
  switch (stopReason) {
    case 'stop_sequence':
      return 'stop_sequence';
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length';
    case 'tool_use':
      return 'tool_calls';
    case 'refusal':
      return 'content_filter';
    default:
      // end_turn, and pause_turn (a server tool paused the turn; the answer so far is whole).
      return 'stop';
  }
}

const STOP_REASONS: Record<FinishReason, string> = {
  stop: 'end_turn',
  stop_sequence: 'stop_sequence',
  length: 'max_tokens',
  tool_calls: 'tool_use',
  content_filter: 'refusal',
};

export function stopReasonOf(finish: FinishReason): string {
  return STOP_REASONS[finish];
}

/** Anthropic message ids start with msg_; an id of another dialect keeps its text behind the prefix. */
export function messageId(id: string): string {
  return id.startsWith('msg_') ? id : `msg_${id}`;
}

/**
 * The signature an Anthropic client gets for a reasoning proof: its own dialect's as is, another dialect's
 * wrapped (with the text, which Anthropic clients send back verbatim) so it survives the round trip.
 */
export function clientSignature(proof: ReasoningProof | null, text: string): string {
  if (proof === null) return '';
  return proof.dialect === FORMAT ? proof.value : wrapProof(proof, text);
}

/** A reasoning part for an Anthropic client: thinking signed with its proof, or redacted_thinking. */
export function clientReasoningBlock(part: Pick<ReasoningPart, 'text' | 'proof'>): Json {
  if (part.proof !== null && part.proof.dialect === FORMAT && part.proof.redacted === true) return { type: 'redacted_thinking', data: part.proof.value };
  return { type: 'thinking', thinking: part.text, signature: clientSignature(part.proof, part.text) };
}

/** A reasoning part from an upstream's thinking block: its signature is Anthropic's own (none: no proof). */
function upstreamThinking(text: string, signature: unknown): ReasoningPart {
  return {
    type: 'reasoning',
    text,
    proof: typeof signature === 'string' && signature !== '' ? { dialect: FORMAT, value: signature } : null,
  };
}

function notAnAnswer(): GatewayError {
  return new GatewayError('GW_ERR_UPSTREAM_ERROR', 'The upstream answered with a body that is not an Anthropic message.');
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

export function decodeResponse(body: Buffer): ChatResponse {
  let json: unknown;
  try {
    json = JSON.parse(body.toString('utf8'));
  } catch {
    throw notAnAnswer();
  }
  const type = field(json, 'type');
  if (type === 'error') throw inBandError(json);
  const content = field(json, 'content');
  if (type !== 'message' || !Array.isArray(content)) throw notAnAnswer();
  const parts: OutputPart[] = [];
  for (const block of content) {
    switch (field(block, 'type')) {
      case 'text':
        parts.push({ type: 'text', text: text(field(block, 'text')) });
        break;
      case 'thinking':
        parts.push(upstreamThinking(text(field(block, 'thinking')), field(block, 'signature')));
        break;
      case 'redacted_thinking':
        parts.push({ type: 'reasoning', text: '', proof: { dialect: FORMAT, value: text(field(block, 'data')), redacted: true } });
        break;
      case 'tool_use': {
        const input = field(block, 'input');
        parts.push({
          type: 'tool_call',
          id: text(field(block, 'id')),
          name: text(field(block, 'name')),
          arguments: JSON.stringify(input === undefined || input === null ? {} : input),
        });
        break;
      }
      default:
      // server_tool_use, web_search_tool_result, ...: the provider's own tools, with no counterpart elsewhere.
    }
  }
  const stopSequence = field(json, 'stop_sequence');
  return {
    id: text(field(json, 'id')),
    model: text(field(json, 'model')),
    // Anthropic messages carry no creation time.
    created: Math.floor(Date.now() / 1000),
    parts,
    finish: finishOf(field(json, 'stop_reason')),
    stopSequence: typeof stopSequence === 'string' ? stopSequence : null,
    usage: readUsage(field(json, 'usage'), null),
  };
}

export function encodeResponse(response: ChatResponse, _request: ChatRequest): Buffer {
  const content = response.parts.map((part): Json => {
    switch (part.type) {
      case 'text':
        return { type: 'text', text: part.text };
      case 'reasoning':
        return clientReasoningBlock(part);
      case 'tool_call':
        return { type: 'tool_use', id: part.id, name: part.name, input: toolCallInput(part) };
    }
  });
  const message = {
    id: messageId(response.id),
    type: 'message',
    role: 'assistant',
    model: response.model,
    content,
    stop_reason: stopReasonOf(response.finish),
    stop_sequence: response.finish === 'stop_sequence' ? response.stopSequence : null,
    usage: writeUsage(response.usage),
  };
  return Buffer.from(JSON.stringify(message), 'utf8');
}
