// The top-up codes' error codes. A code that cannot credit says why (unknown, used, expired, disabled): only someone
// holding the 130-bit string learns which, and every such answer counts against the redeemer's limit.

import { declareErrors } from '../../core/errors.js';

export const TOPUP_ERRORS = declareErrors({
  GW_ERR_TOPUP_CODE_INVALID: { status: 400, kind: 'invalid_request', wireCode: 'code_invalid' },
  GW_ERR_TOPUP_CODE_USED: { status: 409, kind: 'invalid_request', wireCode: 'code_used' },
  GW_ERR_TOPUP_CODE_EXPIRED: { status: 410, kind: 'invalid_request', wireCode: 'code_expired' },
  GW_ERR_TOPUP_CODE_DISABLED: { status: 410, kind: 'invalid_request', wireCode: 'code_disabled' },
  // The operator's session has no account to credit.
  GW_ERR_TOPUP_NO_ACCOUNT: { status: 403, kind: 'permission', wireCode: 'no_account' },
  GW_ERR_TOPUP_NOT_FOUND: { status: 404, kind: 'not_found', wireCode: 'not_found' },
  // A batch's idempotency key sent again with other fields: not a retry of that batch, and not made either.
  GW_ERR_TOPUP_KEY_REUSED: { status: 409, kind: 'invalid_request', wireCode: 'idempotency_key_reused' },
});
