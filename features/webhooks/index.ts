// Webhooks: events (a balance run low, a budget reached, a task failed, a key about to expire, a channel down or up)
// told to the operator's receivers as signed JSON POSTs, kept in an outbox in the store so each is sent once per fleet
// and none is lost across a restart. Other parts of the gateway emit through core's GATEWAY_EVENTS contract.

import { sectionOf } from '../../core/config/section.js';
import type { Feature } from '../../core/feature/feature.js';
import { GATEWAY_EVENTS } from '../../core/feature/gateway-events.js';
import { WEBHOOK_SETTINGS, webhooksConfig } from './config.js';
import { outboxEmitter } from './emitter.js';
import { webhookJobs } from './jobs.js';
import { WEBHOOK_STORE, webhookStorePart } from './store-part.js';

export const webhooksFeature: Feature = {
  name: 'webhooks',
  routes: [],
  config: webhooksConfig,
  store: webhookStorePart,
  services: [
    {
      slot: GATEWAY_EVENTS,
      create: (core) => outboxEmitter(sectionOf(core.config, WEBHOOK_SETTINGS), () => core.store.part(WEBHOOK_STORE).outbox),
      close: async () => undefined,
    },
  ],
  jobs: (env) => webhookJobs(env),
};

export default webhooksFeature;
