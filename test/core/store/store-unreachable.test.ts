// Which store errors mean the database is out of reach (a 503 to retry) rather than a bug (a 500): a connection
// failure of the store's driver, marked as such where it comes out of node-postgres; the same code from anywhere else
// (an upstream's reset) is not the store's.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { toGatewayError } from '../../../core/errors.js';
import { isConnectionFailure, StoreUnreachableError } from '../../../core/store/store-unreachable.js';

const withCode = (code: string, message = 'x'): Error => Object.assign(new Error(message), { code });

test('the driver\'s connection failures are the database out of reach, once marked; anything else is not', () => {
  for (const err of [
    withCode('ECONNREFUSED'),
    withCode('ECONNRESET'),
    withCode('57P01', 'terminating connection due to administrator command'),
    withCode('08006', 'connection failure'),
    new Error('Connection terminated unexpectedly'),
    new Error('Client has encountered a connection error and is not queryable'),
    new Error('timeout exceeded when trying to connect'),
  ]) {
    assert.equal(isConnectionFailure(err), true, String(err));
    const answer = toGatewayError(new StoreUnreachableError(err));
    assert.equal(answer.status, 503);
    assert.equal(answer.retryAfter, 1);
    assert.doesNotMatch(answer.message, /ECONN|terminated|57P01/, 'the driver words stay in the log');
    assert.equal(toGatewayError(err).status, 500, 'unmarked (not from the store): not the database');
  }
  for (const err of [withCode('23505', 'duplicate key value'), withCode('SQLITE_BUSY'), new TypeError('x is undefined'), 'ECONNRESET', null]) {
    assert.equal(isConnectionFailure(err), false, String(err));
    assert.equal(toGatewayError(err).status, 500);
  }
});
