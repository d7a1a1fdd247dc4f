// OpenAI's image generation and edits, relayed by model like the chat routes and priced per image.

import { METERED } from '../../core/endpoints/model-routes.js';
import type { Feature } from '../../core/feature/feature.js';
import { createOpenAIImagesEditsFormat, createOpenAIImagesGenerationsFormat } from './format.js';
import { answerEdits, answerGenerations } from './mock-answer.js';
import { imagesConfig } from './config.js';

export const imagesFeature: Feature = {
  name: 'images',
  wires: [{ name: 'openai-images', native: ['openai', 'mock'] }],
  config: imagesConfig,
  routes: [
    { method: 'POST', path: '/v1/images/generations', wire: 'openai-images', createFormat: createOpenAIImagesGenerationsFormat, chain: METERED, mock: answerGenerations },
    // A multipart form: read within server.body_limit, its fields read to route it, its bytes forwarded as sent.
    { method: 'POST', path: '/v1/images/edits', wire: 'openai-images', createFormat: createOpenAIImagesEditsFormat, chain: METERED, mock: answerEdits },
  ],
};
