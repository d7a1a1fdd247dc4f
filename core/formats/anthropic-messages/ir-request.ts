// Anthropic Messages requests and the IR, both ways: a client's body decoded (client side) and an IR request
// written for an Anthropic upstream. The IR keeps no cache_control: it only means something to the dialect
// that wrote it, and a same-dialect request never comes through here (it is passed through untouched).

import { GatewayError } from '../../errors.js';
import type { ImagePart, ImageSource, Message, Part, ReasoningPart, TextPart, ToolResultPart } from '../../ir/message.js';
import { unwrapProof } from '../../ir/proof-tag.js';
import type { ChatRequest, Reasoning, ReasoningEffort, ResponseFormat, Tool, ToolChoice } from '../../ir/request.js';
import type { JsonObject } from '../field-reader.js';
import type { ParsedRequest } from '../format.js';
import { MESSAGES_OUTPUT_CAPS, outputCapOf } from '../output-cap.js';
import { anthropicFields as read } from './fields.js';
import { toolCallInput } from './ir-response.js';

type Json = Record<string, unknown>;

const FORMAT = 'anthropic-messages';

/** Anthropic requires max_tokens; what a client of another format that set no limit gets. */
const DEFAULT_MAX_TOKENS = 8192;

/** Anthropic's smallest thinking budget. */
const MIN_THINKING_BUDGET = 1024;

/** Thinking budgets for the efforts other dialects ask for. */
const BUDGETS: Record<Exclude<ReasoningEffort, 'none'>, number> = { minimal: 1024, low: 2048, medium: 8192, high: 16384, xhigh: 32768, max: 32768 };

const EFFORTS: ReadonlySet<string> = new Set<ReasoningEffort>(['none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max']);

/** A free-form (Responses custom) tool as a function tool: the whole input travels as one string. */
const CUSTOM_TOOL_SCHEMA = { type: 'object', properties: { input: { type: 'string' } }, required: ['input'] } as const;

function untranslatable(param: string, message: string): GatewayError {
  return new GatewayError('GW_ERR_TRANSLATION_UNSUPPORTED', message, { param });
}

function unsupportedBlock(param: string, type: string): GatewayError {
  return untranslatable(param, `Content block type "${type}" cannot be translated for this model's upstream.`);
}

// ---------------------------------------------------------------------------------------------------------
// Decoding a client's request. Every value below the shallow schema's reach is read through `read`
// (fields.ts), which refuses one of another type with the 400 naming it, in Anthropic's words.

export function decodeRequest(request: ParsedRequest): ChatRequest {
  const body = request.json;
  const messages: Message[] = [];
  const system = decodeSystem(body['system']);
  if (system !== null) messages.push(system);
  read.array(body['messages'], 'messages').forEach((message: unknown, i) => messages.push(...decodeMessage(message, `messages.${i}`)));
  const toolChoice = read.optionalObject(body['tool_choice'], 'tool_choice');
  const disableParallel = read.optionalBoolean(toolChoice?.['disable_parallel_tool_use'], 'tool_choice.disable_parallel_tool_use');
  const stop = read.optionalArray(body['stop_sequences'], 'stop_sequences') ?? [];
  const outputConfig = read.optionalObject(body['output_config'], 'output_config');
  return {
    model: request.model,
    messages,
    tools: decodeTools(body['tools']),
    toolChoice: decodeToolChoice(toolChoice),
    parallelToolCalls: disableParallel === null ? null : !disableParallel,
    // The cap reserved for this request (output-cap.ts): the one it paid for is the one sent on.
    maxTokens: read.optionalNumber(body['max_tokens'], 'max_tokens') === null ? null : outputCapOf(body, MESSAGES_OUTPUT_CAPS),
    temperature: read.optionalNumber(body['temperature'], 'temperature'),
    topP: read.optionalNumber(body['top_p'], 'top_p'),
    stop: stop.map((s: unknown, i) => read.string(s, `stop_sequences.${i}`)),
    responseFormat: decodeResponseFormat(outputConfig),
    reasoning: decodeReasoning(body['thinking'], outputConfig),
    stream: request.stream,
    conversation: request.conversation,
  };
}

/** The top-level `system` (a string or text blocks) as one system message, one part per block. */
function decodeSystem(value: unknown): Message | null {
  if (value === undefined || value === null) return null;
  const parts = decodeTextOnly(value, 'system');
  return parts.length === 0 ? null : { role: 'system', parts };
}

function decodeTextOnly(content: unknown, param: string): TextPart[] {
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }];
  if (!Array.isArray(content)) throw read.refuse(content, param, ['string', 'array']);
  return content.map((value: unknown, j): TextPart => {
    const block = read.object(value, `${param}.${j}`);
    if (read.string(block['type'], `${param}.${j}.type`) !== 'text') throw read.invalid(`${param}.${j}.type`, "Input should be 'text'");
    return { type: 'text', text: read.string(block['text'], `${param}.${j}.text`) };
  });
}

/** The blocks of a message's content; a string is one text block. */
function blocksOf(content: unknown, param: string): readonly JsonObject[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  if (!Array.isArray(content)) throw read.refuse(content, param, ['string', 'array']);
  return content.map((block: unknown, j) => read.object(block, `${param}.${j}`));
}

/**
 * One Anthropic message as IR messages. A user turn answering tool calls becomes one tool message per
 * tool_result (in order), then a user message with whatever else the turn held (Claude Code appends text).
 */
function decodeMessage(value: unknown, path: string): Message[] {
  const message = read.object(value, path);
  const role = message['role'];
  const content = message['content'];
  switch (role) {
    // Claude Code puts role:"system" messages inside messages[]; they are instructions like the top-level system.
    case 'system':
      return [{ role: 'system', parts: decodeTextOnly(content, `${path}.content`) }];
    case 'user': {
      const results: Message[] = [];
      const rest: Part[] = [];
      blocksOf(content, `${path}.content`).forEach((block, j) => {
        const param = `${path}.content.${j}`;
        if (block['type'] === 'tool_result') results.push({ role: 'tool', parts: [decodeToolResult(block, param)] });
        else rest.push(decodeUserBlock(block, param));
      });
      return results.length > 0 && rest.length === 0 ? results : [...results, { role: 'user', parts: rest }];
    }
    case 'assistant':
      return [{ role: 'assistant', parts: blocksOf(content, `${path}.content`).map((block, j) => decodeAssistantBlock(block, `${path}.content.${j}`)) }];
    default:
      throw read.invalid(`${path}.role`, "Input should be 'user' or 'assistant'");
  }
}

function decodeUserBlock(block: JsonObject, param: string): TextPart | ImagePart {
  const type = read.string(block['type'], `${param}.type`);
  switch (type) {
    case 'text':
      // citations and cache_control have no counterpart; the text is what the model reads.
      return { type: 'text', text: read.string(block['text'], `${param}.text`) };
    case 'image':
      return { type: 'image', source: decodeImageSource(read.object(block['source'], `${param}.source`), `${param}.source`) };
    default:
      // document, search_result, container_upload, ...: no counterpart in the other dialects.
      throw unsupportedBlock(`${param}.type`, type);
  }
}

function decodeImageSource(source: JsonObject, param: string): ImageSource {
  const type = read.string(source['type'], `${param}.type`);
  if (type === 'base64') {
    return {
      kind: 'base64',
      mediaType: read.string(source['media_type'], `${param}.media_type`),
      data: read.string(source['data'], `${param}.data`),
    };
  }
  if (type === 'url') return { kind: 'url', url: read.string(source['url'], `${param}.url`) };
  // "file" names an upload in Anthropic's Files API, which no other upstream can read.
  throw untranslatable(`${param}.type`, `Image source type "${type}" cannot be translated for this model's upstream.`);
}

function decodeToolResult(block: JsonObject, param: string): ToolResultPart {
  const content = block['content'];
  let parts: (TextPart | ImagePart)[];
  if (content === undefined || content === null) parts = [];
  else if (typeof content === 'string') parts = [{ type: 'text', text: content }];
  else parts = blocksOf(content, `${param}.content`).map((inner, k) => decodeUserBlock(inner, `${param}.content.${k}`));
  return {
    type: 'tool_result',
    callId: read.string(block['tool_use_id'], `${param}.tool_use_id`),
    content: parts,
    isError: read.optionalBoolean(block['is_error'], `${param}.is_error`) === true,
  };
}

function decodeAssistantBlock(block: JsonObject, param: string): Part {
  const type = read.string(block['type'], `${param}.type`);
  switch (type) {
    case 'text':
      return { type: 'text', text: read.string(block['text'], `${param}.text`) };
    case 'thinking':
      return clientThinking(read.string(block['thinking'], `${param}.thinking`), read.optionalString(block['signature'], `${param}.signature`));
    case 'redacted_thinking': {
      const data = read.string(block['data'], `${param}.data`);
      const wrapped = unwrapProof(data);
      if (wrapped !== null) return { type: 'reasoning', text: wrapped.text ?? '', proof: wrapped.proof };
      return { type: 'reasoning', text: '', proof: { dialect: FORMAT, value: data, redacted: true } };
    }
    case 'tool_use':
      return {
        type: 'tool_call',
        id: read.string(block['id'], `${param}.id`),
        name: read.string(block['name'], `${param}.name`),
        arguments: JSON.stringify(read.optionalObject(block['input'], `${param}.input`) ?? {}),
      };
    default:
      // server_tool_use, web_search_tool_result and the other server tool blocks: the upstream never ran them.
      throw unsupportedBlock(`${param}.type`, type);
  }
}

/**
 * A thinking block a client sent back. Its signature is Anthropic's own only if this gateway did not wrap
 * another dialect's proof in it (reasoning answered by another upstream): then the wrapped proof and text count.
 */
function clientThinking(text: string, signature: string | null): ReasoningPart {
  if (signature === null || signature === '') return { type: 'reasoning', text, proof: null };
  const wrapped = unwrapProof(signature);
  if (wrapped !== null) return { type: 'reasoning', text: wrapped.text ?? text, proof: wrapped.proof };
  return { type: 'reasoning', text, proof: { dialect: FORMAT, value: signature } };
}

function decodeTools(value: unknown): Tool[] {
  return (read.optionalArray(value, 'tools') ?? []).map((entry: unknown, i): Tool => {
    const param = `tools.${i}`;
    const tool = read.object(entry, param);
    const type = read.optionalString(tool['type'], `${param}.type`);
    if (type === null || type === 'custom') {
      return {
        kind: 'function',
        name: read.string(tool['name'], `${param}.name`),
        description: read.optionalString(tool['description'], `${param}.description`),
        parameters: read.object(tool['input_schema'], `${param}.input_schema`),
        strict: read.optionalBoolean(tool['strict'], `${param}.strict`),
      };
    }
    // web_search_*, bash_*, text_editor_*, computer_*, code_execution_*, ...: run by Anthropic itself.
    return { kind: 'hosted', dialect: FORMAT, type, definition: tool };
  });
}

const TOOL_CHOICES: ReadonlyMap<string, ToolChoice> = new Map([
  ['auto', { type: 'auto' }],
  ['any', { type: 'required' }],
  ['none', { type: 'none' }],
]);

function decodeToolChoice(value: JsonObject | null): ToolChoice | null {
  if (value === null) return null;
  const type = read.string(value['type'], 'tool_choice.type');
  if (type === 'tool') return { type: 'tool', name: read.string(value['name'], 'tool_choice.name') };
  const choice = TOOL_CHOICES.get(type);
  if (choice === undefined) throw read.invalid('tool_choice.type', "Input should be 'auto', 'any', 'tool' or 'none'");
  return choice;
}

function decodeResponseFormat(outputConfig: JsonObject | null): ResponseFormat | null {
  const format = read.optionalObject(outputConfig?.['format'], 'output_config.format');
  if (format === null || read.string(format['type'], 'output_config.format.type') !== 'json_schema') return null;
  const schema = read.object(format['schema'], 'output_config.format.schema');
  // Anthropic's format has no name; the OpenAI dialects require one.
  return { type: 'json_schema', name: 'output', schema, strict: null, description: null };
}

function decodeReasoning(thinkingValue: unknown, outputConfig: JsonObject | null): Reasoning | null {
  const given = read.optionalString(outputConfig?.['effort'], 'output_config.effort');
  const effort = given !== null && EFFORTS.has(given) ? (given as ReasoningEffort) : null;
  const thinking = read.optionalObject(thinkingValue, 'thinking');
  switch (thinking === null ? null : read.string(thinking['type'], 'thinking.type')) {
    case 'enabled':
      return { effort: null, budgetTokens: read.number(thinking?.['budget_tokens'], 'thinking.budget_tokens') };
    case 'adaptive':
      // Adaptive thinking is sized by output_config.effort; without one the shared rule reads it as medium.
      return { effort: effort ?? 'medium', budgetTokens: null };
    case 'disabled':
      return { effort: 'none', budgetTokens: null };
    default:
      return effort === null ? null : { effort, budgetTokens: null };
  }
}

// ---------------------------------------------------------------------------------------------------------
// Encoding for an Anthropic upstream.

interface Turn {
  readonly role: 'user' | 'assistant';
  blocks: Json[];
}

export function encodeRequest(request: ChatRequest, model: string): Buffer {
  const turns = encodeTurns(request.messages);
  const tools = encodeTools(request.tools);
  const maxTokens = request.maxTokens ?? DEFAULT_MAX_TOKENS;
  const toolChoice = tools.length === 0 ? null : encodeToolChoice(request.toolChoice, request.parallelToolCalls);
  const thinking = encodeThinking(request.reasoning, maxTokens, turns, toolChoice);
  const body: Json = { model, max_tokens: maxTokens };
  const system = encodeSystem(request.messages);
  if (system.length > 0) body['system'] = system;
  body['messages'] = turns.map((turn) => ({ role: turn.role, content: turn.blocks }));
  if (tools.length > 0) body['tools'] = tools;
  if (toolChoice !== null) body['tool_choice'] = toolChoice;
  if (thinking !== null) body['thinking'] = thinking;
  // Anthropic rejects temperature and top_p next to thinking; its temperature stops at 1 where OpenAI's goes to 2.
  if (thinking?.['type'] !== 'enabled') {
    if (request.temperature !== null) body['temperature'] = Math.min(1, Math.max(0, request.temperature));
    if (request.topP !== null) body['top_p'] = request.topP;
  }
  if (request.stop.length > 0) body['stop_sequences'] = [...request.stop];
  // json_object has no Anthropic counterpart: the instructions asking for JSON have to do.
  if (request.responseFormat?.type === 'json_schema') body['output_config'] = { format: { type: 'json_schema', schema: request.responseFormat.schema } };
  if (request.conversation !== null) body['metadata'] = { user_id: request.conversation };
  body['stream'] = request.stream;
  return Buffer.from(JSON.stringify(body), 'utf8');
}

/** Every system message, wherever it stood, becomes top-level system text blocks in order. */
function encodeSystem(messages: readonly Message[]): Json[] {
  const blocks: Json[] = [];
  messages.forEach((message, i) => {
    if (message.role !== 'system') return;
    for (const part of message.parts) {
      if (part.type !== 'text') {
        throw untranslatable(`messages[${i}]`, `A system message with ${part.type} content cannot be sent to this model's upstream.`);
      }
      // Anthropic rejects empty text blocks.
      if (part.text !== '') blocks.push({ type: 'text', text: part.text });
    }
  });
  return blocks;
}

/**
 * The conversation as alternating user and assistant turns, which Anthropic requires: tool messages become
 * tool_result blocks of a user turn, and consecutive turns of one role merge, tool_result blocks first.
 */
function encodeTurns(messages: readonly Message[]): Turn[] {
  const turns: Turn[] = [];
  for (const message of messages) {
    if (message.role === 'system') continue;
    const role = message.role === 'assistant' ? 'assistant' : 'user';
    const blocks = message.parts.flatMap((part) => encodePart(part, role));
    // A turn left empty (reasoning of another dialect only, empty text) would be rejected; its neighbours merge.
    if (blocks.length === 0) continue;
    const last = turns.at(-1);
    if (last !== undefined && last.role === role) last.blocks.push(...blocks);
    else turns.push({ role, blocks });
  }
  for (const turn of turns) {
    // Anthropic wants the answers to the previous turn's tool calls before anything else in a user turn.
    if (turn.role === 'user') turn.blocks = [...turn.blocks.filter(isToolResult), ...turn.blocks.filter((b) => !isToolResult(b))];
  }
  return turns;
}

function isToolResult(block: Json): boolean {
  return block['type'] === 'tool_result';
}

/** Anthropic accepts tool ids of [a-zA-Z0-9_-] only; other dialects' ids (`functions.get:0`) are mapped alike for calls and results. */
function toolId(id: string): string {
  return id.replace(/[^a-zA-Z0-9_-]/g, '_');
}

function encodeImage(source: ImageSource): Json {
  return {
    type: 'image',
    source: source.kind === 'url' ? { type: 'url', url: source.url } : { type: 'base64', media_type: source.mediaType, data: source.data },
  };
}

function encodePart(part: Part, role: Turn['role']): Json[] {
  switch (part.type) {
    case 'text':
      return part.text === '' ? [] : [{ type: 'text', text: part.text }];
    case 'image':
      return [encodeImage(part.source)];
    case 'reasoning':
      // Only Anthropic's own signature is accepted; reasoning without one (or another dialect's) is dropped.
      if (role !== 'assistant' || part.proof === null || part.proof.dialect !== FORMAT) return [];
      return part.proof.redacted === true
        ? [{ type: 'redacted_thinking', data: part.proof.value }]
        : [{ type: 'thinking', thinking: part.text, signature: part.proof.value }];
    case 'tool_call':
      return [{ type: 'tool_use', id: toolId(part.id), name: part.name, input: toolCallInput(part) }];
    case 'tool_result': {
      const content = part.content.flatMap((inner) => encodePart(inner, 'user'));
      return [
        {
          type: 'tool_result',
          tool_use_id: toolId(part.callId),
          ...(content.length === 0 ? {} : { content }),
          ...(part.isError ? { is_error: true } : {}),
        },
      ];
    }
  }
}

function encodeTools(tools: readonly Tool[]): Json[] {
  const out: Json[] = [];
  tools.forEach((tool, i) => {
    switch (tool.kind) {
      case 'function':
        out.push({
          name: tool.name,
          ...(tool.description === null ? {} : { description: tool.description }),
          input_schema: objectSchema(tool.parameters),
          // strict:false is the default; sending it only where it means something keeps older API versions happy.
          ...(tool.strict === true ? { strict: true } : {}),
        });
        return;
      case 'custom':
        out.push({
          name: tool.name,
          description: `${tool.description === null ? '' : `${tool.description}\n\n`}Put the whole free-form input of this tool in the "input" string.`,
          input_schema: CUSTOM_TOOL_SCHEMA,
        });
        return;
      case 'hosted':
        if (tool.dialect === FORMAT) out.push(tool.definition);
        // Another provider's web search is dropped: the model simply cannot search.
        else if (!tool.type.startsWith('web_search')) {
          throw untranslatable(`tools[${i}]`, `Tool type "${tool.type}" cannot be translated for this model's upstream.`);
        }
        return;
    }
  });
  return out;
}

/** Anthropic requires an object schema; OpenAI clients may send {} for a tool without arguments. */
function objectSchema(parameters: Record<string, unknown>): Record<string, unknown> {
  return 'type' in parameters ? parameters : { type: 'object', properties: {}, ...parameters };
}

function encodeToolChoice(choice: ToolChoice | null, parallel: boolean | null): Json | null {
  const disable = parallel === false ? { disable_parallel_tool_use: true } : {};
  switch (choice?.type) {
    case undefined:
      return parallel === false ? { type: 'auto', ...disable } : null;
    case 'auto':
      return { type: 'auto', ...disable };
    case 'required':
      return { type: 'any', ...disable };
    case 'none':
      return { type: 'none' };
    case 'tool':
      return { type: 'tool', name: choice.name, ...disable };
  }
}

/**
 * thinking for the effort or budget asked. Anthropic refuses thinking when tool use is forced, and when the
 * last assistant turn made tool calls without a thinking block first (it was answered by another dialect, or
 * its reasoning was dropped): thinking is then left off rather than the request failing.
 */
function encodeThinking(reasoning: Reasoning | null, maxTokens: number, turns: readonly Turn[], toolChoice: Json | null): Json | null {
  if (reasoning === null) return null;
  if (reasoning.effort === 'none') return { type: 'disabled' };
  const budget = Math.min(reasoning.budgetTokens ?? BUDGETS[reasoning.effort ?? 'medium'], maxTokens - 1);
  if (budget < MIN_THINKING_BUDGET) return null;
  if (toolChoice?.['type'] === 'any' || toolChoice?.['type'] === 'tool') return null;
  const lastAssistant = turns.findLast((turn) => turn.role === 'assistant');
  if (lastAssistant !== undefined && lastAssistant.blocks.some((b) => b['type'] === 'tool_use')) {
    const first = lastAssistant.blocks[0]?.['type'];
    if (first !== 'thinking' && first !== 'redacted_thinking') return null;
  }
  return { type: 'enabled', budget_tokens: budget };
}
