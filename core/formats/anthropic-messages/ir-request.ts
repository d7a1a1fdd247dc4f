// Anthropic Messages requests and the IR, both ways: a client's body decoded (client side) and an IR request
// written for an Anthropic upstream. The IR keeps no cache_control: it only means something to the dialect
// that wrote it, and a same-dialect request never comes through here (it is passed through untouched).

import { GatewayError } from '../../errors.js';
import type { ImagePart, ImageSource, Message, Part, ReasoningPart, TextPart, ToolResultPart } from '../../ir/message.js';
import { unwrapProof } from '../../ir/proof-tag.js';
import type { ChatRequest, Reasoning, ReasoningEffort, ResponseFormat, Tool, ToolChoice } from '../../ir/request.js';
import type { ParsedRequest } from '../format.js';
import { field } from '../json-fields.js';
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

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A malformed field, worded the way Anthropic words them ("messages.0.content: ..."). */
function invalid(param: string, detail: string): GatewayError {
  return new GatewayError('GW_ERR_REQUEST_INVALID_FIELD', `${param}: ${detail}`, { param });
}

function untranslatable(param: string, message: string): GatewayError {
  return new GatewayError('GW_ERR_TRANSLATION_UNSUPPORTED', message, { param });
}

function unsupportedBlock(param: string, type: string): GatewayError {
  return untranslatable(param, `Content block type "${type}" cannot be translated for this model's upstream.`);
}

function requireString(value: unknown, param: string): string {
  if (typeof value !== 'string') throw invalid(param, 'Input should be a valid string');
  return value;
}

function optionalNumber(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

// ---------------------------------------------------------------------------------------------------------
// Decoding a client's request.

export function decodeRequest(request: ParsedRequest): ChatRequest {
  const body = request.json;
  const messages: Message[] = [];
  const system = decodeSystem(body['system']);
  if (system !== null) messages.push(system);
  const list = body['messages'];
  if (!Array.isArray(list)) throw invalid('messages', 'Input should be a valid list');
  list.forEach((message: unknown, i) => messages.push(...decodeMessage(message, `messages.${i}`)));
  const toolChoice = body['tool_choice'];
  const disableParallel = field(toolChoice, 'disable_parallel_tool_use');
  const stop = body['stop_sequences'];
  return {
    model: request.model,
    messages,
    tools: decodeTools(body['tools']),
    toolChoice: decodeToolChoice(toolChoice),
    parallelToolCalls: typeof disableParallel === 'boolean' ? !disableParallel : null,
    maxTokens: optionalNumber(body['max_tokens']),
    temperature: optionalNumber(body['temperature']),
    topP: optionalNumber(body['top_p']),
    stop: Array.isArray(stop) ? stop.filter((s): s is string => typeof s === 'string') : [],
    responseFormat: decodeResponseFormat(body['output_config']),
    reasoning: decodeReasoning(body['thinking'], body['output_config']),
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
  if (!Array.isArray(content)) throw invalid(param, 'Input should be a valid string or list');
  return content.map((block: unknown, j): TextPart => {
    const type = field(block, 'type');
    if (type !== 'text') throw invalid(`${param}.${j}.type`, "Input should be 'text'");
    return { type: 'text', text: requireString(field(block, 'text'), `${param}.${j}.text`) };
  });
}

/** The blocks of a message's content; a string is one text block. */
function blocksOf(content: unknown, param: string): readonly unknown[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  if (!Array.isArray(content)) throw invalid(param, 'Input should be a valid string or list');
  return content;
}

/**
 * One Anthropic message as IR messages. A user turn answering tool calls becomes one tool message per
 * tool_result (in order), then a user message with whatever else the turn held (Claude Code appends text).
 */
function decodeMessage(message: unknown, path: string): Message[] {
  if (!isObject(message)) throw invalid(path, 'Input should be a valid dictionary');
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
        if (field(block, 'type') === 'tool_result') results.push({ role: 'tool', parts: [decodeToolResult(block, param)] });
        else rest.push(decodeUserBlock(block, param));
      });
      return results.length > 0 && rest.length === 0 ? results : [...results, { role: 'user', parts: rest }];
    }
    case 'assistant':
      return [{ role: 'assistant', parts: blocksOf(content, `${path}.content`).map((block, j) => decodeAssistantBlock(block, `${path}.content.${j}`)) }];
    default:
      throw invalid(`${path}.role`, "Input should be 'user' or 'assistant'");
  }
}

function blockType(block: unknown, param: string): string {
  const type = field(block, 'type');
  if (typeof type !== 'string') throw invalid(`${param}.type`, 'Field required');
  return type;
}

function decodeUserBlock(block: unknown, param: string): TextPart | ImagePart {
  const type = blockType(block, param);
  switch (type) {
    case 'text':
      // citations and cache_control have no counterpart; the text is what the model reads.
      return { type: 'text', text: requireString(field(block, 'text'), `${param}.text`) };
    case 'image':
      return { type: 'image', source: decodeImageSource(field(block, 'source'), `${param}.source`) };
    default:
      // document, search_result, container_upload, ...: no counterpart in the other dialects.
      throw unsupportedBlock(`${param}.type`, type);
  }
}

function decodeImageSource(source: unknown, param: string): ImageSource {
  const type = field(source, 'type');
  if (type === 'base64') {
    return {
      kind: 'base64',
      mediaType: requireString(field(source, 'media_type'), `${param}.media_type`),
      data: requireString(field(source, 'data'), `${param}.data`),
    };
  }
  if (type === 'url') return { kind: 'url', url: requireString(field(source, 'url'), `${param}.url`) };
  if (typeof type === 'string') {
    // "file" names an upload in Anthropic's Files API, which no other upstream can read.
    throw untranslatable(`${param}.type`, `Image source type "${type}" cannot be translated for this model's upstream.`);
  }
  throw invalid(`${param}.type`, 'Field required');
}

function decodeToolResult(block: unknown, param: string): ToolResultPart {
  const content = field(block, 'content');
  let parts: (TextPart | ImagePart)[];
  if (content === undefined || content === null) parts = [];
  else if (typeof content === 'string') parts = [{ type: 'text', text: content }];
  else if (Array.isArray(content)) parts = content.map((inner: unknown, k) => decodeUserBlock(inner, `${param}.content.${k}`));
  else throw invalid(`${param}.content`, 'Input should be a valid string or list');
  return {
    type: 'tool_result',
    callId: requireString(field(block, 'tool_use_id'), `${param}.tool_use_id`),
    content: parts,
    isError: field(block, 'is_error') === true,
  };
}

function decodeAssistantBlock(block: unknown, param: string): Part {
  const type = blockType(block, param);
  switch (type) {
    case 'text':
      return { type: 'text', text: requireString(field(block, 'text'), `${param}.text`) };
    case 'thinking':
      return clientThinking(requireString(field(block, 'thinking'), `${param}.thinking`), field(block, 'signature'));
    case 'redacted_thinking': {
      const data = requireString(field(block, 'data'), `${param}.data`);
      const wrapped = unwrapProof(data);
      if (wrapped !== null) return { type: 'reasoning', text: wrapped.text ?? '', proof: wrapped.proof };
      return { type: 'reasoning', text: '', proof: { dialect: FORMAT, value: data, redacted: true } };
    }
    case 'tool_use': {
      const input = field(block, 'input');
      return {
        type: 'tool_call',
        id: requireString(field(block, 'id'), `${param}.id`),
        name: requireString(field(block, 'name'), `${param}.name`),
        arguments: JSON.stringify(input === undefined || input === null ? {} : input),
      };
    }
    default:
      // server_tool_use, web_search_tool_result and the other server tool blocks: the upstream never ran them.
      throw unsupportedBlock(`${param}.type`, type);
  }
}

/**
 * A thinking block a client sent back. Its signature is Anthropic's own only if this gateway did not wrap
 * another dialect's proof in it (reasoning answered by another upstream): then the wrapped proof and text count.
 */
function clientThinking(text: string, signature: unknown): ReasoningPart {
  if (typeof signature !== 'string' || signature === '') return { type: 'reasoning', text, proof: null };
  const wrapped = unwrapProof(signature);
  if (wrapped !== null) return { type: 'reasoning', text: wrapped.text ?? text, proof: wrapped.proof };
  return { type: 'reasoning', text, proof: { dialect: FORMAT, value: signature } };
}

function decodeTools(value: unknown): Tool[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw invalid('tools', 'Input should be a valid list');
  return value.map((tool: unknown, i): Tool => {
    const param = `tools.${i}`;
    if (!isObject(tool)) throw invalid(param, 'Input should be a valid dictionary');
    const type = tool['type'];
    if (type === undefined || type === null || type === 'custom') {
      const schema = tool['input_schema'];
      if (!isObject(schema)) throw invalid(`${param}.input_schema`, 'Field required');
      const description = tool['description'];
      const strict = tool['strict'];
      return {
        kind: 'function',
        name: requireString(tool['name'], `${param}.name`),
        description: typeof description === 'string' ? description : null,
        parameters: schema,
        strict: typeof strict === 'boolean' ? strict : null,
      };
    }
    if (typeof type !== 'string') throw invalid(`${param}.type`, 'Input should be a valid string');
    // web_search_*, bash_*, text_editor_*, computer_*, code_execution_*, ...: run by Anthropic itself.
    return { kind: 'hosted', dialect: FORMAT, type, definition: tool };
  });
}

const TOOL_CHOICES: Readonly<Record<string, ToolChoice>> = { auto: { type: 'auto' }, any: { type: 'required' }, none: { type: 'none' } };

function decodeToolChoice(value: unknown): ToolChoice | null {
  if (value === undefined || value === null) return null;
  const type = field(value, 'type');
  if (type === 'tool') return { type: 'tool', name: requireString(field(value, 'name'), 'tool_choice.name') };
  const choice = typeof type === 'string' ? TOOL_CHOICES[type] : undefined;
  if (choice === undefined) throw invalid('tool_choice.type', "Input should be 'auto', 'any', 'tool' or 'none'");
  return choice;
}

function decodeResponseFormat(outputConfig: unknown): ResponseFormat | null {
  const format = field(outputConfig, 'format');
  if (field(format, 'type') !== 'json_schema') return null;
  const schema = field(format, 'schema');
  if (!isObject(schema)) throw invalid('output_config.format.schema', 'Field required');
  // Anthropic's format has no name; the OpenAI dialects require one.
  return { type: 'json_schema', name: 'output', schema, strict: null, description: null };
}

function effortOf(value: unknown): ReasoningEffort | null {
  return typeof value === 'string' && EFFORTS.has(value) ? (value as ReasoningEffort) : null;
}

function decodeReasoning(thinking: unknown, outputConfig: unknown): Reasoning | null {
  const effort = effortOf(field(outputConfig, 'effort'));
  switch (field(thinking, 'type')) {
    case 'enabled': {
      const budget = optionalNumber(field(thinking, 'budget_tokens'));
      if (budget === null) throw invalid('thinking.budget_tokens', 'Field required');
      return { effort: null, budgetTokens: budget };
    }
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
