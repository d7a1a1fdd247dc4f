// The webhooks feature's keys in gateway.yaml, as JSON Schema: validated with core's schema (core/config/section.ts);
// `npm run gen` types them (config.gen.ts) and documents them (docs/config-reference.md).

import type { SectionSchema } from '../../core/config/section.js';
import { EVENT_TYPES } from './event-types.js';

export const WEBHOOKS_CONFIG_SCHEMA = {
  properties: {
    webhooks: {
      type: 'array',
      // At most MAX_HOOKS, checked in config.ts: a maxItems here would be typed as a union of every tuple length.
      description:
        'Where events are sent (docs/operations.md, "Webhooks"): each a signed JSON POST ({id, type, time, data}), Standard Webhooks headers, retried with back-off until delivered, once per fleet; at most 20.',
      items: { $ref: '#/definitions/Webhook' },
    },
  },
  definitions: {
    Webhook: {
      type: 'object',
      additionalProperties: false,
      required: ['url', 'events', 'secret'],
      properties: {
        url: {
          type: 'string',
          minLength: 1,
          maxLength: 2048,
          description: 'An https:// URL on a public address (the rules of the links callers send), checked again at each connection; allow_private lifts that.',
        },
        events: {
          type: 'array',
          minItems: 1,
          uniqueItems: true,
          items: { enum: [...EVENT_TYPES] },
          description: 'The events it is sent (docs/operations.md, "Webhooks", describes each).',
        },
        secret: {
          type: 'string',
          minLength: 16,
          description:
            'The HMAC-SHA256 key of its webhook-signature header (use ${ENV}); a whsec_ prefix means base64 after it, as the Standard Webhooks libraries take it.',
        },
        allow_private: {
          type: 'boolean',
          default: false,
          description: 'Allows an http:// URL and loopback, private and link-local addresses (a receiver inside the operator\'s network).',
        },
        balance_below: {
          oneOf: [
            { type: 'number', minimum: 0 },
            { type: 'string', pattern: '^\\d+(\\.\\d{1,9})?$' },
          ],
          description: 'balance_low: sent when an account\'s balance falls below this amount (default 1).',
        },
        key_expiring_days: {
          type: 'integer',
          minimum: 1,
          maximum: 365,
          default: 7,
          description: 'key_expiring: sent once when a key expires within this many days.',
        },
      },
    },
  },
} as const satisfies SectionSchema;
