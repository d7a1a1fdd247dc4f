// The Gemini format's native call: the channel's model name in the path, and a query of the gateway's own: the
// caller's key, and Google's system parameters that could strip the usage billed from (fields, $alt, callback), never
// go upstream.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BodyBytes } from '../../core/formats/body-bytes.js';
import { createGeminiFormat } from './format.js';

const BODY = BodyBytes.of(Buffer.from(JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }] })));

function call(method: 'generateContent' | 'streamGenerateContent' | 'countTokens', query: string): { readonly path: string; readonly query: string } {
  const format = createGeminiFormat(method);
  const request = format.decodeRequest(BODY, 'application/json', { model: 'house-gemini' }, query);
  const native = format.nativeCall?.(request, 'gemini 2.5/pro', query);
  assert.ok(native !== undefined);
  return native;
}

describe('the native call of a Gemini request', () => {
  it('names the channel\'s model, encoded, and the method, in the path', () => {
    assert.equal(call('generateContent', '').path, '/v1beta/models/gemini%202.5%2Fpro:generateContent');
    assert.equal(call('countTokens', '').path, '/v1beta/models/gemini%202.5%2Fpro:countTokens');
  });

  it('sends alt=sse for a stream and no query otherwise, whatever the caller\'s query held', () => {
    assert.equal(call('streamGenerateContent', '?alt=sse&key=sk-1&fields=candidates').query, '?alt=sse');
    assert.equal(call('streamGenerateContent', '?key=sk-1').query, '', 'no alt=sse: the JSON-array stream');
    assert.equal(call('streamGenerateContent', '?$alt=sse&callback=f').query, '');
    assert.equal(call('generateContent', '?alt=sse&fields=candidates&key=sk-1').query, '', 'generateContent is no stream');
  });
});
