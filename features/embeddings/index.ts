// OpenAI's embeddings, relayed by model like the chat routes and priced per input token (the model's `input` price).

import { METERED } from '../../core/endpoints/model-routes.js';
import type { Feature } from '../../core/feature/feature.js';
import { createOpenAIEmbeddingsFormat, EMBEDDINGS_API } from './format.js';
import { answerEmbeddings } from './mock-answer.js';

export const embeddingsFeature: Feature = {
  name: 'embeddings',
  wires: [{ name: EMBEDDINGS_API, native: ['openai', 'mock'] }],
  routes: [{ method: 'POST', path: '/v1/embeddings', wire: EMBEDDINGS_API, createFormat: createOpenAIEmbeddingsFormat, chain: METERED, mock: answerEmbeddings }],
};
