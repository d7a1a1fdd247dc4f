// Real Chromium for the console's browser tests: Debian's chromium (scripts/ensure-chromium.sh installs it; .ci/run
// names it in GATEWAY_TEST_CHROMIUM), driven by playwright-core, which downloads no browser of its own.

import { existsSync } from 'node:fs';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { buildConsole, DEFAULT_OUT_DIR } from '../../scripts/build-console.js';

const CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'];

/** The browser to drive: GATEWAY_TEST_CHROMIUM (which must exist), else the first installed candidate, else null. */
export function chromiumPath(): string | null {
  const named = process.env['GATEWAY_TEST_CHROMIUM'];
  if (named !== undefined && named !== '') {
    if (!existsSync(named)) throw new Error(`GATEWAY_TEST_CHROMIUM names ${named}, which does not exist`);
    return named;
  }
  return CANDIDATES.find((p) => existsSync(p)) ?? null;
}

/** false when a browser is there; else the reason the browser tests skip, printed once. */
export function browserSkip(): string | false {
  if (chromiumPath() !== null) return false;
  const reason = 'chromium is not installed (scripts/ensure-chromium.sh installs it as root; .ci/run does): browser tests skipped';
  console.log(`# ${reason}`);
  return reason;
}

export async function launchChromium(): Promise<Browser> {
  const executablePath = chromiumPath();
  if (executablePath === null) throw new Error('no chromium');
  // --no-sandbox: CI runs as root, where Chromium's sandbox refuses to start.
  return chromium.launch({ executablePath, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
}

/** The folder a test's screenshots go to (test-output/<name>/, ignored by git), made if missing. */
export function outputDir(name: string): string {
  const dir = join(process.cwd(), 'test-output', name);
  mkdirSync(dir, { recursive: true });
  return dir;
}

/**
 * The console's pages in dist/console, as the gateway serves them: built by `npm test` before any file runs (built
 * again here, while other files read them, a page could be served half written); built here by a file run alone.
 */
export async function consolePagesBuilt(): Promise<void> {
  if (process.env['GATEWAY_TEST_BUILT'] !== '1') await buildConsole(DEFAULT_OUT_DIR);
}
