// Both finders of a JSON string's end (the WebAssembly SIMD scan and the indexOf walk) agree with a plain
// byte-by-byte reading of the spec, wherever the string starts and ends against the scan's 64-byte blocks
// (backslash runs across a block's end included),
// and a finder stays right when another body has been loaded into the module's memory since.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { indexOfStringEnds, StringEndScanner, type StringEnd } from '../../../core/formats/json-string-end.js';
import { BodyBytes } from '../../../core/formats/body-bytes.js';

/** The spec, one byte at a time: a backslash escapes the next byte, the first other quote closes. */
function specEnd(raw: Buffer, open: number): number {
  for (let i = open + 1; i < raw.length; i++) {
    if (raw[i] === 0x5c) i++;
    else if (raw[i] === 0x22) return i + 1;
  }
  return -1;
}

const endOrMinus = (find: StringEnd, open: number): number => {
  try {
    return find(open);
  } catch (err) {
    assert.equal((err as Error).message, 'unterminated string');
    return -1;
  }
};

const scanner = new StringEndScanner();

function wasmFinder(raw: Buffer): StringEnd {
  const finder = scanner.wasmFinder(BodyBytes.of(raw));
  assert.ok(finder !== null, 'the WebAssembly finder must load on this runtime');
  return finder;
}

/** Bytes dense in quotes and backslashes (escaped quotes, backslash runs), with some UTF-8 and control bytes. */
const piece = fc.constantFrom('"', '\\', '\\"', '\\\\', '\\\\"', 'a', 'bcdefghijklmnop', '\n', 'é', '\u{1F600}', '\\u0022', '\\n');
const body = fc.tuple(fc.string({ maxLength: 40 }), fc.array(piece, { maxLength: 300 })).map(([prefix, parts]) => Buffer.from(`${prefix}"${parts.join('')}`, 'utf8'));

describe('json-string-end', () => {
  it('runs the WebAssembly finder here (Node 20 on x64 and arm64 has WebAssembly SIMD)', () => {
    assert.equal(scanner.wasmAvailable, true);
  });

  it('both finders agree with the spec from every quote of random bodies', () => {
    fc.assert(
      fc.property(body, (raw) => {
        const wasm = wasmFinder(raw);
        const walk = indexOfStringEnds(raw);
        for (let open = raw.indexOf(0x22); open !== -1; open = raw.indexOf(0x22, open + 1)) {
          const expected = specEnd(raw, open);
          assert.equal(endOrMinus(wasm, open), expected, `wasm from ${open} in ${JSON.stringify(raw.toString('latin1'))}`);
          assert.equal(endOrMinus(walk, open), expected, `indexOf from ${open}`);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('finds the end at every offset around 64-byte blocks, after a backslash run of every length', () => {
    for (let pad = 0; pad < 140; pad++) {
      for (let run = 0; run < 6; run++) {
        // `run` backslashes, then a quote: escaped when the run is odd; a final quote always closes. The
        // run ends at every offset within a block; the bytes after the string make the body long enough
        // for the block loop to read it (the last 0-63 bytes go byte by byte).
        const raw = Buffer.from(`${'x'.repeat(pad)}"${'y'.repeat(pad % 67)}${'\\'.repeat(run)}"z"${' '.repeat(70)}`, 'latin1');
        const open = pad;
        assert.equal(wasmFinder(raw)(open), specEnd(raw, open), `pad ${pad} run ${run}`);
        assert.equal(indexOfStringEnds(raw)(open), specEnd(raw, open), `pad ${pad} run ${run}`);
      }
    }
  });

  it('throws for a string still open at the end, a trailing backslash included', () => {
    for (const text of ['"', '"abc', '"abc\\"', '"abc\\', `"${'q'.repeat(100)}\\"`, `"${'q'.repeat(31)}\\`]) {
      const raw = Buffer.from(text, 'latin1');
      assert.throws(() => wasmFinder(raw)(0), /unterminated string/, text);
      assert.throws(() => indexOfStringEnds(raw)(0), /unterminated string/, text);
    }
  });

  it('stays right for a body loaded before another one (each finder copies its own body back)', () => {
    const a = Buffer.from(`"${'a'.repeat(100)}" "${'\\"'.repeat(50)}"`, 'latin1');
    const b = Buffer.from(`"${'b'.repeat(300)}"`, 'latin1');
    const findA = wasmFinder(a);
    const findB = wasmFinder(b);
    for (let round = 0; round < 3; round++) {
      assert.equal(findA(0), 102);
      assert.equal(findB(0), 302);
      assert.equal(findA(103), a.length);
    }
  });

  it('grows its memory for large bodies, and takes the indexOf walk above 8 MiB', () => {
    for (const size of [70_000, 1_000_000, 9 * 1024 * 1024]) {
      const inner = '\\"ab'.repeat(Math.ceil(size / 4)).slice(0, size - (size % 4));
      const raw = Buffer.from(`{"k":"${inner}"}`, 'latin1');
      assert.equal(scanner.scan(BodyBytes.of(raw)).stringEnd(5), raw.length - 1, `size ${size}`);
    }
  });
});
