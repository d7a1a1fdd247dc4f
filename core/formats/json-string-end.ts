// Where each JSON string of a body ends. An agent's body is hundreds of KB of string content with a quote or a
// backslash every ~20 bytes (source files: escaped quotes, \n, \t), so finding one string's end with
// Buffer#indexOf stops at every escaped quote, and each stop is a call into Node (~30 ns): most of what the
// skeleton cost. A WebAssembly SIMD loop (json-string-end.wat) looks at 64 bytes per step and finds the
// escaped bytes without a branch per backslash; it reads a copy of the body in its own memory. Where the
// runtime has no WebAssembly SIMD (or runs --jitless) the indexOf walk stays.

import type { BodyBytes } from './body-bytes.js';
import { JSON_STRING_END_WASM } from './json-string-end.wasm.gen.js';

// The global WebAssembly object, as far as it is used here (TypeScript declares it only in the DOM lib).
declare const WebAssembly: {
  readonly Module: new (bytes: Uint8Array) => object;
  readonly Instance: new (module: object) => { readonly exports: Record<string, unknown> };
};
interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** From the opening quote at `open`, the index just past the closing quote; throws when the string is not closed. */
export type StringEnd = (open: number) => number;

/**
 * Bodies up to this size are copied into the module's memory, which then keeps the largest size it has held
 * (WebAssembly memory cannot shrink); larger ones take the indexOf walk.
 */
const WASM_MAX_BYTES = 8 * 1024 * 1024;
const PAGE = 65536;

/** A body's bytes in one Buffer and the finder of its strings' ends. */
export interface BodyScan {
  /**
   * The body's bytes: the WebAssembly memory's copy, which the next scan of another body overwrites (read it
   * at once, keep nothing that points into it), or the body's reads joined where the indexOf walk is used.
   */
  readonly raw: Buffer;
  readonly stringEnd: StringEnd;
}

/** The walk with Buffer#indexOf: one call per quote, the escaped ones included. */
export function indexOfStringEnds(raw: Buffer): StringEnd {
  return (open) => {
    let from = open + 1;
    for (;;) {
      const quote = raw.indexOf(QUOTE, from);
      if (quote === -1) throw unterminated();
      // Escaped when an odd number of backslashes precede it (`\\"` ends the string, `\"` does not).
      let b = quote - 1;
      while (b > open && raw[b] === BACKSLASH) b--;
      if ((quote - 1 - b) % 2 === 0) return quote + 1;
      from = quote + 1;
    }
  };
}

interface Wasm {
  readonly memory: WasmMemory;
  readonly stringEnd: (open: number, len: number) => number;
  /** The memory as a Buffer (remade when the memory grows, which detaches the old one). */
  view: Buffer;
  /** Finders made so far: each has its own number. */
  made: number;
  /** The number of the finder whose body the memory holds now (a number, so the last body is not kept alive). */
  holder: number;
}

/**
 * The WebAssembly module and its memory, which holds one body at a time and keeps the largest size it has
 * held: one per server (formats/scan-memory.ts), compiled on the first large body.
 */
export class StringEndScanner {
  /** undefined until the first scan; null when this runtime cannot compile the module. */
  #wasm: Wasm | null | undefined;

  /**
   * The scan of `body` without joining its reads when the WebAssembly finder takes it: the reads are copied
   * into its memory, which is the Buffer to parse (no new memory outside V8's heap: body-bytes.ts says why).
   */
  scan(body: BodyBytes): BodyScan {
    const scan = body.length <= WASM_MAX_BYTES ? this.#wasmScan(body) : null;
    if (scan !== null) return scan;
    const raw = body.joined();
    return { raw, stringEnd: indexOfStringEnds(raw) };
  }

  /** The WebAssembly finder for `body`, or null when this runtime cannot compile the module. */
  wasmFinder(body: BodyBytes): StringEnd | null {
    return this.#wasmScan(body)?.stringEnd ?? null;
  }

  /** Whether this runtime runs the WebAssembly finder (false: --jitless, or a CPU without SIMD). */
  get wasmAvailable(): boolean {
    this.#wasm ??= loadWasm();
    return this.#wasm !== null;
  }

  #wasmScan(body: BodyBytes): BodyScan | null {
    this.#wasm ??= loadWasm();
    const s = this.#wasm;
    if (s === null) return null;
    const len = body.length;
    const id = ++s.made;
    load(s, body, id);
    // The memory holds one body at a time: a finder whose body was replaced by another's copies its own back.
    const stringEnd: StringEnd = (open) => {
      if (s.holder !== id) load(s, body, id);
      const end = s.stringEnd(open, len);
      if (end < 0) throw unterminated();
      return end;
    };
    return { raw: s.view.subarray(0, len), stringEnd };
  }
}

function loadWasm(): Wasm | null {
  try {
    const instance = new WebAssembly.Instance(new WebAssembly.Module(Buffer.from(JSON_STRING_END_WASM, 'base64')));
    const memory = instance.exports['memory'] as WasmMemory;
    const stringEnd = instance.exports['stringEnd'] as (open: number, len: number) => number;
    return { memory, stringEnd, view: Buffer.from(memory.buffer), made: 0, holder: 0 };
  } catch {
    // No WebAssembly (--jitless) or no SIMD on this CPU: the indexOf walk does the same.
    return null;
  }
}

function load(s: Wasm, body: BodyBytes, id: number): void {
  if (s.view.length < body.length) {
    s.memory.grow(Math.ceil((body.length - s.view.length) / PAGE));
    s.view = Buffer.from(s.memory.buffer);
  }
  body.copyInto(s.view);
  s.holder = id;
}

function unterminated(): Error {
  return new Error('unterminated string');
}
