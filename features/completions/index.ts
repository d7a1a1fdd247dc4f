// OpenAI's legacy Completions API, relayed by model like the chat routes and priced per token (the model's `input`
// and `output` prices).

import { METERED } from '../../core/endpoints/model-routes.js';
import type { Feature } from '../../core/feature/feature.js';
import { COMPLETIONS_API, createOpenAICompletionsFormat } from './format.js';
import { answerCompletions } from './mock-answer.js';

export const completionsFeature: Feature = {
  name: 'completions',
  wires: [{ name: COMPLETIONS_API, native: ['openai', 'mock'] }],
  routes: [{ method: 'POST', path: '/v1/completions', wire: COMPLETIONS_API, createFormat: createOpenAICompletionsFormat, chain: METERED, mock: answerCompletions }],
};
