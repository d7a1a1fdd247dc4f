// Generated from features/assets/config-schema.ts by `npm run gen`; do not edit. Change the schema and regenerate.

export interface AssetsConfig {
  channels?: Channel[];
}
export interface Channel {
  control?: VolcengineControl;
  /**
   * This channel holds the asset library (/v1/videogen/asset/*) for the gateway's callers: type volcengine (with `control`) or mock (docs/assets-and-video.md).
   */
  assets?: boolean;
}
/**
 * volcengine only: Volcengine's OpenAPI control plane, where the asset library lives; its actions are signed with the operator's AK/SK.
 */
export interface VolcengineControl {
  /**
   * The OpenAPI control plane, e.g. https://ark.cn-beijing.volcengineapi.com
   */
  url: string;
  /**
   * The region the actions are signed for: cn-beijing (BytePlus: ap-southeast-1).
   */
  region: string;
  /**
   * The operator's access key id (use ${ENV}); it signs every action and never reaches a caller, a log or the console.
   */
  access_key_id: string;
  /**
   * The operator's secret access key (use ${ENV}); it signs every action and never reaches a caller, a log or the console.
   */
  secret_access_key: string;
  /**
   * The project the library's groups and assets are created in, whatever a caller sends.
   */
  project_name?: string;
  /**
   * Time allowed for one action's answer.
   */
  timeout_ms?: number;
}
