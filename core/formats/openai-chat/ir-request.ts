// A Chat Completions request to the IR (a chat client answered by another dialect) and back (a chat upstream).

import { GatewayError } from '../../errors.js';
import { promptCacheKey } from '../../ir/cache-key.js';
import { imageFromUrl, imageToUrl } from '../../ir/data-url.js';
import type { ImagePart, Message, Part, TextPart, ToolCallPart } from '../../ir/message.js';
import type { ChatRequest, Reasoning, ReasoningEffort, ResponseFormat, Tool, ToolChoice } from '../../ir/request.js';
import { shown, type JsonObject } from '../field-reader.js';
import type { ParsedRequest } from '../format.js';
import { CHAT_OUTPUT_CAPS, outputCapOf } from '../output-cap.js';
import { openaiFields as read } from './fields.js';

type Json = Record<string, unknown>;

function unsupported(param: string, message: string): GatewayError {
  return new GatewayError('GW_ERR_TRANSLATION_UNSUPPORTED', message, { param });
}

// ---- decode: client request -> IR ----
// Every value below the shallow schema's reach is read through `read`, which refuses one of another type with
// the 400 naming it: a client's body never meets a reader that did not expect it.

/** What would change the shape of the answer, which another dialect cannot give. */
function rejectUnsupported(json: Json): void {
  const n = json['n'];
  if (typeof n === 'number' && n > 1) {
    throw unsupported('n', `"n" greater than 1 cannot be translated for this model's upstream: it answers with one choice.`);
  }
  if (json['logprobs'] === true) throw unsupported('logprobs', `"logprobs" cannot be translated for this model's upstream.`);
  for (const legacy of ['functions', 'function_call'] as const) {
    if (json[legacy] !== undefined && json[legacy] !== null) {
      throw unsupported(legacy, `The legacy "${legacy}" parameter cannot be translated for this model's upstream; use "tools".`);
    }
  }
  const modalities = json['modalities'];
  if (Array.isArray(modalities) && modalities.includes('audio')) {
    throw unsupported('modalities', `Audio output cannot be translated for this model's upstream.`);
  }
}

function decodeImage(part: JsonObject, param: string): ImagePart {
  const image = part['image_url'];
  // The SDK sends {url, detail}; a few clients send the URL alone.
  if (typeof image === 'string') return { type: 'image', source: imageFromUrl(image) };
  const spec = read.object(image, `${param}.image_url`);
  const url = read.string(spec['url'], `${param}.image_url.url`);
  const detail = read.optionalString(spec['detail'], `${param}.image_url.detail`);
  return { type: 'image', source: imageFromUrl(url), ...(detail === null ? {} : { detail }) };
}

/**
 * `content` as a string or parts. Empty texts are dropped: chat clients send content "" next to tool calls, and
 * Anthropic rejects empty text blocks. `images`: whether this role may carry images.
 */
function decodeContent(content: unknown, param: string, images: boolean): (TextPart | ImagePart)[] {
  if (content === undefined || content === null) return [];
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }];
  if (!Array.isArray(content)) throw read.refuse(content, param, ['string', 'array']);
  const parts: (TextPart | ImagePart)[] = [];
  content.forEach((value: unknown, j) => {
    const at = `${param}[${j}]`;
    const part = read.object(value, at);
    const type = read.string(part['type'], `${at}.type`);
    if (type === 'text' || type === 'refusal') {
      const text = read.string(part[type], `${at}.${type}`);
      if (text !== '') parts.push({ type: 'text', text });
    } else if (type === 'image_url' && images) {
      parts.push(decodeImage(part, at));
    } else {
      throw unsupported(at, `Content part type "${shown(type)}" cannot be sent to this model's upstream.`);
    }
  });
  return parts;
}

function decodeToolCall(value: unknown, param: string): ToolCallPart {
  const call = read.object(value, param);
  const id = read.string(call['id'], `${param}.id`);
  if (call['type'] === 'custom') {
    const custom = read.object(call['custom'], `${param}.custom`);
    const name = read.string(custom['name'], `${param}.custom.name`);
    const input = read.optionalString(custom['input'], `${param}.custom.input`);
    return { type: 'tool_call', id, name, arguments: input ?? '', custom: true };
  }
  const fn = read.object(call['function'], `${param}.function`);
  const name = read.string(fn['name'], `${param}.function.name`);
  const args = fn['arguments'];
  // Some clients replay parsed arguments; the IR keeps JSON text.
  const text = typeof args === 'string' ? args : args === undefined || args === null ? '{}' : JSON.stringify(args);
  return { type: 'tool_call', id, name, arguments: text };
}

function decodeAssistant(m: Json, param: string): Part[] {
  const parts: Part[] = [];
  // Not an OpenAI field: DeepSeek, vLLM and others return the reasoning there, and clients replay it.
  const reasoning = typeof m['reasoning_content'] === 'string' ? m['reasoning_content'] : m['reasoning'];
  if (typeof reasoning === 'string' && reasoning !== '') parts.push({ type: 'reasoning', text: reasoning, proof: null });
  const content = decodeContent(m['content'], `${param}.content`, false);
  parts.push(...content);
  const refusal = read.optionalString(m['refusal'], `${param}.refusal`);
  if (content.length === 0 && refusal !== null && refusal !== '') parts.push({ type: 'text', text: refusal });
  const calls = read.optionalArray(m['tool_calls'], `${param}.tool_calls`) ?? [];
  calls.forEach((call: unknown, k) => parts.push(decodeToolCall(call, `${param}.tool_calls[${k}]`)));
  return parts;
}

function decodeMessage(value: unknown, i: number): Message {
  const param = `messages[${i}]`;
  const m = read.object(value, param);
  switch (m['role']) {
    case 'system':
    case 'developer':
      return { role: 'system', parts: decodeContent(m['content'], `${param}.content`, false) };
    case 'user':
      return { role: 'user', parts: decodeContent(m['content'], `${param}.content`, true) };
    case 'assistant':
      return { role: 'assistant', parts: decodeAssistant(m, param) };
    case 'tool': {
      const callId = read.string(m['tool_call_id'], `${param}.tool_call_id`);
      // OpenAI takes text parts only; images are accepted too, since the IR and other dialects can carry them.
      const content = decodeContent(m['content'], `${param}.content`, true);
      return { role: 'tool', parts: [{ type: 'tool_result', callId, content, isError: false }] };
    }
    default:
      throw unsupported(`${param}.role`, `Messages with role "${shown(m['role'])}" cannot be translated for this model's upstream.`);
  }
}

function decodeTools(tools: unknown): Tool[] {
  return (read.optionalArray(tools, 'tools') ?? []).map((value: unknown, i): Tool => {
    const param = `tools[${i}]`;
    const tool = read.object(value, param);
    const type = read.string(tool['type'], `${param}.type`);
    if (type !== 'function') {
      throw unsupported(param, `Tool type "${shown(type)}" cannot be translated for this model's upstream.`);
    }
    const fn = read.object(tool['function'], `${param}.function`);
    const parameters = read.optionalObject(fn['parameters'], `${param}.function.parameters`);
    return {
      kind: 'function',
      name: read.string(fn['name'], `${param}.function.name`),
      description: read.optionalString(fn['description'], `${param}.function.description`),
      // OpenAI allows omitting parameters (a tool without arguments); other dialects need an object schema.
      parameters: parameters ?? { type: 'object', properties: {} },
      strict: read.optionalBoolean(fn['strict'], `${param}.function.strict`),
    };
  });
}

function decodeToolChoice(choice: unknown): ToolChoice | null {
  if (choice === undefined || choice === null) return null;
  if (choice === 'auto' || choice === 'none' || choice === 'required') return { type: choice };
  if (typeof choice === 'string') throw read.invalid('tool_choice', `expected none, auto, required or a tool, but got "${shown(choice)}"`);
  const spec = read.object(choice, 'tool_choice');
  if (spec['type'] === 'function') {
    const fn = read.object(spec['function'], 'tool_choice.function');
    return { type: 'tool', name: read.string(fn['name'], 'tool_choice.function.name') };
  }
  // allowed_tools, custom: the other dialects cannot say it.
  throw unsupported('tool_choice', `This "tool_choice" cannot be translated for this model's upstream.`);
}

function decodeStop(stop: unknown): string[] {
  if (stop === undefined || stop === null) return [];
  if (typeof stop === 'string') return stop === '' ? [] : [stop];
  if (!Array.isArray(stop)) throw read.refuse(stop, 'stop', ['string', 'array']);
  return stop.map((s: unknown, i) => read.string(s, `stop[${i}]`)).filter((s) => s !== '');
}

function decodeResponseFormat(value: unknown): ResponseFormat | null {
  const format = read.optionalObject(value, 'response_format');
  const type = read.optionalString(format?.['type'], 'response_format.type');
  if (format === null || type === null || type === 'text') return null;
  if (type === 'json_object') return { type: 'json_object' };
  if (type === 'json_schema') {
    const spec = read.optionalObject(format['json_schema'], 'response_format.json_schema') ?? {};
    const at = 'response_format.json_schema';
    return {
      type: 'json_schema',
      name: read.optionalString(spec['name'], `${at}.name`) ?? 'response',
      schema: read.optionalObject(spec['schema'], `${at}.schema`) ?? {},
      strict: read.optionalBoolean(spec['strict'], `${at}.strict`),
      description: read.optionalString(spec['description'], `${at}.description`),
    };
  }
  throw unsupported('response_format.type', `Response format "${shown(type)}" cannot be translated for this model's upstream.`);
}

const EFFORTS: ReadonlySet<string> = new Set<ReasoningEffort>(['none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max']);

function decodeReasoning(effort: unknown): Reasoning | null {
  if (effort === undefined || effort === null) return null;
  if (typeof effort !== 'string' || !EFFORTS.has(effort)) throw read.invalid('reasoning_effort', `expected one of ${[...EFFORTS].join(', ')}`);
  return { effort: effort as ReasoningEffort, budgetTokens: null };
}

/** The cap reserved for this request (output-cap.ts), so the one a translated request carries is the one it paid for. */
function outputCap(json: Record<string, unknown>): number | null {
  read.optionalNumber(json['max_completion_tokens'], 'max_completion_tokens');
  // max_tokens is deprecated but still what most clients send; both named, the larger is the cap.
  read.optionalNumber(json['max_tokens'], 'max_tokens');
  return outputCapOf(json, CHAT_OUTPUT_CAPS);
}

export function decodeRequest(request: ParsedRequest): ChatRequest {
  const json = request.json;
  rejectUnsupported(json);
  const messages = read.array(json['messages'], 'messages');
  return {
    model: request.model,
    messages: messages.map(decodeMessage),
    tools: decodeTools(json['tools']),
    toolChoice: decodeToolChoice(json['tool_choice']),
    parallelToolCalls: read.optionalBoolean(json['parallel_tool_calls'], 'parallel_tool_calls'),
    maxTokens: outputCap(json),
    temperature: read.optionalNumber(json['temperature'], 'temperature'),
    topP: read.optionalNumber(json['top_p'], 'top_p'),
    stop: decodeStop(json['stop']),
    responseFormat: decodeResponseFormat(json['response_format']),
    reasoning: decodeReasoning(json['reasoning_effort']),
    stream: request.stream,
    conversation: request.conversation,
  };
}

// ---- encode: IR -> upstream request ----

function joinText(parts: readonly Part[], separator: string): string {
  return parts.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join(separator);
}

function encodeImage(part: ImagePart): Json {
  return { type: 'image_url', image_url: { url: imageToUrl(part.source), ...(part.detail === undefined ? {} : { detail: part.detail }) } };
}

function encodeUserContent(parts: readonly Part[]): string | Json[] {
  const only = parts[0];
  // A plain string is what every OpenAI-compatible server accepts; parts only when there is more than one text.
  if (parts.length === 1 && only?.type === 'text') return only.text;
  const content = parts.flatMap((p): Json[] => (p.type === 'text' ? [{ type: 'text', text: p.text }] : p.type === 'image' ? [encodeImage(p)] : []));
  // OpenAI rejects an empty parts array, not an empty string.
  return content.length === 0 ? '' : content;
}

function encodeToolCall(part: ToolCallPart): Json {
  // A Responses custom tool is declared as a function taking {input}; its history calls must match that schema.
  const args = part.custom === true ? JSON.stringify({ input: part.arguments }) : part.arguments;
  return { id: part.id, type: 'function', function: { name: part.name, arguments: args } };
}

/** Reasoning parts are dropped: Chat has no standard field to send them back in. */
function encodeAssistant(parts: readonly Part[]): Json {
  const text = joinText(parts, '');
  const calls = parts.flatMap((p) => (p.type === 'tool_call' ? [encodeToolCall(p)] : []));
  if (calls.length === 0) return { role: 'assistant', content: text };
  return { role: 'assistant', content: text === '' ? null : text, tool_calls: calls };
}

/**
 * Tool messages carry text only: images of a run of tool results go to one user message after the run (a user
 * message between tool messages would separate them from the assistant turn they answer, which OpenAI rejects).
 */
function encodeMessages(messages: readonly Message[]): Json[] {
  const out: Json[] = [];
  let images: Json[] = [];
  const flushImages = (): void => {
    if (images.length > 0) out.push({ role: 'user', content: images });
    images = [];
  };
  for (const m of messages) {
    if (m.role !== 'tool') flushImages();
    if (m.role === 'system') out.push({ role: 'system', content: joinText(m.parts, '\n\n') });
    else if (m.role === 'user') out.push({ role: 'user', content: encodeUserContent(m.parts) });
    else if (m.role === 'assistant') out.push(encodeAssistant(m.parts));
    else {
      for (const p of m.parts) {
        if (p.type !== 'tool_result') continue;
        out.push({ role: 'tool', tool_call_id: p.callId, content: joinText(p.content, '\n\n') });
        images.push(...p.content.flatMap((c) => (c.type === 'image' ? [encodeImage(c)] : [])));
      }
    }
  }
  flushImages();
  return out;
}

const CUSTOM_PARAMETERS = { type: 'object', properties: { input: { type: 'string' } }, required: ['input'] };

function encodeTool(tool: Tool): Json[] {
  switch (tool.kind) {
    case 'function': {
      const fn = {
        name: tool.name,
        ...(tool.description === null ? {} : { description: tool.description }),
        parameters: tool.parameters,
        ...(tool.strict === null ? {} : { strict: tool.strict }),
      };
      return [{ type: 'function', function: fn }];
    }
    case 'custom': {
      // A free-form tool becomes a function of one string; the client side turns {input} back into raw input.
      const note = 'Pass the whole input of this tool as the string argument "input".';
      const description = tool.description === null ? note : `${tool.description}\n\n${note}`;
      return [{ type: 'function', function: { name: tool.name, description, parameters: CUSTOM_PARAMETERS } }];
    }
    case 'hosted':
      if (tool.dialect === 'openai-chat') return [tool.definition];
      // Without the provider's search the model answers from what it knows; better than failing the request.
      if (tool.type.startsWith('web_search')) return [];
      throw unsupported('tools', `Tool type "${tool.type}" cannot be translated for this model's upstream.`);
  }
}

function encodeToolChoice(choice: ToolChoice): unknown {
  return choice.type === 'tool' ? { type: 'function', function: { name: choice.name } } : choice.type;
}

function encodeResponseFormat(format: ResponseFormat): Json {
  if (format.type === 'json_object') return { type: 'json_object' };
  const spec = {
    name: format.name,
    schema: format.schema,
    ...(format.strict === null ? {} : { strict: format.strict }),
    ...(format.description === null ? {} : { description: format.description }),
  };
  return { type: 'json_schema', json_schema: spec };
}

/** An Anthropic budget, in the nearest effort. */
function encodeEffort(reasoning: Reasoning): ReasoningEffort | null {
  if (reasoning.effort !== null) return reasoning.effort;
  if (reasoning.budgetTokens === null) return null;
  return reasoning.budgetTokens <= 2048 ? 'low' : reasoning.budgetTokens <= 8192 ? 'medium' : 'high';
}


export function encodeRequest(request: ChatRequest, model: string): Buffer {
  const tools = request.tools.flatMap(encodeTool);
  const effort = request.reasoning === null ? null : encodeEffort(request.reasoning);
  const body: Json = {
    model,
    messages: encodeMessages(request.messages),
    // OpenAI rejects tool_choice and parallel_tool_calls without tools.
    ...(tools.length === 0 ? {} : { tools }),
    ...(tools.length === 0 || request.toolChoice === null ? {} : { tool_choice: encodeToolChoice(request.toolChoice) }),
    ...(tools.length === 0 || request.parallelToolCalls === null ? {} : { parallel_tool_calls: request.parallelToolCalls }),
    ...(request.maxTokens === null ? {} : { max_completion_tokens: request.maxTokens }),
    ...(request.temperature === null ? {} : { temperature: request.temperature }),
    ...(request.topP === null ? {} : { top_p: request.topP }),
    ...(request.stop.length === 0 ? {} : { stop: request.stop }),
    ...(request.responseFormat === null ? {} : { response_format: encodeResponseFormat(request.responseFormat) }),
    ...(effort === null ? {} : { reasoning_effort: effort }),
    ...(request.conversation === null ? {} : { prompt_cache_key: promptCacheKey(request.conversation) }),
    stream: request.stream,
    // Always: usage is what the gateway meters, whatever the client asked.
    ...(request.stream ? { stream_options: { include_usage: true } } : {}),
  };
  return Buffer.from(JSON.stringify(body), 'utf8');
}
