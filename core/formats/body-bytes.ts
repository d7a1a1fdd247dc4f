// A request body's bytes, held so that a large one costs no new memory outside V8's heap while it waits.
//
// Why: V8 counts every ArrayBuffer's bytes as external memory, and a request body held for the whole request
// (failover may send it again) outlives a few young-generation GCs and is promoted; promoted external memory
// starts a major GC each time ~64 MB of it has built up. A 500 KB agent body held as its socket reads (or
// joined into one Buffer) therefore cost a mark-compact every ~100 large requests: at ~800 of them a second,
// about a third of the gateway's CPU (bench/README.md). So a body of POOLED_MIN bytes or more is copied into
// a slab reused from request to request (body-pool.ts) and its reads die young; the upstream call gets fresh
// copies, each dropped as soon as it is written (young again). The slab goes back to the pool when the
// request is over (`release`); anything still reading the body then fails instead of reading another's.

import { inSlab, MIN_SLAB, type BodyPool } from './body-pool.js';
import type { TopLevel } from './json-scan.js';

/** Bodies from this size on are held in a pooled slab; smaller ones stay in their read(s). */
const POOLED_MIN = MIN_SLAB;
/** The size of each copy handed to the upstream call. */
const UPSTREAM_CHUNK = 1024 * 1024;

export class BodyBytes {
  #parts: readonly Buffer[];
  #joined: Buffer | null;
  #slab: Buffer | null = null;
  #pool: BodyPool | null = null;
  #released = false;
  /** The body this one was derived from (an edit), whose release this one shares. */
  #source: BodyBytes | null = null;
  /**
   * Where the body's top-level pairs are, when parsing it found them (the skeleton of a large body), so an
   * edit need not walk the body again (~50 us per 500 KB); null when unknown.
   */
  topLevel: TopLevel | null = null;

  private constructor(
    parts: readonly Buffer[],
    readonly length: number,
  ) {
    this.#parts = parts;
    this.#joined = parts.length === 1 ? (parts[0] as Buffer) : null;
  }

  /** A body already in one Buffer, used as it is (never pooled). */
  static of(buffer: Buffer): BodyBytes {
    return new BodyBytes([buffer], buffer.length);
  }

  /** A body read in `parts`, `length` bytes in all: copied into a slab of `pool` when it is large. */
  static fromReads(parts: readonly Buffer[], length: number, pool: BodyPool): BodyBytes {
    if (length < POOLED_MIN) return parts.length === 0 ? BodyBytes.of(EMPTY) : new BodyBytes(parts, length);
    const slab = pool.take(length);
    let at = 0;
    for (const part of parts) {
      slab.set(part, at);
      at += part.length;
    }
    const body = new BodyBytes([slab.subarray(0, length)], length);
    body.#slab = slab;
    body.#pool = pool;
    return body;
  }

  /**
   * The body as one Buffer (reads joined on the first call). Read it during the request only: a pooled body's
   * Buffer is a view of its slab, which the next request reuses.
   */
  joined(): Buffer {
    this.#check();
    this.#joined ??= Buffer.concat(this.#parts as Buffer[], this.length);
    return this.#joined;
  }

  /** Copies the body into `target` from index 0 (`target` must hold `length` bytes). */
  copyInto(target: Uint8Array): void {
    this.#check();
    let at = 0;
    for (const part of this.#parts) {
      target.set(part, at);
      at += part.length;
    }
  }

  /**
   * What an upstream call sends: the body's one Buffer, or, when it lies in a pooled slab (this body's, or a
   * view of one a plugin wrapped with `of`), an iterable of fresh copies made as the sender asks for them,
   * which ends the send with an error once the body is released. A socket is never given a slab: undici may
   * still hold a write's last bytes when an upstream answers before reading them all, and the slab may by
   * then be another request's.
   */
  forUpstream(): Buffer | Iterable<Buffer> {
    const whole = this.joined();
    return inSlab(whole) ? this.#copies(whole) : whole;
  }

  *#copies(whole: Buffer): Generator<Buffer> {
    for (let at = 0; at < whole.length; at += UPSTREAM_CHUNK) {
      this.#check();
      yield Buffer.from(whole.subarray(at, Math.min(at + UPSTREAM_CHUNK, whole.length)));
    }
  }

  /**
   * A body made of `pieces` (views of this body and new bytes: an edit, json-edit.ts), joined into a new
   * Buffer, unreadable once this body is released. Not pooled: a pooled edit needs one more copy, the one
   * sent upstream (`bench:ab large-stream`: 1.06x CPU per request against this), so an edited large body
   * still costs what this file's header says once its request lasts long enough to be promoted.
   */
  derive(pieces: readonly Buffer[]): BodyBytes {
    this.#check();
    let length = 0;
    for (const piece of pieces) length += piece.length;
    const body = BodyBytes.of(Buffer.concat(pieces as Buffer[], length));
    body.#source = this.#source ?? this;
    return body;
  }

  /**
   * The request is over: a pooled slab goes back for another body, and every later read of this body (or of
   * one derived from it) throws.
   */
  release(): void {
    if (this.#released) return;
    this.#released = true;
    const slab = this.#slab;
    this.#slab = null;
    this.#parts = [];
    this.#joined = null;
    if (slab !== null) this.#pool?.give(slab);
  }

  #check(): void {
    const source = this.#source;
    if (this.#released || (source !== null && source.#released)) throw new Error('the request body was released');
  }
}

const EMPTY = Buffer.alloc(0);
