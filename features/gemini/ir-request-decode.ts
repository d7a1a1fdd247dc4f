// A Gemini client's GenerateContentRequest as the IR (Gemini CLI answered by another dialect). The model and the
// stream flag come from the path (`/v1beta/models/{model}:streamGenerateContent`), not the body. Every value below
// the shallow check is read through `read` (request-fields.ts), and every key in camelCase or snake_case.

import { outputCapOf } from '../../core/formats/output-cap.js';
import { GEMINI_OUTPUT_CAPS } from './output-caps.js';
import { shown, type JsonObject } from '../../core/formats/field-reader.js';
import type { ParsedRequest } from '../../core/formats/format.js';
import type { ChatRequest, ResponseFormat, Tool, ToolChoice } from '../../core/ir/request.js';
import { GEMINI_API } from './api-name.js';
import { decodeContents, decodeSystem } from './ir-contents-decode.js';
import { listOf, member } from './lenient-json.js';
import { jsonSchemaOf, parametersOf } from './openapi-schema.js';
import { geminiFields as read, unsupported } from './request-fields.js';
import { decodeThinking } from './thinking.js';

/**
 * Tools Google runs itself, kept for a Gemini upstream only. Its searches are typed as a web search, which the
 * other dialects' encoders drop (the model answers from what it knows) where they refuse other providers' tools.
 */
const HOSTED: Readonly<Record<string, string>> = {
  googleSearch: 'web_search',
  googleSearchRetrieval: 'web_search_retrieval',
  enterpriseWebSearch: 'web_search_enterprise',
  codeExecution: 'codeExecution',
  urlContext: 'urlContext',
  googleMaps: 'googleMaps',
  fileSearch: 'fileSearch',
  computerUse: 'computerUse',
  retrieval: 'retrieval',
};

function decodeTools(value: unknown): Tool[] {
  return listOf(value).flatMap((entry: unknown, i): Tool[] => {
    const param = `tools[${i}]`;
    const tool = read.object(entry, param);
    const declarations = listOf(member(tool, 'functionDeclarations')).map((d: unknown, k): Tool => {
      const at = `${param}.functionDeclarations[${k}]`;
      const fn = read.object(d, at);
      // parametersJsonSchema is JSON Schema already; parameters is Google's OpenAPI subset. Both are written as JSON Schema.
      const schema = member(fn, 'parametersJsonSchema') ?? member(fn, 'parameters');
      if (schema !== undefined && schema !== null) read.object(schema, `${at}.parameters`);
      return {
        kind: 'function',
        name: read.string(fn['name'], `${at}.name`),
        description: read.optionalString(fn['description'], `${at}.description`),
        parameters: parametersOf(schema),
        strict: null,
      };
    });
    const hosted = Object.entries(HOSTED).flatMap(([key, type]): Tool[] => {
      const definition = member(tool, key);
      // The definition keeps Google's own (camelCase) key: it is sent to a Gemini upstream as it was.
      return definition === undefined || definition === null ? [] : [{ kind: 'hosted', dialect: GEMINI_API, type, definition: { [key]: definition } }];
    });
    return [...declarations, ...hosted];
  });
}

/** functionCallingConfig; ANY limited to one function is that tool, to several (which the IR cannot say) any tool. */
function decodeToolChoice(toolConfig: unknown): ToolChoice | null {
  const config = read.optionalObject(toolConfig, 'toolConfig');
  const calling = config === null ? null : read.optionalObject(member(config, 'functionCallingConfig'), 'toolConfig.functionCallingConfig');
  if (calling === null) return null;
  const param = 'toolConfig.functionCallingConfig';
  const mode = (read.optionalString(calling['mode'], `${param}.mode`) ?? 'MODE_UNSPECIFIED').toUpperCase();
  const allowed = listOf(member(calling, 'allowedFunctionNames')).map((n: unknown, k) =>
    read.string(n, `${param}.allowedFunctionNames[${k}]`),
  );
  switch (mode) {
    case 'AUTO':
    // VALIDATED: the model may call or answer (its calls checked against the schemas), as with AUTO.
    case 'VALIDATED':
      return { type: 'auto' };
    case 'NONE':
      return { type: 'none' };
    case 'ANY': {
      const only = allowed.length === 1 ? allowed[0] : undefined;
      return only === undefined ? { type: 'required' } : { type: 'tool', name: only };
    }
    case 'MODE_UNSPECIFIED':
      return null;
    default:
      throw read.invalid(`${param}.mode`, `expected AUTO, ANY, NONE or VALIDATED, but got "${shown(mode)}"`);
  }
}

function decodeResponseFormat(config: JsonObject): ResponseFormat | null {
  const mime = read.optionalString(member(config, 'responseMimeType'), 'generationConfig.responseMimeType');
  const schema = member(config, 'responseJsonSchema') ?? member(config, 'responseSchema');
  if (mime === null || mime === 'text/plain') return null;
  if (mime !== 'application/json') {
    throw unsupported('generationConfig.responseMimeType', `responseMimeType "${shown(mime)}" cannot be translated for this model's upstream.`);
  }
  if (schema === undefined || schema === null) return { type: 'json_object' };
  const json = jsonSchemaOf(read.object(schema, 'generationConfig.responseJsonSchema')) as Record<string, unknown>;
  return { type: 'json_schema', name: 'response', schema: json, strict: null, description: null };
}

/** What would change the shape of the answer, which another dialect cannot give. */
function refuseUnsupported(body: JsonObject, config: JsonObject | null): void {
  const candidates = config === null ? null : read.optionalNumber(member(config, 'candidateCount'), 'generationConfig.candidateCount');
  if (candidates !== null && candidates > 1) {
    throw unsupported('generationConfig.candidateCount', `"candidateCount" greater than 1 cannot be translated for this model's upstream: it answers with one candidate.`);
  }
  if (config !== null && member(config, 'responseLogprobs') === true) {
    throw unsupported('generationConfig.responseLogprobs', `"responseLogprobs" cannot be translated for this model's upstream.`);
  }
  const modalities = config === null ? [] : listOf(member(config, 'responseModalities'));
  if (modalities.some((m: unknown) => typeof m !== 'string' || m.toUpperCase() !== 'TEXT')) {
    throw unsupported('generationConfig.responseModalities', `Output other than text cannot be translated for this model's upstream.`);
  }
  // An explicit cache lives at Google: another upstream would answer without the content it holds.
  if (member(body, 'cachedContent') !== undefined && member(body, 'cachedContent') !== null) {
    throw unsupported('cachedContent', `"cachedContent" names a Gemini cache, which this model's upstream cannot read.`);
  }
}

function decodeStop(config: JsonObject | null): string[] {
  if (config === null) return [];
  return listOf(member(config, 'stopSequences'))
    .map((s: unknown, i) => read.string(s, `generationConfig.stopSequences[${i}]`))
    .filter((s) => s !== '');
}

export function decodeRequest(request: ParsedRequest): ChatRequest {
  const body = request.json;
  const config = read.optionalObject(member(body, 'generationConfig'), 'generationConfig');
  refuseUnsupported(body, config);
  const system = decodeSystem(member(body, 'systemInstruction'));
  const messages = decodeContents(body['contents']);
  if (config !== null) read.optionalNumber(member(config, 'maxOutputTokens'), 'generationConfig.maxOutputTokens');
  // The cap the reservation read (every spelling, the largest): what is reserved is what the upstream is told.
  const max = outputCapOf(body, GEMINI_OUTPUT_CAPS);
  return {
    model: request.model,
    messages: system === null ? messages : [system, ...messages],
    tools: decodeTools(body['tools']),
    toolChoice: decodeToolChoice(member(body, 'toolConfig')),
    parallelToolCalls: null,
    maxTokens: max,
    temperature: config === null ? null : read.optionalNumber(config['temperature'], 'generationConfig.temperature'),
    topP: config === null ? null : read.optionalNumber(member(config, 'topP'), 'generationConfig.topP'),
    stop: decodeStop(config),
    responseFormat: config === null ? null : decodeResponseFormat(config),
    reasoning: decodeThinking(config === null ? null : read.optionalObject(member(config, 'thinkingConfig'), 'generationConfig.thinkingConfig'), 'generationConfig.thinkingConfig'),
    stream: request.stream,
    conversation: request.conversation,
  };
}
