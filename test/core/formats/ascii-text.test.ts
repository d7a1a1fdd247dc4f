// AsciiTexts#text: the Latin-1 text of printable ASCII without backslashes, null for anything else; a text found
// again by its hash is returned only after its bytes match, so colliding texts never stand in for each other.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { AsciiTexts, jsonStringText } from '../../../core/formats/ascii-text.js';

const cache = new AsciiTexts();

const printable = (text: string): boolean => [...Buffer.from(text, 'utf8')].every((b) => b >= 0x20 && b <= 0x7e && b !== 0x5c);

describe('AsciiTexts', () => {
  const asciiText = (raw: Buffer, start: number, end: number): string | null => cache.text(raw, start, end);

  it('is the text of printable ASCII, null for a backslash, a control byte or non-ASCII, at any offset', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 5 }), fc.string({ unit: 'binary', maxLength: 40 }), fc.string({ maxLength: 5 }), (before, text, after) => {
        const raw = Buffer.from(before + text + after, 'utf8');
        const start = Buffer.byteLength(before);
        const got = asciiText(raw, start, start + Buffer.byteLength(text));
        assert.equal(got, printable(text) ? text : null);
      }),
      { numRuns: 2000 },
    );
  });

  it('gives every one of many short texts back exactly, in any order and again (the cache holds 1024)', () => {
    const texts = Array.from({ length: 5000 }, (_, i) => `k${(i * 7919) % 5000}-${'x'.repeat(i % 30)}`.slice(0, 32));
    for (let round = 0; round < 2; round++) {
      for (const text of round === 0 ? texts : [...texts].reverse()) {
        const raw = Buffer.from(`"${text}"`, 'latin1');
        assert.equal(asciiText(raw, 1, raw.length - 1), text);
      }
    }
  });

  it('makes texts over 32 bytes and the empty text too', () => {
    const long = 'abc'.repeat(40);
    assert.equal(asciiText(Buffer.from(long), 0, long.length), long);
    assert.equal(asciiText(Buffer.from('""'), 1, 1), '');
  });
});

describe('jsonStringText, and AsciiTexts#jsonString', () => {
  it('read any JSON string literal as JSON.parse does, at any offset', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 5 }), fc.string({ unit: 'binary', maxLength: 40 }), (before, text) => {
        const literal = JSON.stringify(text);
        const raw = Buffer.from(before + literal + ',', 'utf8');
        const start = Buffer.byteLength(before);
        assert.equal(jsonStringText(raw, start, start + Buffer.byteLength(literal)), text);
        assert.equal(cache.jsonString(raw, start, start + Buffer.byteLength(literal)), text);
      }),
      { numRuns: 2000 },
    );
  });
});
