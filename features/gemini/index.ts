// Google's Gemini API (generateContent, streamGenerateContent, countTokens, the model list), for Gemini CLI and
// Google's SDKs: served natively by `gemini` channels (this feature's channel type) and translated through its codec
// to and from every other chat API.

import type { ChainStep, Endpoint } from '../../core/endpoints/registry.js';
import type { Feature } from '../../core/feature/feature.js';
import type { ScanMemory } from '../../core/formats/scan-memory.js';
import { GEMINI_API } from './api-name.js';
import { geminiCodec } from './codec.js';
import { createGeminiFormat, KEY_QUERY_PARAM } from './format.js';
import { answerGemini } from './mock-answer.js';
import { createGeminiModelListFormat, listGeminiModels, showGeminiModel } from './model-list.js';
import { createGeminiProvider } from './provider.js';
import type { GeminiMethod } from './request.js';

/** Google's clients may send the key as `?key=` (its docs' curl samples do): the auth takes it there too. */
const AUTH: ChainStep = { use: 'auth', with: { query_key: KEY_QUERY_PARAM } };
const METERED: readonly ChainStep[] = [AUTH, 'rate-limit', 'quota', 'meter', 'relay'];
/** countTokens is free, like Anthropic's count_tokens (core/endpoints/model-routes.ts): recorded, limited apart. */
const COUNTING: readonly ChainStep[] = [AUTH, { use: 'rate-limit', with: { route_rpm: 100 } }, 'meter', 'relay'];

const QUERY: readonly string[] = ['alt', KEY_QUERY_PARAM];

function route(method: GeminiMethod, chain: readonly ChainStep[]): Endpoint {
  return {
    method: 'POST',
    path: `/v1beta/models/{model}:${method}`,
    wire: GEMINI_API,
    createFormat: (memory: ScanMemory) => createGeminiFormat(method, memory),
    chain,
    mock: answerGemini,
    reads: { query: QUERY },
  };
}

export const geminiFeature: Feature = {
  name: 'gemini',
  wires: [{ name: GEMINI_API, native: ['gemini', 'mock'], codec: geminiCodec }],
  channelTypes: [{ type: 'gemini', remote: true, createProvider: createGeminiProvider }],
  routes: [
    route('generateContent', METERED),
    route('streamGenerateContent', METERED),
    route('countTokens', COUNTING),
    { method: 'GET', path: '/v1beta/models', createFormat: createGeminiModelListFormat, chain: [AUTH], handler: listGeminiModels, reads: { query: ['pageSize', 'pageToken', KEY_QUERY_PARAM] } },
    { method: 'GET', path: '/v1beta/models/{model}', createFormat: createGeminiModelListFormat, chain: [AUTH], handler: showGeminiModel, reads: { query: [KEY_QUERY_PARAM] } },
  ],
};
