// The contract of an asset library: Volcengine Ark's (a signed OpenAPI control plane) or the mock channel's (kept in
// the store). The assets feature (features/assets) decides who may call what; a library only carries an action out.

/** The eight actions the gateway serves, as Volcengine names them (Version 2024-01-01). */
export const ASSET_ACTIONS = [
  'CreateAssetGroup',
  'CreateAsset',
  'GetAssetGroup',
  'GetAsset',
  'ListAssetGroups',
  'ListAssets',
  'UpdateAssetGroup',
  'UpdateAsset',
] as const;
export type AssetAction = (typeof ASSET_ACTIONS)[number];

/** The control plane's API version for the asset actions. */
export const ASSET_API_VERSION = '2024-01-01';

/** What a library answered: the HTTP status and the parsed JSON envelope (`ResponseMetadata`, and `Result` on success). */
export interface LibraryAnswer {
  readonly status: number;
  readonly body: Readonly<Record<string, unknown>>;
}

export interface AssetLibrary {
  /**
   * One action, its body as Volcengine takes it (PascalCase fields; the library adds the channel's ProjectName).
   * Resolves with the upstream's answer, an error envelope included; throws a GatewayError when no answer came
   * (GW_ERR_UPSTREAM_UNAVAILABLE, GW_ERR_UPSTREAM_TIMEOUT) or it was not a JSON envelope (GW_ERR_UPSTREAM_ERROR).
   */
  call(action: AssetAction, body: Readonly<Record<string, unknown>>, signal?: AbortSignal): Promise<LibraryAnswer>;
  close(): Promise<void>;
}
