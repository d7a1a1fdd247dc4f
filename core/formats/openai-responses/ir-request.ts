// Responses requests to the IR: what a Responses client (Codex) asked. The other direction is ir-request-encode.ts.
// Every value below the shallow schema's reach is read through `read` (openai-chat/fields.ts), which refuses one
// of another type with the 400 naming it: a client's body never meets a reader that did not expect it.

import { GatewayError } from '../../errors.js';
import { imageFromUrl } from '../../ir/data-url.js';
import type { ImagePart, Message, Part, TextPart, ToolResultPart } from '../../ir/message.js';
import type { ChatRequest, FunctionTool, Reasoning, ReasoningEffort, ResponseFormat, Tool, ToolChoice } from '../../ir/request.js';
import { shown, type JsonObject } from '../field-reader.js';
import type { ParsedRequest } from '../format.js';
import { RESPONSES_OUTPUT_CAPS, outputCapOf } from '../output-cap.js';
import { openaiFields as read } from '../openai-chat/fields.js';
import { flatName, readReasoning } from './ir-response.js';

const FORMAT = 'openai-responses';

/** Tools the provider runs itself; kept for a Responses upstream, dropped or refused by others. */
const HOSTED: ReadonlySet<string> = new Set([
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

// ---- Client side: decodeRequest ----

/** Message content: a string, or parts. Text of every kind is text; images keep their detail. */
function readContent(content: unknown, param: string): (TextPart | ImagePart)[] {
  if (content === undefined || content === null) return [];
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  if (!Array.isArray(content)) throw read.refuse(content, param, ['string', 'array']);
  return content.map((value: unknown, i): TextPart | ImagePart => {
    const at = `${param}[${i}]`;
    const part = read.object(value, at);
    const type = read.string(part['type'], `${at}.type`);
    switch (type) {
      case 'input_text':
      case 'output_text':
      case 'text':
        return { type: 'text', text: read.string(part['text'], `${at}.text`) };
      case 'refusal':
        return { type: 'text', text: read.string(part['refusal'], `${at}.refusal`) };
      case 'input_image': {
        const url = read.optionalString(part['image_url'], `${at}.image_url`);
        if (url === null || url === '') {
          throw unsupported(
            `An input_image given by file_id has no counterpart on this model's upstream; send the image as a URL or a data URL.`,
            at,
          );
        }
        const detail = read.optionalString(part['detail'], `${at}.detail`);
        return { type: 'image', source: imageFromUrl(url), ...(detail === null ? {} : { detail }) };
      }
      default:
        throw unsupported(`Content type "${shown(type)}" has no counterpart on this model's upstream; send text or images.`, at);
    }
  });
}

/** A tool output: a string, or text and image parts. */
function readOutput(output: unknown, param: string): (TextPart | ImagePart)[] {
  return typeof output === 'string' ? [{ type: 'text', text: output }] : readContent(output, param);
}

function readFunctionTool(tool: JsonObject, param: string, namespace: string | null): FunctionTool {
  const name = read.string(tool['name'], `${param}.name`);
  const parameters = read.optionalObject(tool['parameters'], `${param}.parameters`);
  return {
    kind: 'function',
    name: namespace === null ? name : flatName(name, namespace),
    ...(namespace === null ? {} : { namespace }),
    description: read.optionalString(tool['description'], `${param}.description`),
    parameters: parameters ?? { type: 'object', properties: {} },
    strict: read.optionalBoolean(tool['strict'], `${param}.strict`),
  };
}

function readTools(tools: unknown, param: string): Tool[] {
  return (read.optionalArray(tools, param) ?? []).flatMap((value: unknown, i): Tool[] => {
    const at = `${param}[${i}]`;
    const tool = read.object(value, at);
    const type = read.string(tool['type'], `${at}.type`);
    if (type === 'function') return [readFunctionTool(tool, at, null)];
    if (type === 'custom') {
      // The grammar of `format`, if any, has no counterpart: other dialects take any string.
      return [{ kind: 'custom', name: read.string(tool['name'], `${at}.name`), description: read.optionalString(tool['description'], `${at}.description`) }];
    }
    if (type === 'namespace') {
      // Other dialects have no namespaces: each member becomes `<namespace>__<member>`.
      const namespace = read.string(tool['name'], `${at}.name`);
      return read.array(tool['tools'], `${at}.tools`).map((entry: unknown, j) => {
        const memberAt = `${at}.tools[${j}]`;
        const member = read.object(entry, memberAt);
        const memberType = read.string(member['type'], `${memberAt}.type`);
        if (memberType !== 'function') {
          throw unsupported(`Tool type "${shown(memberType)}" cannot be translated for this model's upstream.`, memberAt);
        }
        return readFunctionTool(member, memberAt, namespace);
      });
    }
    if (HOSTED.has(type)) return [{ kind: 'hosted', dialect: FORMAT, type, definition: tool }];
    throw unsupported(`Tool type "${shown(type)}" cannot be translated for this model's upstream.`, at);
  });
}

function readToolChoice(choice: unknown): ToolChoice | null {
  if (choice === undefined || choice === null) return null;
  if (choice === 'auto' || choice === 'none' || choice === 'required') return { type: choice };
  if (typeof choice === 'string') throw read.invalid('tool_choice', `expected none, auto, required or a tool, but got "${shown(choice)}"`);
  const spec = read.object(choice, 'tool_choice');
  const type = read.string(spec['type'], 'tool_choice.type');
  if (type === 'function' || type === 'custom') {
    const name = read.string(spec['name'], 'tool_choice.name');
    const namespace = read.optionalString(spec['namespace'], 'tool_choice.namespace');
    return { type: 'tool', name: type === 'function' ? flatName(name, namespace) : name };
  }
  // allowed_tools, or forcing a hosted tool: the other dialects cannot say it.
  throw unsupported(`tool_choice of type "${shown(type)}" cannot be translated for this model's upstream.`, 'tool_choice');
}

function readResponseFormat(text: unknown): ResponseFormat | null {
  const format = read.optionalObject(read.optionalObject(text, 'text')?.['format'], 'text.format');
  if (format === null) return null;
  const type = read.string(format['type'], 'text.format.type');
  if (type === 'text') return null;
  if (type === 'json_object') return { type: 'json_object' };
  if (type === 'json_schema') {
    return {
      type: 'json_schema',
      name: read.optionalString(format['name'], 'text.format.name') ?? 'response',
      schema: read.optionalObject(format['schema'], 'text.format.schema') ?? {},
      strict: read.optionalBoolean(format['strict'], 'text.format.strict'),
      description: read.optionalString(format['description'], 'text.format.description'),
    };
  }
  throw unsupported(`text.format of type "${shown(type)}" cannot be translated for this model's upstream.`, 'text.format');
}

function readReasoningSetting(reasoning: unknown): Reasoning | null {
  const effort = read.optionalObject(reasoning, 'reasoning')?.['effort'];
  if (effort === undefined || effort === null) return null;
  if (typeof effort !== 'string' || !EFFORTS.has(effort)) throw read.invalid('reasoning.effort', 'expected none, minimal, low, medium, high or xhigh');
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

/** A reasoning item's summary and content parts, as the readers of them (readReasoning) expect them. */
function checkReasoning(item: JsonObject, at: string): void {
  for (const key of ['summary', 'content'] as const) {
    (read.optionalArray(item[key], `${at}.${key}`) ?? []).forEach((value: unknown, i) => {
      const part = read.object(value, `${at}.${key}[${i}]`);
      read.string(part['text'], `${at}.${key}[${i}].text`);
    });
  }
  read.optionalString(item['encrypted_content'], `${at}.encrypted_content`);
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

  read(value: unknown, at: string): void {
    const item = read.object(value, at);
    // `type` may be left out of a message ("easy input").
    const given = item['type'] ?? (item['role'] === undefined ? undefined : 'message');
    const type = read.string(given, `${at}.type`);
    switch (type) {
      case 'message': {
        const role = read.string(item['role'], `${at}.role`);
        const parts = readContent(item['content'], `${at}.content`);
        if (role === 'assistant') for (const part of parts) this.assistant(part);
        else if (role === 'user') this.messages.push({ role: 'user', parts });
        else if (role === 'system' || role === 'developer') this.messages.push({ role: 'system', parts });
        else throw read.invalid(`${at}.role`, 'expected user, assistant, system or developer');
        return;
      }
      case 'function_call':
        this.assistant({
          type: 'tool_call',
          id: read.string(item['call_id'], `${at}.call_id`),
          name: flatName(read.string(item['name'], `${at}.name`), read.optionalString(item['namespace'], `${at}.namespace`)),
          arguments: read.optionalString(item['arguments'], `${at}.arguments`) ?? '',
        });
        return;
      case 'custom_tool_call':
        this.assistant({
          type: 'tool_call',
          id: read.string(item['call_id'], `${at}.call_id`),
          name: read.string(item['name'], `${at}.name`),
          arguments: read.optionalString(item['input'], `${at}.input`) ?? '',
          custom: true,
        });
        return;
      case 'reasoning':
        checkReasoning(item, at);
        this.assistant(readReasoning(item, true));
        return;
      case 'function_call_output':
      case 'custom_tool_call_output': {
        const result: ToolResultPart = {
          type: 'tool_result',
          callId: read.string(item['call_id'], `${at}.call_id`),
          content: readOutput(item['output'], `${at}.output`),
          isError: false,
          ...(type === 'custom_tool_call_output' ? { custom: true } : {}),
        };
        this.messages.push({ role: 'tool', parts: [result] });
        return;
      }
      case 'additional_tools':
        // Codex declares tools in this item instead of `tools` with some models; they are tools like any other.
        this.tools.push(...readTools(item['tools'], `${at}.tools`));
        return;
      default:
        // compaction, compaction_trigger, item_reference, hosted tool calls: only OpenAI can read or answer them.
        throw unsupported(
          `Input item type "${shown(type)}" has no counterpart on this model's upstream; only an OpenAI Responses upstream can take it.`,
          at,
        );
    }
  }
}

export function decodeRequest(request: ParsedRequest): ChatRequest {
  const json = request.json;
  rejectStateful(json);
  const reader = new InputReader();
  const instructions = read.optionalString(json['instructions'], 'instructions');
  if (instructions !== null && instructions !== '') {
    reader.messages.push({ role: 'system', parts: [{ type: 'text', text: instructions }] });
  }
  const input = json['input'];
  if (typeof input === 'string') reader.messages.push({ role: 'user', parts: [{ type: 'text', text: input }] });
  else (read.optionalArray(input, 'input') ?? []).forEach((item, i) => reader.read(item, `input[${i}]`));
  return {
    model: request.model,
    messages: reader.messages,
    tools: [...readTools(json['tools'], 'tools'), ...reader.tools],
    toolChoice: readToolChoice(json['tool_choice']),
    parallelToolCalls: read.optionalBoolean(json['parallel_tool_calls'], 'parallel_tool_calls'),
    // The cap reserved for this request (output-cap.ts): the one it paid for is the one sent on.
    maxTokens: read.optionalNumber(json['max_output_tokens'], 'max_output_tokens') === null ? null : outputCapOf(json, RESPONSES_OUTPUT_CAPS),
    temperature: read.optionalNumber(json['temperature'], 'temperature'),
    topP: read.optionalNumber(json['top_p'], 'top_p'),
    stop: [],
    responseFormat: readResponseFormat(json['text']),
    reasoning: readReasoningSetting(json['reasoning']),
    stream: request.stream,
    conversation: request.conversation,
  };
}
