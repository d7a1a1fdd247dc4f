// The asset library's keys in gateway.yaml, as JSON Schema: on a channel, `assets` (it holds a library) and
// `control` (Volcengine's control plane, where the library lives). Validated with core's schema
// (core/config/section.ts); `npm run gen` types them (config.gen.ts) and documents them (docs/config-reference.md).

import type { SectionSchema } from '../../core/config/section.js';

export const ASSETS_CONFIG_SCHEMA = {
  channel: {
    control: { $ref: '#/definitions/VolcengineControl' },
    assets: {
      "type": "boolean",
      "default": false,
      "description": "This channel holds the asset library (/v1/videogen/asset/*) for the gateway's callers: type volcengine (with `control`) or mock (docs/assets-and-video.md)."
    },
  },
  definitions: {
    VolcengineControl: {
      "type": "object",
      "additionalProperties": false,
      "required": [
        "url",
        "region",
        "access_key_id",
        "secret_access_key"
      ],
      "description": "volcengine only: Volcengine's OpenAPI control plane, where the asset library lives; its actions are signed with the operator's AK/SK.",
      "properties": {
        "url": {
          "type": "string",
          "format": "uri",
          "pattern": "^https?://",
          "description": "The OpenAPI control plane, e.g. https://ark.cn-beijing.volcengineapi.com"
        },
        "region": {
          "type": "string",
          "pattern": "^[a-z0-9-]{1,64}$",
          "description": "The region the actions are signed for: cn-beijing (BytePlus: ap-southeast-1)."
        },
        "access_key_id": {
          "type": "string",
          "minLength": 1,
          "description": "The operator's access key id (use ${ENV}); it signs every action and never reaches a caller, a log or the console."
        },
        "secret_access_key": {
          "type": "string",
          "minLength": 1,
          "description": "The operator's secret access key (use ${ENV}); it signs every action and never reaches a caller, a log or the console."
        },
        "project_name": {
          "type": "string",
          "minLength": 1,
          "maxLength": 64,
          "default": "default",
          "description": "The project the library's groups and assets are created in, whatever a caller sends."
        },
        "timeout_ms": {
          "type": "integer",
          "minimum": 1,
          "default": 30000,
          "description": "Time allowed for one action's answer."
        }
      }
    },
  },
} as const satisfies SectionSchema;
