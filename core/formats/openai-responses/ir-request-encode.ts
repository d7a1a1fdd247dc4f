// Responses requests from the IR: the body a Responses upstream gets for a request of another format.

import { GatewayError } from '../../errors.js';
import { promptCacheKey } from '../../ir/cache-key.js';
import { imageToUrl } from '../../ir/data-url.js';
import type { Message, Part, ReasoningPart, ToolResultPart } from '../../ir/message.js';
import type { ChatRequest, FunctionTool, Reasoning, ResponseFormat, Tool, ToolChoice } from '../../ir/request.js';
import { callShape, customInput } from './ir-response.js';

const FORMAT = 'openai-responses';

function unsupported(message: string, param: string): GatewayError {
  return new GatewayError('GW_ERR_TRANSLATION_UNSUPPORTED', message, { param });
}

type Json = Record<string, unknown>;

function inputParts(parts: readonly Part[]): Json[] {
  return parts.flatMap((part): Json[] => {
    if (part.type === 'text') return [{ type: 'input_text', text: part.text }];
    if (part.type === 'image') {
      return [{ type: 'input_image', image_url: imageToUrl(part.source), detail: part.detail ?? 'auto' }];
    }
    return [];
  });
}

/** One text part as a string (the common case); otherwise parts, so images survive. */
function outputValue(result: ToolResultPart): string | Json[] {
  const only = result.content[0];
  if (result.content.length === 0) return '';
  if (result.content.length === 1 && only !== undefined && only.type === 'text') return only.text;
  return inputParts(result.content);
}

/** Only proofs this dialect wrote can be replayed; the provider rejects any other. */
function keepsReasoning(part: ReasoningPart): boolean {
  return part.proof !== null && part.proof.dialect === FORMAT;
}

function reasoningInput(part: ReasoningPart): Json {
  const proof = part.proof;
  return {
    type: 'reasoning',
    ...(proof?.id === undefined ? {} : { id: proof.id }),
    summary: part.text === '' ? [] : [{ type: 'summary_text', text: part.text }],
    encrypted_content: proof?.value ?? null,
  };
}

function assistantItems(parts: readonly Part[], tools: readonly Tool[]): Json[] {
  const items: Json[] = [];
  let message: Json[] | null = null;
  for (const part of parts) {
    if (part.type === 'text') {
      if (message === null) {
        message = [];
        items.push({ type: 'message', role: 'assistant', content: message });
      }
      message.push({ type: 'output_text', text: part.text, annotations: [] });
      continue;
    }
    message = null;
    if (part.type === 'reasoning') {
      if (keepsReasoning(part)) items.push(reasoningInput(part));
    } else if (part.type === 'tool_call') {
      const shape = callShape(part.name, part.custom === true, tools);
      if (shape.kind === 'custom') {
        items.push({ type: 'custom_tool_call', call_id: part.id, name: shape.name, input: customInput(part.arguments, part.custom === true) });
      } else {
        items.push({
          type: 'function_call',
          call_id: part.id,
          name: shape.name,
          ...(shape.namespace === null ? {} : { namespace: shape.namespace }),
          arguments: part.arguments,
        });
      }
    }
  }
  return items;
}

function inputItems(message: Message, tools: readonly Tool[]): Json[] {
  switch (message.role) {
    case 'system':
      return [{ type: 'message', role: 'system', content: inputParts(message.parts) }];
    case 'user':
      return [{ type: 'message', role: 'user', content: inputParts(message.parts) }];
    case 'assistant':
      return assistantItems(message.parts, tools);
    case 'tool':
      // Responses has no error flag on an output: an error result is its text, as the tool wrote it.
      return message.parts.flatMap((part): Json[] =>
        part.type === 'tool_result'
          ? [{ type: part.custom === true ? 'custom_tool_call_output' : 'function_call_output', call_id: part.callId, output: outputValue(part) }]
          : [],
      );
  }
}

function functionTool(tool: FunctionTool, name: string): Json {
  return {
    type: 'function',
    name,
    ...(tool.description === null ? {} : { description: tool.description }),
    parameters: tool.parameters,
    // Responses makes functions strict unless told otherwise, and strict mode refuses most schemas written
    // for other dialects: only the client's own `true` asks for it.
    strict: tool.strict ?? false,
  };
}

/** Tools in the Responses shape: namespace members nested again, hosted tools of other dialects dropped or refused. */
function encodeTools(tools: readonly Tool[]): Json[] {
  const out: Json[] = [];
  const namespaces = new Map<string, Json[]>();
  tools.forEach((tool, i) => {
    switch (tool.kind) {
      case 'function': {
        const namespace = tool.namespace;
        if (namespace === undefined) {
          out.push(functionTool(tool, tool.name));
          return;
        }
        let members = namespaces.get(namespace);
        if (members === undefined) {
          members = [];
          namespaces.set(namespace, members);
          // The IR keeps no namespace description; the API wants one.
          out.push({ type: 'namespace', name: namespace, description: `Tools of ${namespace}.`, tools: members });
        }
        const prefix = `${namespace}__`;
        members.push(functionTool(tool, tool.name.startsWith(prefix) ? tool.name.slice(prefix.length) : tool.name));
        return;
      }
      case 'custom':
        out.push({ type: 'custom', name: tool.name, ...(tool.description === null ? {} : { description: tool.description }) });
        return;
      case 'hosted':
        if (tool.dialect === FORMAT) out.push(tool.definition);
        // Another provider's web search: this model simply cannot search.
        else if (!tool.type.startsWith('web_search')) {
          throw unsupported(`Tool type "${tool.type}" cannot be translated for this model's upstream.`, `tools[${i}]`);
        }
        return;
    }
  });
  return out;
}

function encodeToolChoice(choice: ToolChoice, tools: readonly Tool[]): unknown {
  if (choice.type !== 'tool') return choice.type;
  const shape = callShape(choice.name, false, tools);
  if (shape.kind === 'custom') return { type: 'custom', name: shape.name };
  return { type: 'function', name: shape.name, ...(shape.namespace === null ? {} : { namespace: shape.namespace }) };
}

function effortOf(reasoning: Reasoning): string {
  const effort = reasoning.effort;
  if (effort === null) {
    const budget = reasoning.budgetTokens ?? 0;
    return budget <= 2048 ? 'low' : budget <= 8192 ? 'medium' : 'high';
  }
  // Responses' highest effort is xhigh; Anthropic's max means the same.
  return effort === 'max' ? 'xhigh' : effort;
}

function encodeFormat(format: ResponseFormat): Json {
  if (format.type === 'json_object') return { type: 'json_object' };
  return {
    type: 'json_schema',
    name: format.name,
    schema: format.schema,
    ...(format.strict === null ? {} : { strict: format.strict }),
    ...(format.description === null ? {} : { description: format.description }),
  };
}


export function encodeRequest(request: ChatRequest, model: string): Buffer {
  const input = request.messages.flatMap((message) => inputItems(message, request.tools));
  const tools = encodeTools(request.tools);
  const keptReasoning = input.some((item) => item['type'] === 'reasoning');
  const body: Json = {
    model,
    input,
    ...(tools.length === 0
      ? {}
      : {
          tools,
          ...(request.toolChoice === null ? {} : { tool_choice: encodeToolChoice(request.toolChoice, request.tools) }),
          ...(request.parallelToolCalls === null ? {} : { parallel_tool_calls: request.parallelToolCalls }),
        }),
    ...(request.reasoning === null ? {} : { reasoning: { effort: effortOf(request.reasoning), summary: 'auto' } }),
    ...(request.responseFormat === null ? {} : { text: { format: encodeFormat(request.responseFormat) } }),
    ...(request.maxTokens === null ? {} : { max_output_tokens: request.maxTokens }),
    ...(request.temperature === null ? {} : { temperature: request.temperature }),
    ...(request.topP === null ? {} : { top_p: request.topP }),
    // Nothing is kept at the provider; reasoning travels in the request as encrypted content instead.
    store: false,
    ...(request.reasoning !== null || keptReasoning ? { include: ['reasoning.encrypted_content'] } : {}),
    stream: request.stream,
    ...(request.conversation === null ? {} : { prompt_cache_key: promptCacheKey(request.conversation) }),
  };
  return Buffer.from(JSON.stringify(body), 'utf8');
}
