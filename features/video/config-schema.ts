// The video feature's keys in gateway.yaml, as JSON Schema: validated with core's schema (core/config/section.ts);
// `npm run gen` types them (config.gen.ts) and documents them (docs/config-reference.md).

import type { SectionSchema } from '../../core/config/section.js';

export const VIDEO_CONFIG_SCHEMA = {
  properties: { video: { $ref: '#/definitions/Video' } },
  definitions: {
    Video: {
      "type": "object",
      "additionalProperties": false,
      "description": "Video tasks (/v1/videos, /v1/video/generations): how unfinished tasks are polled and when they expire.",
      "properties": {
        "poll_interval_ms": {
          "type": "integer",
          "minimum": 100,
          "maximum": 3600000,
          "default": 5000,
          "description": "How soon after submission a task is first read from its upstream; each later read waits half as long again, up to max_poll_interval_ms."
        },
        "max_poll_interval_ms": {
          "type": "integer",
          "minimum": 100,
          "maximum": 3600000,
          "default": 60000,
          "description": "The longest wait between two reads of an unfinished task."
        },
        "refresh_after_ms": {
          "type": "integer",
          "minimum": 0,
          "maximum": 3600000,
          "default": 1000,
          "description": "A client's GET of an unfinished task not read for this long reads it from its upstream at once."
        },
        "task_timeout_ms": {
          "type": "integer",
          "minimum": 1000,
          "maximum": 2592000000,
          "default": 172800000,
          "description": "A task its upstream has not finished this long after submission expires: it is charged nothing and its reservation is released (Ark's own default is 48 h)."
        }
      }
    },
  },
} as const satisfies SectionSchema;
