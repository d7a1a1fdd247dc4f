// Model listing: GET /v1/models and /v1/models/{id}, what a key may call, in its caller's API.

import type { Feature } from '../../core/feature/feature.js';
import { createModelListFormat } from '../../core/formats/model-list/index.js';
import { listModels, showModel } from './model-list.js';

export const modelsFeature: Feature = {
  name: 'models',
  routes: [
    { method: 'GET', path: '/v1/models', createFormat: createModelListFormat, chain: ['auth'], handler: listModels, reads: { query: ['limit', 'after_id', 'before_id'] } },
    { method: 'GET', path: '/v1/models/{id}', createFormat: createModelListFormat, chain: ['auth'], handler: showModel },
  ],
};
