// A whole generateContent answer: read from a Gemini upstream into the IR (with the stream's reader, so a whole answer
// and a stream of it give the same parts), and written for a Gemini client from another dialect's answer.

import { GatewayError } from '../../core/errors.js';
import type { ReasoningPart, ToolCallPart } from '../../core/ir/message.js';
import type { ChatRequest } from '../../core/ir/request.js';
import type { ChatResponse, FinishReason, OutputPart } from '../../core/ir/response.js';
import type { StreamEvent } from '../../core/ir/stream.js';
import type { Usage } from '../../core/ir/usage.js';
import { writeFinish } from './finish-reasons.js';
import { inBandError, isErrorBody } from './ir-error.js';
import { ChunkReader } from './ir-stream-decoder.js';
import { writeUsageMetadata } from './ir-usage.js';
import { clientSignature } from './thought-signatures.js';

type Json = Record<string, unknown>;

function notAnAnswer(): GatewayError {
  return new GatewayError('GW_ERR_UPSTREAM_ERROR', 'The upstream answered with a body that is not a Gemini GenerateContentResponse.');
}

function isAnswer(chunk: unknown): boolean {
  if (typeof chunk !== 'object' || chunk === null || Array.isArray(chunk)) return false;
  const c = chunk as Json;
  return Array.isArray(c['candidates']) || c['promptFeedback'] !== undefined || c['usageMetadata'] !== undefined;
}

/** The parts, finish and usage a whole answer's events tell. */
function fold(events: readonly StreamEvent[]): ChatResponse {
  let id = '';
  let model = '';
  let created = Math.floor(Date.now() / 1000);
  let finish: FinishReason | null = null;
  let usage: Usage | null = null;
  const parts: { type: OutputPart['type']; text: string; proof: ReasoningPart['proof']; id: string; name: string }[] = [];
  for (const e of events) {
    switch (e.type) {
      case 'start':
        ({ id, model, created } = e);
        break;
      case 'block_start':
        parts[e.index] = { type: e.block.type, text: '', proof: null, id: e.block.type === 'tool_call' ? e.block.id : '', name: e.block.type === 'tool_call' ? e.block.name : '' };
        break;
      case 'text_delta':
      case 'reasoning_delta': {
        const part = parts[e.index];
        if (part !== undefined) part.text += e.text;
        break;
      }
      case 'arguments_delta': {
        const part = parts[e.index];
        if (part !== undefined) part.text += e.json;
        break;
      }
      case 'reasoning_proof': {
        const part = parts[e.index];
        if (part !== undefined) part.proof = e.proof;
        break;
      }
      case 'finish':
        finish = e.reason;
        break;
      case 'usage':
        usage = e.usage;
        break;
      default:
    }
  }
  const output = parts.map((p): OutputPart => {
    if (p.type === 'tool_call') return { type: 'tool_call', id: p.id, name: p.name, arguments: p.text };
    if (p.type === 'reasoning') return { type: 'reasoning', text: p.text, proof: p.proof };
    return { type: 'text', text: p.text };
  });
  const calls = output.some((p) => p.type === 'tool_call');
  // Gemini always says why a whole answer ended; one that does not ended normally.
  return { id, model, created, parts: output, finish: finish ?? (calls ? 'tool_calls' : 'stop'), stopSequence: null, usage };
}

export function decodeResponse(body: Buffer): ChatResponse {
  let json: unknown;
  try {
    json = JSON.parse(body.toString('utf8'));
  } catch {
    throw notAnAnswer();
  }
  if (isErrorBody(json)) throw inBandError(json);
  // The JSON-array form of streamGenerateContent (no alt=sse) is one answer in pieces.
  const chunks: readonly unknown[] = Array.isArray(json) ? json : [json];
  if (chunks.length === 0 || !chunks.every(isAnswer)) throw notAnAnswer();
  const reader = new ChunkReader();
  const events: StreamEvent[] = [];
  for (const chunk of chunks) reader.read(chunk, events);
  reader.close(events);
  return fold(events);
}

// ---- the client side ----

/** A call's args as the object Gemini requires: a custom (free-form) call's input as {input}; text that is no object as {}. */
export function callArgs(part: Pick<ToolCallPart, 'arguments' | 'custom'>): Json {
  if (part.custom === true) return { input: part.arguments };
  try {
    const parsed: unknown = JSON.parse(part.arguments);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Json) : {};
  } catch {
    return {};
  }
}

export function functionCallPart(part: Pick<ToolCallPart, 'id' | 'name' | 'arguments' | 'custom'>, signature: string | null): Json {
  return { functionCall: { id: part.id, name: part.name, args: callArgs(part) }, ...(signature === null ? {} : { thoughtSignature: signature }) };
}

/**
 * Where the proofs left after the last call go: on the last part Gemini CLI keeps (not a thought), or on an empty
 * text part of their own.
 */
export function placeTrailing(parts: Json[], signature: string): void {
  const last = parts.findLast((p) => p['thought'] !== true);
  if (last !== undefined && last['thoughtSignature'] === undefined) last['thoughtSignature'] = signature;
  else parts.push({ text: '', thoughtSignature: signature });
}

/** The answer's parts for a Gemini client; each reasoning proof rides on the next functionCall part (Gemini CLI keeps those verbatim). */
function clientParts(parts: readonly OutputPart[]): Json[] {
  const out: Json[] = [];
  let proofs: ReasoningPart[] = [];
  for (const part of parts) {
    if (part.type === 'reasoning') {
      if (part.text !== '') out.push({ text: part.text, thought: true });
      if (part.proof !== null) proofs.push(part);
    } else if (part.type === 'text') {
      if (part.text !== '') out.push({ text: part.text });
    } else {
      out.push(functionCallPart(part, clientSignature(proofs)));
      proofs = [];
    }
  }
  const trailing = clientSignature(proofs);
  if (trailing !== null) placeTrailing(out, trailing);
  return out;
}

/** One candidate (index 0) as Gemini writes it: no content when there are no parts (a filtered answer). */
export function candidate(parts: readonly Json[], finish: FinishReason | null): Json {
  return Object.assign({}, parts.length === 0 ? {} : { content: { role: 'model', parts } }, finish === null ? {} : { finishReason: writeFinish(finish) }, { index: 0 });
}

/** `_request`: Gemini clients declare function tools only, so calls need no renaming. */
export function encodeResponse(response: ChatResponse, _request: ChatRequest): Buffer {
  const body = {
    candidates: [candidate(clientParts(response.parts), response.finish)],
    usageMetadata: writeUsageMetadata(response.usage),
    modelVersion: response.model,
    responseId: response.id,
  };
  return Buffer.from(JSON.stringify(body), 'utf8');
}
