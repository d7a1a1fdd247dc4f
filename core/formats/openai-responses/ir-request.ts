// Responses requests to the IR: what a Responses client (Codex) asked. The other direction is ir-request-encode.ts.

import { GatewayError } from '../../errors.js';
import { imageFromUrl } from '../../ir/data-url.js';
import type { ImagePart, Message, Part, TextPart, ToolResultPart } from '../../ir/message.js';
import type { ChatRequest, FunctionTool, Reasoning, ReasoningEffort, ResponseFormat, Tool, ToolChoice } from '../../ir/request.js';
import type { ParsedRequest } from '../format.js';
import { field } from '../json-fields.js';
import { flatName, readReasoning } from './ir-response.js';

const FORMAT = 'openai-responses';

/** Tools the provider runs itself; kept for a Responses upstream, dropped or refused by others. */
const HOSTED = new Set([
  'web_search',
  'web_search_preview',
  'file_search',
  'code_interpreter',
  'image_generation',
  'computer_use_preview',
  'mcp',
  'local_shell',
  'shell',
  'apply_patch',
]);

const EFFORTS: ReadonlySet<string> = new Set<ReasoningEffort>(['none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max']);

function unsupported(message: string, param: string): GatewayError {
  return new GatewayError('GW_ERR_TRANSLATION_UNSUPPORTED', message, { param });
}

function invalid(param: string, expected: string): GatewayError {
  return new GatewayError('GW_ERR_REQUEST_INVALID_FIELD', `Invalid value for '${param}': expected ${expected}.`, { param });
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function requireString(obj: unknown, key: string, param: string): string {
  const value = field(obj, key);
  if (typeof value !== 'string') throw invalid(`${param}.${key}`, 'a string');
  return value;
}

function optionalString(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

function optionalNumber(value: unknown, param: string): number | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'number' || !Number.isFinite(value)) throw invalid(param, 'a number');
  return value;
}

// ---- Client side: decodeRequest ----

/** Message content: a string, or parts. Text of every kind is text; images keep their detail. */
function readContent(content: unknown, param: string): (TextPart | ImagePart)[] {
  if (content === undefined || content === null) return [];
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  if (!Array.isArray(content)) throw invalid(param, 'a string or an array of content parts');
  return content.map((part, i): TextPart | ImagePart => {
    const at = `${param}[${i}]`;
    const type = field(part, 'type');
    switch (type) {
      case 'input_text':
      case 'output_text':
      case 'text':
        return { type: 'text', text: requireString(part, 'text', at) };
      case 'refusal':
        return { type: 'text', text: requireString(part, 'refusal', at) };
      case 'input_image': {
        const url = field(part, 'image_url');
        if (typeof url !== 'string' || url === '') {
          throw unsupported(
            `An input_image given by file_id has no counterpart on this model's upstream; send the image as a URL or a data URL.`,
            at,
          );
        }
        const detail = field(part, 'detail');
        return { type: 'image', source: imageFromUrl(url), ...(typeof detail === 'string' ? { detail } : {}) };
      }
      default:
        throw unsupported(`Content type "${String(type)}" has no counterpart on this model's upstream; send text or images.`, at);
    }
  });
}

/** A tool output: a string, or text and image parts. */
function readOutput(output: unknown, param: string): (TextPart | ImagePart)[] {
  return typeof output === 'string' ? [{ type: 'text', text: output }] : readContent(output, param);
}

function readFunctionTool(tool: unknown, param: string, namespace: string | null): FunctionTool {
  const name = requireString(tool, 'name', param);
  const parameters = field(tool, 'parameters');
  const strict = field(tool, 'strict');
  return {
    kind: 'function',
    name: namespace === null ? name : flatName(name, namespace),
    ...(namespace === null ? {} : { namespace }),
    description: optionalString(field(tool, 'description')),
    parameters: isObject(parameters) ? parameters : { type: 'object', properties: {} },
    strict: typeof strict === 'boolean' ? strict : null,
  };
}

function readTools(tools: unknown, param: string): Tool[] {
  if (tools === undefined || tools === null) return [];
  if (!Array.isArray(tools)) throw invalid(param, 'an array of tools');
  return tools.flatMap((tool, i): Tool[] => {
    const at = `${param}[${i}]`;
    const type = field(tool, 'type');
    if (type === 'function') return [readFunctionTool(tool, at, null)];
    if (type === 'custom') {
      // The grammar of `format`, if any, has no counterpart: other dialects take any string.
      return [{ kind: 'custom', name: requireString(tool, 'name', at), description: optionalString(field(tool, 'description')) }];
    }
    if (type === 'namespace') {
      // Other dialects have no namespaces: each member becomes `<namespace>__<member>`.
      const namespace = requireString(tool, 'name', at);
      const members = field(tool, 'tools');
      if (!Array.isArray(members)) throw invalid(`${at}.tools`, 'an array of tools');
      return members.map((member, j) => {
        const memberType = field(member, 'type');
        if (memberType !== 'function') {
          throw unsupported(`Tool type "${String(memberType)}" cannot be translated for this model's upstream.`, `${at}.tools[${j}]`);
        }
        return readFunctionTool(member, `${at}.tools[${j}]`, namespace);
      });
    }
    if (typeof type === 'string' && HOSTED.has(type) && isObject(tool)) {
      return [{ kind: 'hosted', dialect: FORMAT, type, definition: tool }];
    }
    throw unsupported(`Tool type "${String(type)}" cannot be translated for this model's upstream.`, at);
  });
}

function readToolChoice(choice: unknown): ToolChoice | null {
  if (choice === undefined || choice === null) return null;
  if (choice === 'auto' || choice === 'none' || choice === 'required') return { type: choice };
  const type = field(choice, 'type');
  const name = field(choice, 'name');
  if ((type === 'function' || type === 'custom') && typeof name === 'string') {
    return { type: 'tool', name: type === 'function' ? flatName(name, field(choice, 'namespace')) : name };
  }
  // allowed_tools, or forcing a hosted tool: the other dialects cannot say it.
  throw unsupported(`tool_choice of type "${String(type ?? choice)}" cannot be translated for this model's upstream.`, 'tool_choice');
}

function readResponseFormat(text: unknown): ResponseFormat | null {
  const format = field(text, 'format');
  if (format === undefined || format === null) return null;
  const type = field(format, 'type');
  if (type === 'text') return null;
  if (type === 'json_object') return { type: 'json_object' };
  if (type === 'json_schema') {
    const schema = field(format, 'schema');
    const strict = field(format, 'strict');
    return {
      type: 'json_schema',
      name: optionalString(field(format, 'name')) ?? 'response',
      schema: isObject(schema) ? schema : {},
      strict: typeof strict === 'boolean' ? strict : null,
      description: optionalString(field(format, 'description')),
    };
  }
  throw unsupported(`text.format of type "${String(type)}" cannot be translated for this model's upstream.`, 'text.format');
}

function readReasoningSetting(reasoning: unknown): Reasoning | null {
  const effort = field(reasoning, 'effort');
  if (effort === undefined || effort === null) return null;
  if (typeof effort !== 'string' || !EFFORTS.has(effort)) throw invalid('reasoning.effort', 'none, minimal, low, medium, high or xhigh');
  return { effort: effort as ReasoningEffort, budgetTokens: null };
}

/** Fields that make the upstream read state it keeps, or answer later: the gateway keeps no such state. */
function rejectStateful(json: Record<string, unknown>): void {
  const previous = json['previous_response_id'];
  if (typeof previous === 'string' && previous !== '') {
    throw unsupported(
      'previous_response_id cannot be translated for this model\'s upstream: it keeps no earlier responses. Send the whole conversation in input (store: false).',
      'previous_response_id',
    );
  }
  if (json['conversation'] !== undefined && json['conversation'] !== null) {
    throw unsupported("conversation cannot be translated for this model's upstream: it keeps no conversations. Send the whole conversation in input.", 'conversation');
  }
  if (json['background'] === true) {
    throw unsupported("background mode cannot be translated for this model's upstream; send the request without background.", 'background');
  }
  if (json['prompt'] !== undefined && json['prompt'] !== null) {
    throw unsupported("A stored prompt cannot be translated for this model's upstream; send instructions and input instead.", 'prompt');
  }
}

/**
 * Input items to IR messages. Items the model wrote (reasoning, assistant messages, calls) that follow each
 * other form one assistant turn; each call output is one tool message.
 */
class InputReader {
  readonly messages: Message[] = [];
  readonly tools: Tool[] = [];

  private assistant(part: Part): void {
    const last = this.messages[this.messages.length - 1];
    if (last !== undefined && last.role === 'assistant') {
      this.messages[this.messages.length - 1] = { role: 'assistant', parts: [...last.parts, part] };
    } else {
      this.messages.push({ role: 'assistant', parts: [part] });
    }
  }

  read(item: unknown, at: string): void {
    // `type` may be left out of a message ("easy input").
    const type = field(item, 'type') ?? (field(item, 'role') === undefined ? undefined : 'message');
    switch (type) {
      case 'message': {
        const role = field(item, 'role');
        const parts = readContent(field(item, 'content'), `${at}.content`);
        if (role === 'assistant') for (const part of parts) this.assistant(part);
        else if (role === 'user') this.messages.push({ role: 'user', parts });
        else if (role === 'system' || role === 'developer') this.messages.push({ role: 'system', parts });
        else throw invalid(`${at}.role`, 'user, assistant, system or developer');
        return;
      }
      case 'function_call': {
        const args = field(item, 'arguments');
        this.assistant({
          type: 'tool_call',
          id: requireString(item, 'call_id', at),
          name: flatName(requireString(item, 'name', at), field(item, 'namespace')),
          arguments: typeof args === 'string' ? args : '',
        });
        return;
      }
      case 'custom_tool_call': {
        const input = field(item, 'input');
        this.assistant({
          type: 'tool_call',
          id: requireString(item, 'call_id', at),
          name: requireString(item, 'name', at),
          arguments: typeof input === 'string' ? input : '',
          custom: true,
        });
        return;
      }
      case 'reasoning':
        this.assistant(readReasoning(item, true));
        return;
      case 'function_call_output':
      case 'custom_tool_call_output': {
        const result: ToolResultPart = {
          type: 'tool_result',
          callId: requireString(item, 'call_id', at),
          content: readOutput(field(item, 'output'), `${at}.output`),
          isError: false,
          ...(type === 'custom_tool_call_output' ? { custom: true } : {}),
        };
        this.messages.push({ role: 'tool', parts: [result] });
        return;
      }
      case 'additional_tools':
        // Codex declares tools in this item instead of `tools` with some models; they are tools like any other.
        this.tools.push(...readTools(field(item, 'tools'), `${at}.tools`));
        return;
      default:
        // compaction, compaction_trigger, item_reference, hosted tool calls: only OpenAI can read or answer them.
        throw unsupported(
          `Input item type "${String(type)}" has no counterpart on this model's upstream; only an OpenAI Responses upstream can take it.`,
          at,
        );
    }
  }
}

export function decodeRequest(request: ParsedRequest): ChatRequest {
  const json = request.json;
  rejectStateful(json);
  const reader = new InputReader();
  const instructions = json['instructions'];
  if (typeof instructions === 'string' && instructions !== '') {
    reader.messages.push({ role: 'system', parts: [{ type: 'text', text: instructions }] });
  }
  const input = json['input'];
  if (typeof input === 'string') reader.messages.push({ role: 'user', parts: [{ type: 'text', text: input }] });
  else if (Array.isArray(input)) input.forEach((item, i) => reader.read(item, `input[${i}]`));
  const parallel = json['parallel_tool_calls'];
  return {
    model: request.model,
    messages: reader.messages,
    tools: [...readTools(json['tools'], 'tools'), ...reader.tools],
    toolChoice: readToolChoice(json['tool_choice']),
    parallelToolCalls: typeof parallel === 'boolean' ? parallel : null,
    maxTokens: optionalNumber(json['max_output_tokens'], 'max_output_tokens'),
    temperature: optionalNumber(json['temperature'], 'temperature'),
    topP: optionalNumber(json['top_p'], 'top_p'),
    stop: [],
    responseFormat: readResponseFormat(json['text']),
    reasoning: readReasoningSetting(json['reasoning']),
    stream: request.stream,
    conversation: request.conversation,
  };
}
