// The Gemini format's native call: the channel's model name in the path, the caller's key out of the query whatever
// its spelling, every other parameter as sent.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { withoutKey } from './format.js';

describe('withoutKey', () => {
  it('drops every key parameter, keeps the rest in order and as written', () => {
    assert.equal(withoutKey(''), '');
    assert.equal(withoutKey('?alt=sse'), '?alt=sse');
    assert.equal(withoutKey('?key=sk-1'), '');
    assert.equal(withoutKey('?key=sk-1&alt=sse'), '?alt=sse');
    assert.equal(withoutKey('?alt=sse&key=sk-1&x=%41'), '?alt=sse&x=%41');
    assert.equal(withoutKey('?k%65y=sk-1&key=sk-2&alt=sse'), '?alt=sse', 'an escaped name is the same name');
    assert.equal(withoutKey('?monkey=1&key=sk-1'), '?monkey=1', 'only the parameter named key');
    assert.equal(withoutKey('?%E0%A4%A=1&key=sk-1'), '?%E0%A4%A=1', 'a bad escape is no key');
  });

  it('reads names as the auth does (URLSearchParams), so no spelling the auth takes goes upstream', () => {
    for (const query of ['?key=sk-1', '?k%65y=sk-1', '?key=sk-1&key=sk-2', '?alt=sse&%6B%65%79=sk-1']) {
      assert.equal(new URLSearchParams(withoutKey(query)).get('key'), null, query);
    }
  });
});
