// topLevelJson: one top-level value, as JSON.parse would read it (last duplicate wins, nested
// keys of the same name ignored, escaped keys decoded), and null for anything it cannot walk.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { topLevelJson } from '../../../core/formats/json-scan.js';

const value = (text: string, name = 'usage'): unknown => topLevelJson(Buffer.from(text, 'utf8'), name) ?? null;

describe('topLevelJson', () => {
  it('agrees with JSON.parse on random objects, whitespace and escapes included', () => {
    const key = fc.oneof(fc.constant('usage'), fc.string(), fc.constantFrom('usag', 'usages', 'Usage', 'us\u00e4ge'));
    fc.assert(
      fc.property(fc.dictionary(key, fc.jsonValue()), fc.boolean(), (object, pretty) => {
        const text = JSON.stringify(object, null, pretty ? 2 : undefined);
        const expected = Object.prototype.hasOwnProperty.call(object, 'usage') ? (JSON.parse(text) as Record<string, unknown>)['usage'] : null;
        assert.deepEqual(value(text), expected === undefined ? null : expected);
      }),
      { numRuns: 500 },
    );
  });

  it('skips a nested key of the same name and string content that looks like one', () => {
    const text = JSON.stringify({ choices: [{ message: { content: '"usage": {"x":1}', usage: { prompt_tokens: 9 } } }], usage: { prompt_tokens: 3 } });
    assert.deepEqual(value(text), { prompt_tokens: 3 });
    assert.equal(value(JSON.stringify({ choices: [{ usage: { prompt_tokens: 9 } }] })), null);
  });

  it('takes the last of duplicate keys, and decodes an escaped key', () => {
    assert.deepEqual(value('{"usage":{"a":1},"x":2,"usage":{"a":2}}'), { a: 2 });
    assert.deepEqual(value('{"us\\u0061ge":{"a":3}}'), { a: 3 });
  });

  it('is null for what is not one walkable object', () => {
    for (const text of ['', '[]', '"usage"', '{"usage":', '{"usage":{"a":1}', '{"usage" {"a":1}}', '{"a":1 "usage":2}', '{}']) {
      assert.equal(topLevelJson(Buffer.from(text), 'usage'), undefined, text);
    }
  });
});
