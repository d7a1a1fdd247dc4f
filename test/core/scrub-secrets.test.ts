// The scrubber finds keys however JSON spells them: behind an escape (`\nsk-`), after an underscore or a letter,
// with their slashes escaped (`\/`, `\u002f`); it rewrites in-band error events and upstream errors the same way,
// and leaves text without a key untouched (the very same object).

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { GatewayError } from '../../core/errors.js';
import { scrubError, scrubErrorBody, scrubErrorFrame, scrubErrorText } from '../../core/scrub-secrets.js';
import { encodeFrame } from '../../core/sse/frame-writer.js';

const SK = 'sk-proj-abcdefghijklmnopqrstuvwxyz012345';
const SLASHED = 'vendor/key+Zq8w0123456789abcdef';

test('a key after a JSON escape, an underscore or a letter is found', () => {
  for (const message of [`bad key:\n${SK}`, `bad_key_${SK}`, `token${SK}`, `tab\t${SK}`]) {
    const body = Buffer.from(JSON.stringify({ error: { message } }));
    const out = scrubErrorBody(body, []).toString();
    assert.ok(!out.includes('abcdefghijklmnopqrstuvwxyz012345'), out);
    assert.match(out, /\[redacted\]/);
  }
  const aws = scrubErrorText('{"error":"bad\\nAKIAIOSFODNN7EXAMPLE"}', []);
  assert.ok(!aws.includes('AKIAIOSFODNN7EXAMPLE'), aws);
});

test('a channel key with a slash is found raw, as \\/ and as \\u002f', () => {
  const forms = [SLASHED, SLASHED.replace('/', '\\/'), SLASHED.replace('/', '\\u002f'), SLASHED.replace('/', '\\u002F')];
  for (const form of forms) {
    const text = `{"error":{"message":"key ${form} refused","type":"invalid_request_error"}}`;
    const out = scrubErrorText(text, [SLASHED]);
    assert.ok(!out.includes('Zq8w0123456789abcdef'), `${form}: ${out}`);
    assert.deepEqual(JSON.parse(out), { error: { message: 'key [redacted] refused', type: 'invalid_request_error' } });
  }
});

test('a key cut by an escape in the raw text is replaced whole, not up to the escape', () => {
  const out = scrubErrorText('{"error":{"message":"header Bearer abcdefghijklmnopq\\/rest-of-token was refused"}}', []);
  assert.ok(!out.includes('rest-of-token'), out);
  assert.deepEqual(JSON.parse(out), { error: { message: 'header Bearer [redacted] was refused' } });
  const prefixed = `sk-live/${SLASHED}`;
  const cut = scrubErrorText(`{"error":"key ${prefixed.replaceAll('/', '\\u002f')}"}`, [prefixed]);
  assert.deepEqual(JSON.parse(cut), { error: 'key [redacted]' });
});

test('a key in the first of two same-named members (JSON.parse keeps the last) is still replaced', () => {
  const out = scrubErrorText(`{"error":{"message":"bad key ${SK}","message":"x"}}`, []);
  assert.ok(!out.includes('abcdefghijklmnopqrstuvwxyz012345'), out);
});

test('a member named __proto__ stays a member when the JSON is written again', () => {
  const out = scrubErrorText(`{"__proto__":{"detail":"kept"},"error":"key ${SK}"}`, []);
  assert.deepEqual(Object.entries(JSON.parse(out) as object), [['__proto__', { detail: 'kept' }], ['error', 'key [redacted]']]);
});

test('an escaped key in plain text (not JSON) is found when written raw; JSON is decoded only when it parses', () => {
  assert.equal(scrubErrorText(`upstream said: ${SLASHED}`, [SLASHED]), 'upstream said: [redacted]');
  assert.equal(scrubErrorText('{"broken": ', [SLASHED]), '{"broken": ');
});

test('text without a key is returned as it came: same string, same buffer, same frame, same error', () => {
  const body = Buffer.from('{"error":{"message":"context too long","type":"invalid_request_error"}}');
  assert.equal(scrubErrorBody(body, [SLASHED]), body);
  const frame = encodeFrame('{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}', 'error');
  assert.equal(scrubErrorFrame(frame, [SLASHED]), frame);
  const err = new GatewayError('GW_ERR_UPSTREAM_ERROR', 'Overloaded');
  assert.equal(scrubError(err, [SLASHED]), err);
});

test('an in-band error frame is rebuilt with the key replaced, its event kept', () => {
  const frame = encodeFrame(JSON.stringify({ type: 'error', error: { type: 'overloaded_error', message: `key\n${SLASHED}` } }), 'error');
  const out = scrubErrorFrame(frame, [SLASHED]);
  const raw = Buffer.from(out.raw).toString();
  assert.ok(!raw.includes('Zq8w'), raw);
  assert.equal(out.event, 'error');
  assert.match(raw, /^event: error\ndata: \{.*\}\n\n$/);
  assert.deepEqual(JSON.parse(out.data ?? ''), { type: 'error', error: { type: 'overloaded_error', message: 'key\n[redacted]' } });
});

test('an upstream error keeps its code, wire code and status; only the message changes', () => {
  const err = new GatewayError('GW_ERR_UPSTREAM_OVERLOADED', `overloaded for ${SK}`, { wireCode: 'overloaded_error', upstreamStatus: 529, retryAfter: 3 });
  const out = scrubError(err, []);
  assert.equal(out.message, 'overloaded for [redacted]');
  assert.deepEqual([out.code, out.wireCode, out.upstreamStatus, out.retryAfter, out.status], [err.code, 'overloaded_error', 529, 3, err.status]);
});

test('a partial echo needs a mask or 12 characters of the key: its head alone in ordinary text is left', () => {
  const key = 'upstream-Zq8w0123456789abcdefWXYZ';
  assert.equal(scrubErrorText('upstream-Zq error, upstream-Z', [key]), 'upstream-Zq error, upstream-Z');
  assert.equal(scrubErrorText(`key ${key.slice(0, 12)} refused`, [key]), 'key [redacted] refused');
  assert.equal(scrubErrorText(`key ${key.slice(0, 8)}…${key.slice(-4)} refused`, [key]), 'key [redacted] refused');
  // A base64 run holding the key at any byte offset is replaced whole.
  for (const before of ['', 'a', 'ab', 'user:']) {
    const encoded = Buffer.from(`${before}${key}`).toString('base64');
    assert.equal(scrubErrorText(`auth ${encoded} refused`, [key]), 'auth [redacted] refused', before);
  }
});
