// Reasoning proofs wrapped for a client of another dialect come back exactly; anything else is not a wrapped proof.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { unwrapProof, wrapProof } from '../../../core/ir/proof-tag.js';
import { upstreamError } from '../../../core/ir/upstream-error.js';

test('a Responses proof wrapped into an Anthropic signature unwraps to the same proof, id included, text null', () => {
  const proof = { dialect: 'openai-responses' as const, value: 'gAAAAB-opaque==', id: 'rs_123' };
  const wrapped = wrapProof(proof, null);
  assert.match(wrapped, /^gwrp1\.[A-Za-z0-9_-]+$/);
  assert.deepEqual(unwrapProof(wrapped), { proof, text: null });
});

test('an Anthropic proof wrapped into encrypted_content keeps its thinking text, multibyte and newlines included', () => {
  const proof = { dialect: 'anthropic-messages' as const, value: 'EqQBCkYIBxgCKkD' };
  const text = 'Überlegung: 思考中 🤔\nline two';
  assert.deepEqual(unwrapProof(wrapProof(proof, text)), { proof, text });
  const redacted = { dialect: 'anthropic-messages' as const, value: 'EmwKAhgBEgy', redacted: true };
  assert.deepEqual(unwrapProof(wrapProof(redacted, '')), { proof: redacted, text: '' });
});

test('native signatures, garbage after the prefix and a dialect that is no API name are not wrapped proofs', () => {
  assert.equal(unwrapProof('EqQBCkYIBxgCKkD'), null);
  assert.equal(unwrapProof('gwrp1.%%%not-base64%%%'), null);
  assert.equal(unwrapProof(`gwrp1.${Buffer.from('{"d":"Not a dialect!","v":"x"}').toString('base64url')}`), null);
  assert.equal(unwrapProof(`gwrp1.${Buffer.from('{"d":"anthropic-messages"}').toString('base64url')}`), null);
});

test('upstream errors keep their status class, message and code; overload and rate limits are recognised in streams', () => {
  const bad = upstreamError({ status: 400, type: 'invalid_request_error', code: 'context_length_exceeded', message: 'too long' });
  assert.equal(bad.code, 'GW_ERR_UPSTREAM_BAD_REQUEST');
  assert.equal(bad.status, 400);
  assert.equal(bad.wireCode, 'context_length_exceeded');
  assert.equal(bad.message, 'too long');
  assert.equal(upstreamError({ status: 422, type: null, code: null, message: null }).status, 400);
  assert.equal(upstreamError({ status: 404, type: 'not_found_error', code: null, message: 'no model' }).status, 404);
  assert.equal(upstreamError({ status: 413, type: null, code: null, message: null }).status, 413);
  assert.equal(upstreamError({ status: null, type: 'overloaded_error', code: null, message: 'Overloaded' }).code, 'GW_ERR_UPSTREAM_OVERLOADED');
  assert.equal(upstreamError({ status: null, type: null, code: 'rate_limit_exceeded', message: 'slow down' }).code, 'GW_ERR_UPSTREAM_RATE_LIMITED');
  const other = upstreamError({ status: null, type: 'api_error', code: null, message: null });
  assert.equal(other.code, 'GW_ERR_UPSTREAM_ERROR');
  assert.match(other.message, /upstream answered with an error/);
});
