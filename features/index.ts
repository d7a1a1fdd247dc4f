// The one list of features: the gateway's routes beyond the model routes, and what they bring. Core builds the
// registry and the plugin set from it (core/feature/compose.ts); a new capability is a folder here and a line below.

import type { Feature } from '../core/feature/feature.js';
import { registryOf, storePartsOf } from '../core/feature/compose.js';
import type { StorePart } from '../core/store/store-part.js';
import { adminFeature } from './admin/index.js';
import { assetsFeature } from './assets/index.js';
import { billingFeature } from './billing/index.js';
import { channelControlFeature } from './channel-control/index.js';
import { completionsFeature } from './completions/index.js';
import { consoleFeature } from './console/index.js';
import { embeddingsFeature } from './embeddings/index.js';
import { geminiFeature } from './gemini/index.js';
import { imagesFeature } from './images/index.js';
import { modelsFeature } from './models/index.js';
import { pricesFeature } from './prices/index.js';
import { requestsFeature } from './requests/index.js';
import { telemetryFeature } from './telemetry/index.js';
import { topupFeature } from './topup/index.js';
import { videoFeature } from './video/index.js';
import { webhooksFeature } from './webhooks/index.js';

export const FEATURES: readonly Feature[] = [
  imagesFeature,
  embeddingsFeature,
  completionsFeature,
  geminiFeature,
  assetsFeature,
  videoFeature,
  webhooksFeature,
  modelsFeature,
  billingFeature,
  topupFeature,
  adminFeature,
  consoleFeature,
  requestsFeature,
  pricesFeature,
  channelControlFeature,
  telemetryFeature,
];

/** The routes of the built-in features and core's model routes (immutable: one serves every gateway of a process). */
export const BUILTIN_ENDPOINTS = registryOf(FEATURES);

/** The built-in features' parts of the store: what openStore takes for the gateway's database. */
export const STORE_PARTS: readonly StorePart<unknown>[] = storePartsOf(FEATURES);
