// Whole Responses answers to and from the IR, and the output items both the answer and the stream encoder
// write (one item per IR part, ids derived from the response id so they are stable across both).

import { GatewayError } from '../../errors.js';
import type { ReasoningPart, ReasoningProof } from '../../ir/message.js';
import { unwrapProof, wrapProof } from '../../ir/proof-tag.js';
import type { ChatRequest, FunctionTool, Tool } from '../../ir/request.js';
import type { ChatResponse, FinishReason, OutputPart } from '../../ir/response.js';
import { upstreamError } from '../../ir/upstream-error.js';
import { ZERO_USAGE, type Usage } from '../../ir/usage.js';
import { count, field } from '../json-fields.js';
import { decodeFailedResponse } from './ir-error.js';
import { readUsage } from './usage.js';
import { writeUsage } from './ir-usage.js';

const FORMAT = 'openai-responses';

// ---- Call names: flattened in the IR, nested again for a Responses client ----

/** A namespace member's IR name; other dialects have no namespaces, so the namespace becomes a name prefix. */
export function flatName(name: string, namespace: unknown): string {
  return typeof namespace === 'string' && namespace !== '' ? `${namespace}__${name}` : name;
}

/** How a call is written for a Responses reader: a custom tool's call, or a function call (nested in its namespace). */
export type CallShape =
  | { readonly kind: 'function'; readonly name: string; readonly namespace: string | null }
  | { readonly kind: 'custom'; readonly name: string };

/**
 * `custom`: the call already is a custom call (it came from a Responses upstream). Otherwise the request's tools
 * decide: a call of a declared custom tool, or of a function declared in a namespace, is restored as declared.
 */
export function callShape(name: string, custom: boolean, tools: readonly Tool[]): CallShape {
  if (custom || tools.some((t) => t.kind === 'custom' && t.name === name)) return { kind: 'custom', name };
  const declared = tools.find((t): t is FunctionTool => t.kind === 'function' && t.name === name);
  const namespace = declared?.namespace;
  if (namespace !== undefined && name.startsWith(`${namespace}__`)) {
    return { kind: 'function', name: name.slice(namespace.length + 2), namespace };
  }
  return { kind: 'function', name, namespace: null };
}

/**
 * The free-form input of a custom tool call. Toward Anthropic and Chat a custom tool is a function taking
 * {"input": string}, so its arguments arrive as that JSON; `raw` arguments (a Responses upstream) are the input.
 */
export function customInput(args: string, raw: boolean): string {
  if (raw) return args;
  try {
    const input = field(JSON.parse(args), 'input');
    if (typeof input === 'string') return input;
  } catch {
    // Not JSON: the model wrote the input itself, give it as is.
  }
  return args;
}

// ---- Reasoning ----

/** A reasoning item's readable text: its summaries, else its raw reasoning text (open-weight servers send that). */
function reasoningText(item: unknown): string {
  const pick = (list: unknown, type: string): string[] =>
    Array.isArray(list)
      ? list.filter((p) => field(p, 'type') === type && typeof field(p, 'text') === 'string').map((p) => field(p, 'text') as string)
      : [];
  const summary = pick(field(item, 'summary'), 'summary_text');
  return summary.length > 0 ? summary.join('\n\n') : pick(field(item, 'content'), 'reasoning_text').join('\n\n');
}

/**
 * A reasoning item as an IR part. `unwrap` (client side): encrypted_content may be a proof the gateway wrapped
 * for this client earlier (reasoning of another dialect); it goes back to the IR as that proof.
 */
export function readReasoning(item: unknown, unwrap: boolean): ReasoningPart {
  const text = reasoningText(item);
  const encrypted = field(item, 'encrypted_content');
  if (typeof encrypted !== 'string' || encrypted === '') return { type: 'reasoning', text, proof: null };
  const wrapped = unwrap ? unwrapProof(encrypted) : null;
  if (wrapped !== null) return { type: 'reasoning', text: wrapped.text ?? text, proof: wrapped.proof };
  const id = field(item, 'id');
  const proof: ReasoningProof = { dialect: FORMAT, value: encrypted, ...(typeof id === 'string' && id !== '' ? { id } : {}) };
  return { type: 'reasoning', text, proof };
}

/** What a Responses client gets in encrypted_content: its own dialect's value, or a foreign proof wrapped. */
function encryptedContent(proof: ReasoningProof | null, text: string): string | null {
  if (proof === null) return null;
  return proof.dialect === FORMAT ? proof.value : wrapProof(proof, text);
}

// ---- Ids ----

export function responseId(id: string): string {
  return id.startsWith('resp_') ? id : `resp_${id}`;
}

/** Item ids derived from the response id and the output index, or from the call id. */
export function itemId(kind: 'message' | 'reasoning', responseId: string, outputIndex: number): string {
  const base = responseId.startsWith('resp_') ? responseId.slice('resp_'.length) : responseId;
  return `${kind === 'message' ? 'msg' : 'rs'}_${base}_${outputIndex}`;
}

export function callItemId(shape: CallShape, callId: string): string {
  return `${shape.kind === 'custom' ? 'ctc' : 'fc'}_${callId}`;
}

// ---- Output items (client side) ----

type Item = Record<string, unknown>;

export function messageItem(id: string, text: string): Item {
  return { id, type: 'message', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text, annotations: [] }] };
}

export function reasoningItem(id: string, text: string, proof: ReasoningProof | null): Item {
  const encrypted = encryptedContent(proof, text);
  return {
    id,
    type: 'reasoning',
    summary: text === '' ? [] : [{ type: 'summary_text', text }],
    ...(encrypted === null ? {} : { encrypted_content: encrypted }),
  };
}

/** `value`: the arguments (function) or the input (custom) the call ends with, '' while it is in progress. */
export function callItem(shape: CallShape, callId: string, value: string, status: 'in_progress' | 'completed'): Item {
  const id = callItemId(shape, callId);
  if (shape.kind === 'custom') return { id, type: 'custom_tool_call', status, call_id: callId, name: shape.name, input: value };
  return {
    id,
    type: 'function_call',
    status,
    call_id: callId,
    name: shape.name,
    ...(shape.namespace === null ? {} : { namespace: shape.namespace }),
    arguments: value,
  };
}

// ---- Status ----

export interface ResponseStatus {
  readonly status: 'completed' | 'incomplete';
  readonly incompleteDetails: { readonly reason: string } | null;
}

export function statusOf(finish: FinishReason): ResponseStatus {
  if (finish === 'length') return { status: 'incomplete', incompleteDetails: { reason: 'max_output_tokens' } };
  if (finish === 'content_filter') return { status: 'incomplete', incompleteDetails: { reason: 'content_filter' } };
  return { status: 'completed', incompleteDetails: null };
}

/** `hasCalls`: a completed response that ends in a call waits for its result, as tool_calls does elsewhere. */
export function finishOf(status: unknown, incompleteReason: unknown, hasCalls: boolean): FinishReason {
  if (status === 'incomplete') return incompleteReason === 'content_filter' ? 'content_filter' : 'length';
  return hasCalls ? 'tool_calls' : 'stop';
}

export interface ResponseFields {
  readonly id: string;
  readonly created: number;
  readonly model: string;
  readonly status: 'in_progress' | 'completed' | 'incomplete' | 'failed';
  readonly incompleteDetails: { readonly reason: string } | null;
  readonly error: { readonly code: string; readonly message: string } | null;
  readonly output: readonly Item[];
  readonly usage: Usage | null;
}

/** The response object of an answer and of the stream's created/completed/failed events. */
export function responseObject(f: ResponseFields): Item {
  return {
    id: f.id,
    object: 'response',
    created_at: f.created,
    status: f.status,
    error: f.error,
    incomplete_details: f.incompleteDetails,
    model: f.model,
    output: f.output,
    usage: f.usage === null ? null : writeUsage(f.usage),
  };
}

// ---- Client side: the answer ----

function outputItem(part: OutputPart, id: string, outputIndex: number, request: ChatRequest): Item {
  switch (part.type) {
    case 'text':
      return messageItem(itemId('message', id, outputIndex), part.text);
    case 'reasoning':
      return reasoningItem(itemId('reasoning', id, outputIndex), part.text, part.proof);
    case 'tool_call': {
      const shape = callShape(part.name, part.custom === true, request.tools);
      const value = shape.kind === 'custom' ? customInput(part.arguments, part.custom === true) : part.arguments;
      return callItem(shape, part.id, value, 'completed');
    }
  }
}

export function encodeResponse(response: ChatResponse, request: ChatRequest): Buffer {
  const id = responseId(response.id);
  const { status, incompleteDetails } = statusOf(response.finish);
  const body = responseObject({
    id,
    created: response.created,
    model: response.model,
    status,
    incompleteDetails,
    error: null,
    output: response.parts.map((part, n) => outputItem(part, id, n, request)),
    usage: response.usage ?? ZERO_USAGE,
  });
  return Buffer.from(JSON.stringify(body), 'utf8');
}

// ---- Upstream side: the answer ----

function notAnAnswer(detail: string): GatewayError {
  return upstreamError({ status: null, type: null, code: null, message: `The upstream's answer is not a Responses object: ${detail}.` });
}

/** One output item as IR parts; items of hosted tools (web_search_call, ...) have no IR counterpart and are left out. */
export function readOutputItem(item: unknown): OutputPart[] {
  switch (field(item, 'type')) {
    case 'message': {
      const content = field(item, 'content');
      if (!Array.isArray(content)) return [];
      const parts: OutputPart[] = [];
      for (const part of content) {
        const kind = field(part, 'type');
        const text = kind === 'output_text' ? field(part, 'text') : kind === 'refusal' ? field(part, 'refusal') : undefined;
        if (typeof text === 'string') parts.push({ type: 'text', text });
      }
      return parts;
    }
    case 'reasoning':
      return [readReasoning(item, false)];
    case 'function_call':
      return [
        {
          type: 'tool_call',
          id: String(field(item, 'call_id') ?? ''),
          name: flatName(String(field(item, 'name') ?? ''), field(item, 'namespace')),
          arguments: typeof field(item, 'arguments') === 'string' ? (field(item, 'arguments') as string) : '',
        },
      ];
    case 'custom_tool_call':
      return [
        {
          type: 'tool_call',
          id: String(field(item, 'call_id') ?? ''),
          name: String(field(item, 'name') ?? ''),
          arguments: typeof field(item, 'input') === 'string' ? (field(item, 'input') as string) : '',
          custom: true,
        },
      ];
    default:
      return [];
  }
}

export function decodeResponse(body: Buffer): ChatResponse {
  let json: unknown;
  try {
    json = JSON.parse(body.toString('utf8'));
  } catch {
    throw notAnAnswer('it is not JSON');
  }
  if (field(json, 'status') === 'failed' || (typeof field(json, 'error') === 'object' && field(json, 'error') !== null)) {
    throw decodeFailedResponse(json);
  }
  const output = field(json, 'output');
  if (!Array.isArray(output)) throw notAnAnswer('it has no output');
  const parts = output.flatMap(readOutputItem);
  const id = field(json, 'id');
  const model = field(json, 'model');
  return {
    id: typeof id === 'string' ? id : '',
    model: typeof model === 'string' ? model : '',
    created: count(field(json, 'created_at'), Math.floor(Date.now() / 1000)),
    parts,
    finish: finishOf(
      field(json, 'status'),
      field(field(json, 'incomplete_details'), 'reason'),
      parts.some((p) => p.type === 'tool_call'),
    ),
    stopSequence: null,
    usage: readUsage(field(json, 'usage')),
  };
}
