// The images feature's keys in gateway.yaml, as JSON Schema: on a channel, `images` (how many images one request
// may ask of it). Validated with core's schema (core/config/section.ts); `npm run gen` types them (config.gen.ts) and
// documents them (docs/config-reference.md).

import type { SectionSchema } from '../../core/config/section.js';

export const IMAGES_CONFIG_SCHEMA = {
  channel: {
    images: { $ref: '#/definitions/ImageOptions', description: 'Limits of the image routes on this channel.' },
  },
  definitions: {
    ImageOptions: {
      "type": "object",
      "additionalProperties": false,
      "properties": {
        "max_n": {
          "description": "The most images one request may ask this channel for (`n` of /v1/images/generations and /v1/images/edits): one cap for every model, or a cap per model glob (first match wins, in file order; models no glob matches are not capped). A request above the cap is not sent to this channel; when no channel takes it, it is a 400 that names the cap.",
          "oneOf": [
            {
              "type": "integer",
              "minimum": 1
            },
            {
              "type": "object",
              "minProperties": 1,
              "additionalProperties": {
                "type": "integer",
                "minimum": 1
              }
            }
          ]
        }
      }
    },
  },
} as const satisfies SectionSchema;
