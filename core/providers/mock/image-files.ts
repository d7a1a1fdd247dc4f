// The PNGs the mock channel hands out as `url`s, served by the gateway at GET /v1/mock/images/<id>.png for an
// hour (OpenAI's image URLs last 60 minutes), within a bounded amount of memory: the oldest go first.

import { randomBytes } from 'node:crypto';
import { LRUCache } from 'lru-cache';

export const MOCK_IMAGE_PATH = '/v1/mock/images/';
const TTL_MS = 60 * 60 * 1000;
const MAX_BYTES = 64 * 1024 * 1024;

export class MockImageFiles {
  readonly #files = new LRUCache<string, Buffer>({ maxSize: MAX_BYTES, sizeCalculation: (png) => png.length, ttl: TTL_MS });

  /** Keeps `png` and returns its file name; the name is random (128 bits), as unguessable as OpenAI's signed URLs. */
  add(png: Buffer): string {
    const name = `${randomBytes(16).toString('hex')}.png`;
    this.#files.set(name, png);
    return name;
  }

  /** The PNG of a file name `add` returned, while it lasts; undefined otherwise. */
  get(name: string): Buffer | undefined {
    return this.#files.get(name);
  }
}
