// The channel-control feature's error codes.

import { declareErrors } from '../../core/errors.js';

export const CHANNEL_CONTROL_ERRORS = declareErrors({
  // The name is no channel of the config in force (a channel's name is its identity across reloads).
  GW_ERR_CHANNEL_NOT_FOUND: { status: 404, kind: 'not_found', wireCode: 'not_found' },
});
