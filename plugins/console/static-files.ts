// The console's pages: index.html, app.js and app.css, built from console/ by scripts/build-console.ts into
// dist/console (npm start and npm test build them). Read once, on the first request, and served from memory, with
// a CSP that allows only the gateway's own scripts, styles and API, and no framing.

import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { GatewayError, findPackageRoot, type RelayResult } from '../../core/index.js';

const TYPES: Readonly<Record<string, string>> = {
  'index.html': 'text/html; charset=utf-8',
  'app.js': 'text/javascript; charset=utf-8',
  'app.css': 'text/css; charset=utf-8',
};

export const CONSOLE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/** Headers every console answer carries, pages and API alike. */
export const PAGE_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': CONSOLE_CSP,
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

export class StaticFiles {
  #files: Promise<ReadonlyMap<string, Buffer>> | null = null;

  constructor(private readonly dir: string = join(findPackageRoot(), 'dist', 'console')) {}

  async answer(file: string): Promise<RelayResult> {
    const type = TYPES[file];
    if (type === undefined) throw new GatewayError('GW_ERR_ROUTE_NOT_FOUND', `No console file "${file}".`);
    const files = await (this.#files ??= this.#read());
    const body = files.get(file);
    if (body === undefined) {
      this.#files = null;
      throw new GatewayError('GW_ERR_CONSOLE_NOT_BUILT', `The console's pages are not built in ${this.dir}: run \`npm run build:console\` (npm start does).`);
    }
    return {
      kind: 'body',
      status: 200,
      // No hashed names: a browser asks again each time, and gets the same bytes until the next build.
      headers: Object.assign({ 'content-type': type, 'cache-control': 'no-cache' }, PAGE_HEADERS),
      body,
    };
  }

  async #read(): Promise<ReadonlyMap<string, Buffer>> {
    const files = new Map<string, Buffer>();
    for (const name of Object.keys(TYPES)) {
      try {
        files.set(name, await readFile(join(this.dir, name)));
      } catch {
        // Missing: answered as not built (and read again next time).
      }
    }
    return files;
  }
}
