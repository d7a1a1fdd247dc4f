// The console's pages: index.html, app.js and app.css, built from console/ by scripts/build-console.ts into
// dist/console (npm start and npm test build them), with a CSP that allows only the gateway's own scripts, styles and
// API, and no framing. Read from disk at each request: a visit asks for three files, and a rebuild is served at once.

import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { findPackageRoot } from '../../core/config/schema-dir.js';
import { PAGE_HEADERS } from '../../core/console/console-answer.js';
import { GatewayError } from '../../core/errors.js';
import type { RequestContext } from '../../core/pipeline/context.js';
import type { RelayResult } from '../../core/pipeline/plugin.js';

const TYPES: Readonly<Record<string, string>> = {
  'index.html': 'text/html; charset=utf-8',
  'app.js': 'text/javascript; charset=utf-8',
  'app.css': 'text/css; charset=utf-8',
};

/** GET /console, /console/ and /console/static/{file}. */
export async function servePage(ctx: RequestContext): Promise<RelayResult> {
  return pageFile(ctx.params?.['file'] ?? 'index.html');
}

/** One of the built files; any other name is not found. */
async function pageFile(file: string, dir: string = join(findPackageRoot(), 'dist', 'console')): Promise<RelayResult> {
  const type = TYPES[file];
  if (type === undefined) throw new GatewayError('GW_ERR_ROUTE_NOT_FOUND', `No console file "${file}".`);
  let body: Buffer;
  try {
    body = await readFile(join(dir, file));
  } catch {
    throw new GatewayError('GW_ERR_CONSOLE_NOT_BUILT', `The console's pages are not built in ${dir}: run \`npm run build:console\` (npm start does).`);
  }
  return {
    kind: 'body',
    status: 200,
    // No hashed names: a browser asks again each time, and gets the same bytes until the next build.
    headers: Object.assign({ 'content-type': type, 'cache-control': 'no-cache' }, PAGE_HEADERS),
    body,
  };
}
