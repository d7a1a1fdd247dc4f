// The asset library's error codes: its actions' and those of a task's asset:// links (links.ts).

import { declareErrors } from '../../core/errors.js';

export const ASSET_ERRORS = declareErrors({
  GW_ERR_ASSET_ACTION_UNKNOWN: { status: 404, kind: 'not_found', wireCode: 'unknown_action' },
  GW_ERR_ASSET_GROUP_NOT_FOUND: { status: 404, kind: 'not_found', wireCode: 'asset_group_not_found' },
  GW_ERR_ASSET_NOT_FOUND: { status: 404, kind: 'not_found', wireCode: 'asset_not_found' },
  GW_ERR_ASSET_GROUP_LIMIT: { status: 403, kind: 'permission', wireCode: 'QuotaExceeded.AssetGroups' },
  GW_ERR_ASSET_LIBRARY_UNAVAILABLE: { status: 503, kind: 'overloaded', wireCode: 'asset_library_unavailable' },
  // A request's content linking to an asset it may not use (links.ts); named for video tasks, where callers see them.
  GW_ERR_VIDEO_ASSET_REFUSED: { status: 400, kind: 'invalid_request', wireCode: 'invalid_asset_reference' },
  GW_ERR_VIDEO_ASSET_NOT_READY: { status: 400, kind: 'invalid_request', wireCode: 'asset_not_ready' },
});
