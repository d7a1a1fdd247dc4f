// An IR request as a Gemini upstream's GenerateContentRequest. The model is not in the body: it goes in the path
// (codec.ts, upstreamCall). Tools are declared with parametersJsonSchema, which takes the clients' JSON Schema as
// it is (`parameters` is an OpenAPI subset that refuses most of it: pitfall 5).

import { unsupported } from './request-fields.js';
import type { ChatRequest, ResponseFormat, Tool, ToolChoice } from '../../core/ir/request.js';
import { GEMINI_API } from './api-name.js';
import { encodeContents } from './ir-contents-encode.js';
import { encodeThinking } from './thinking.js';

type Json = Record<string, unknown>;

/** Gemini requires an object schema; OpenAI clients may send {} for a tool without arguments. */
function objectSchema(parameters: Record<string, unknown>): Record<string, unknown> {
  return 'type' in parameters ? parameters : { type: 'object', properties: {}, ...parameters };
}

const CUSTOM_PARAMETERS = { type: 'object', properties: { input: { type: 'string' } }, required: ['input'] } as const;

/** Function declarations in one Tool, then each hosted Gemini tool in its own (a Tool holds one kind). */
function encodeTools(tools: readonly Tool[]): { readonly tools: Json[]; readonly functions: number } {
  const declarations: Json[] = [];
  const hosted: Json[] = [];
  tools.forEach((tool, i) => {
    switch (tool.kind) {
      case 'function':
        declarations.push({
          name: tool.name,
          ...(tool.description === null ? {} : { description: tool.description }),
          parametersJsonSchema: objectSchema(tool.parameters),
        });
        return;
      case 'custom': {
        // A free-form tool becomes a function of one string; the client side turns {input} back into raw input.
        const note = 'Put the whole free-form input of this tool in the "input" string.';
        declarations.push({ name: tool.name, description: tool.description === null ? note : `${tool.description}\n\n${note}`, parametersJsonSchema: CUSTOM_PARAMETERS });
        return;
      }
      case 'hosted':
        if (tool.dialect === GEMINI_API) hosted.push(tool.definition);
        // Another provider's web search is dropped, as the other dialects drop Google's: the model cannot search.
        else if (!tool.type.startsWith('web_search')) {
          throw unsupported(`tools[${i}]`, `Tool type "${tool.type}" cannot be translated for this model's upstream.`);
        }
        return;
    }
  });
  return { tools: [...(declarations.length === 0 ? [] : [{ functionDeclarations: declarations }]), ...hosted], functions: declarations.length };
}

function encodeToolChoice(choice: ToolChoice): Json {
  switch (choice.type) {
    case 'auto':
      return { mode: 'AUTO' };
    case 'none':
      return { mode: 'NONE' };
    case 'required':
      return { mode: 'ANY' };
    case 'tool':
      return { mode: 'ANY', allowedFunctionNames: [choice.name] };
  }
}

function encodeResponseFormat(format: ResponseFormat): Json {
  return format.type === 'json_object'
    ? { responseMimeType: 'application/json' }
    : { responseMimeType: 'application/json', responseJsonSchema: format.schema };
}

function generationConfig(request: ChatRequest, model: string): Json {
  const thinking = encodeThinking(request.reasoning, model, request.maxTokens);
  return Object.assign(
    {},
    request.maxTokens === null ? {} : { maxOutputTokens: request.maxTokens },
    request.temperature === null ? {} : { temperature: request.temperature },
    request.topP === null ? {} : { topP: request.topP },
    request.stop.length === 0 ? {} : { stopSequences: request.stop },
    request.responseFormat === null ? {} : encodeResponseFormat(request.responseFormat),
    thinking === null ? {} : { thinkingConfig: thinking },
  );
}

/**
 * `model` decides between a thinking level (Gemini 3) and a budget. What Gemini has no field for is left out:
 * parallel_tool_calls, the conversation key (Gemini caches prefixes by itself).
 */
export function encodeRequest(request: ChatRequest, model: string): Buffer {
  const { system, contents } = encodeContents(request.messages);
  const { tools, functions } = encodeTools(request.tools);
  const config = generationConfig(request, model);
  const body: Json = {
    contents,
    ...(system.length === 0 ? {} : { systemInstruction: { parts: system } }),
    ...(tools.length === 0 ? {} : { tools }),
    // Gemini refuses a functionCallingConfig without function declarations.
    ...(functions === 0 || request.toolChoice === null ? {} : { toolConfig: { functionCallingConfig: encodeToolChoice(request.toolChoice) } }),
    ...(Object.keys(config).length === 0 ? {} : { generationConfig: config }),
  };
  return Buffer.from(JSON.stringify(body), 'utf8');
}
