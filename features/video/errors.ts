// The video tasks' error codes.

import { declareErrors } from '../../core/errors.js';

export const VIDEO_ERRORS = declareErrors({
  GW_ERR_VIDEO_NOT_FOUND: { status: 404, kind: 'not_found', wireCode: 'video_not_found' },
  GW_ERR_VIDEO_NOT_READY: { status: 409, kind: 'invalid_request', wireCode: 'video_not_ready' },
  // A task linking to assets in several libraries, or in one whose channel cannot run its model.
  GW_ERR_VIDEO_ASSET_CHANNELS: { status: 400, kind: 'invalid_request', wireCode: 'asset_channel_mismatch' },
  GW_ERR_VIDEO_NOT_CANCELLABLE: { status: 409, kind: 'invalid_request', wireCode: 'video_not_cancellable' },
  // Written into a task's usage record when it ends without a video (never an answer's status).
  GW_ERR_VIDEO_TASK_FAILED: { status: 502, kind: 'upstream', wireCode: 'video_generation_failed' },
  GW_ERR_VIDEO_TASK_CANCELLED: { status: 409, kind: 'invalid_request', wireCode: 'video_cancelled' },
  GW_ERR_VIDEO_TASK_EXPIRED: { status: 504, kind: 'timeout', wireCode: 'video_expired' },
});
