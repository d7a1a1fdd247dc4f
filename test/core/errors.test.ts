// A feature's declared error codes render like core's, and may not redefine one of core's.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { declareErrors, GatewayError } from '../../core/errors.js';

describe('declared error codes', () => {
  it('carry their spec into the GatewayError, and keep it through a scrub', () => {
    const ERRORS = declareErrors({ GW_ERR_TEST_THING_GONE: { status: 410, kind: 'not_found', wireCode: 'thing_gone' } });
    const err = new GatewayError(ERRORS.GW_ERR_TEST_THING_GONE, 'It went.', { param: 'id' });
    assert.deepEqual([err.code, err.status, err.kind, err.wireCode, err.param], ['GW_ERR_TEST_THING_GONE', 410, 'not_found', 'thing_gone', 'id']);
  });

  it('refuse a code core has already', () => {
    assert.throws(() => declareErrors({ GW_ERR_INTERNAL: { status: 418, kind: 'internal', wireCode: null } }), /GW_ERR_INTERNAL is core's error code already/);
  });
});
