// The ParsedRequest every decoder returns: routing fields read at once, the whole body made on first read.

import type { BodyBytes } from './body-bytes.js';
import type { ParsedRequest } from './format.js';

/** Where the whole body comes from: json-request.ts's JsonBody, or another request's `json`. */
export interface WholeBody {
  whole(): Record<string, unknown>;
}

/**
 * A class, not an object literal with `get json()`: on Node 20 (V8 11.3) an object literal with an accessor
 * survives the next scavenge however short its life, so every request's parsed form, and what it points to,
 * was promoted to the old generation (docs/performance.md, "Object literals V8 builds in its runtime").
 */
export class LazyRequest implements ParsedRequest {
  readonly #body: WholeBody;

  constructor(
    readonly raw: BodyBytes,
    readonly head: Readonly<Record<string, unknown>>,
    body: WholeBody,
    readonly model: string,
    readonly stream: boolean,
    readonly conversation: string | null,
    readonly images: number | undefined = undefined,
    readonly contentType: string | undefined = undefined,
    readonly operation: string | undefined = undefined,
    readonly formFiles: number | undefined = undefined,
    readonly outputs: number | undefined = undefined,
  ) {
    this.#body = body;
  }

  get json(): Record<string, unknown> {
    return this.#body.whole();
  }
}
