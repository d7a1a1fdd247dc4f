// The harness the three decoders' refusal tests share: the error a body gets, and one test per refused body that
// checks its code, the field it names and that its message names that field in the format's own words.

import assert from 'node:assert/strict';
import { it } from 'node:test';
import { GatewayError } from '../../../core/errors.js';

export const INVALID = 'GW_ERR_REQUEST_INVALID_FIELD';
export const MISSING = 'GW_ERR_REQUEST_MISSING_FIELD';
export const UNSUPPORTED = 'GW_ERR_TRANSLATION_UNSUPPORTED';

/** A test name, the body's fields, the code and the `param` the refusal must carry. */
export type RefusalCase = [string, Record<string, unknown>, string, string];

/** The GatewayError `decode` throws; fails the test when it accepts the body or throws anything else. */
export function refusalOf(decode: () => unknown, json: Record<string, unknown>): GatewayError {
  try {
    decode();
  } catch (err) {
    assert.ok(err instanceof GatewayError, `not a GatewayError: ${String(err)}`);
    return err;
  }
  assert.fail(`accepted ${JSON.stringify(json)}`);
}

/** One test per case; `names(message, param)`: whether the message names the field as the format words it. */
export function itRefusesEach(
  cases: readonly RefusalCase[],
  refusal: (json: Record<string, unknown>) => GatewayError,
  names: (message: string, param: string) => boolean,
): void {
  for (const [name, json, code, param] of cases) {
    it(name, () => {
      const err = refusal(json);
      assert.equal(err.code, code, err.message);
      assert.equal(err.param, param, err.message);
      assert.equal(err.status, 400);
      if (code !== UNSUPPORTED) assert.ok(names(err.message, param), `the message names ${param}: ${err.message}`);
    });
  }
}
