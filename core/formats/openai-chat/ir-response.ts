// A whole (non-stream) chat completion: read from a Chat upstream into the IR, and written for a chat client.

import { GatewayError } from '../../errors.js';
import type { ChatRequest } from '../../ir/request.js';
import type { ChatResponse, OutputPart } from '../../ir/response.js';
import { count, field } from '../json-fields.js';
import { readError } from './ir-error.js';
import { chatId, readFinish, writeFinish, writeUsage } from './ir-usage.js';
import { readUsage } from './usage.js';

function notAnAnswer(): GatewayError {
  return new GatewayError('GW_ERR_UPSTREAM_ERROR', 'The upstream answered with a body that is not a chat completion.');
}

function str(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null;
}

/** Text of `content`, a string or (some compatible servers) an array of text parts. */
function contentText(content: unknown): string | null {
  if (!Array.isArray(content)) return str(content);
  return str(content.map((p: unknown) => (typeof field(p, 'text') === 'string' ? field(p, 'text') : '')).join(''));
}

function readParts(message: unknown): OutputPart[] {
  const parts: OutputPart[] = [];
  // Not an OpenAI field: DeepSeek, vLLM and others put the reasoning there (OpenRouter: `reasoning`).
  const reasoning = str(field(message, 'reasoning_content')) ?? str(field(message, 'reasoning'));
  if (reasoning !== null) parts.push({ type: 'reasoning', text: reasoning, proof: null });
  // A refusal is what the model said instead of an answer: the client of another format sees it as text.
  const text = contentText(field(message, 'content')) ?? str(field(message, 'refusal'));
  if (text !== null) parts.push({ type: 'text', text });
  const calls = field(message, 'tool_calls');
  if (Array.isArray(calls)) {
    calls.forEach((call: unknown, k) => {
      const id = str(field(call, 'id')) ?? `call_${k}`;
      if (field(call, 'type') === 'custom') {
        const custom = field(call, 'custom');
        const input = field(custom, 'input');
        parts.push({ type: 'tool_call', id, name: str(field(custom, 'name')) ?? '', arguments: typeof input === 'string' ? input : '', custom: true });
        return;
      }
      const fn = field(call, 'function');
      const args = field(fn, 'arguments');
      parts.push({ type: 'tool_call', id, name: str(field(fn, 'name')) ?? '', arguments: typeof args === 'string' ? args : '' });
    });
  }
  return parts;
}

export function decodeResponse(body: Buffer): ChatResponse {
  let json: unknown;
  try {
    json = JSON.parse(body.toString('utf8'));
  } catch {
    throw notAnAnswer();
  }
  // Some compatible servers answer errors with status 200.
  const error = field(json, 'error');
  if (error !== undefined && error !== null) throw readError(error, null, json);
  const choices = field(json, 'choices');
  if (!Array.isArray(choices)) throw notAnAnswer();
  const choice: unknown = choices.find((c: unknown) => field(c, 'index') === 0) ?? choices[0];
  const parts = readParts(field(choice, 'message'));
  return {
    id: str(field(json, 'id')) ?? '',
    model: str(field(json, 'model')) ?? '',
    created: count(field(json, 'created'), Math.floor(Date.now() / 1000)),
    parts,
    finish: readFinish(field(choice, 'finish_reason'), parts.some((p) => p.type === 'tool_call')),
    stopSequence: null,
    usage: readUsage(field(json, 'usage')),
  };
}

/** Arguments as the client's function tool expects them: a custom (free-form) call's raw input becomes {input}. */
export function callArguments(args: string, custom: boolean | undefined): string {
  return custom === true ? JSON.stringify({ input: args }) : args;
}

/** `_request`: chat clients declare function tools only, so calls need no renaming. */
export function encodeResponse(response: ChatResponse, _request: ChatRequest): Buffer {
  let text: string | null = null;
  let reasoning: string | null = null;
  const calls: Record<string, unknown>[] = [];
  for (const part of response.parts) {
    if (part.type === 'text') {
      text = (text ?? '') + part.text;
    } else if (part.type === 'reasoning') {
      // Proofs are lost (a chat client has no field to send them back in); redacted reasoning has no text.
      if (part.text !== '') reasoning = reasoning === null ? part.text : `${reasoning}\n\n${part.text}`;
    } else {
      calls.push({ id: part.id, type: 'function', function: { name: part.name, arguments: callArguments(part.arguments, part.custom) } });
    }
  }
  const message = {
    role: 'assistant',
    content: text,
    ...(reasoning === null ? {} : { reasoning_content: reasoning }),
    ...(calls.length === 0 ? {} : { tool_calls: calls }),
    refusal: null,
  };
  const body = {
    id: chatId(response.id),
    object: 'chat.completion',
    created: response.created,
    model: response.model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: writeFinish(response.finish) }],
    usage: writeUsage(response.usage),
  };
  return Buffer.from(JSON.stringify(body), 'utf8');
}
