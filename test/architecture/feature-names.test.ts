// A feature is its folder: outside features/video/ and features/assets/, no product source names video or assets.
// Core, the plugins, the other features, the CLI, the console and the schemas meet them through contracts (routes,
// config sections, store parts, services, content links, commands, console pages), so a feature is added or removed
// in its folder and one line of the features list.

import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { REPO_ROOT } from '../helpers/repo-root.js';

/** Product source: what runs or is served, and the schemas that define it (tests, docs and benches are not). */
const ROOTS: readonly string[] = ['core', 'plugins', 'features', 'bin', 'scripts', 'console/src', 'console/index.html', 'schemas'];
const OWNERS: readonly string[] = ['features/video/', 'features/assets/'];

/** The few files that must name every feature, each with why. */
const ALLOWED: Readonly<Record<string, string>> = {
  'features/index.ts': 'the one list of features: where a feature is added',
  'console/src/api-types.gen.ts': "generated from every feature's console schemas (npm run gen)",
  'scripts/test-plan.ts': "the test runner's order names test files, which are not product source",
  'features/webhooks/event-types.ts': 'the events operators subscribe to by name (webhooks[].events), one of them a failed task',
  'features/webhooks/config.gen.ts': 'generated from the webhooks schema, whose events enum is that list (npm run gen)',
};

const NAMES = /video|asset/i;
const TEXT = /\.(ts|tsx|json|html|css)$/;

function files(path: string): string[] {
  const entries = (() => {
    try {
      return readdirSync(join(REPO_ROOT, path), { withFileTypes: true });
    } catch {
      return null;
    }
  })();
  if (entries === null) return [path];
  return entries.flatMap((e) => (e.isDirectory() ? files(`${path}/${e.name}`) : TEXT.test(e.name) ? [`${path}/${e.name}`] : []));
}

/** The files the rule holds for: product source outside the owners, but the allowed. */
function scanned(): string[] {
  return ROOTS.flatMap(files).filter((file) => !file.endsWith('.test.ts') && !OWNERS.some((owner) => file.startsWith(owner)) && !(file in ALLOWED));
}

function mentions(): string[] {
  return scanned()
    .flatMap((file) =>
      readFileSync(join(REPO_ROOT, file), 'utf8')
        .split('\n')
        .flatMap((line, i) => (NAMES.test(line) ? [`${file}:${i + 1}: ${line.trim().slice(0, 120)}`] : [])),
    );
}

describe('feature names', () => {
  it('appear in no product source outside their features, but in the few files allowed', () => {
    const found = mentions();
    // Core, the plugins, the other features, the CLI, the console and the schemas: hundreds of files, each read.
    const read = scanned();
    assert.ok(read.length > 400, `the scan reads the product source (${read.length} files)`);
    for (const root of ['core/', 'plugins/', 'features/images/', 'bin/', 'console/src/', 'schemas/']) assert.ok(read.some((file) => file.startsWith(root)), root);
    assert.deepEqual(found, []);
  });

  it('would be caught: the scan sees a file that names them', () => {
    // The owners' files name them (so the scan reads them and the pattern matches), and the allowed files do.
    const owned = files('features/video').filter((file) => NAMES.test(readFileSync(join(REPO_ROOT, file), 'utf8')));
    assert.ok(owned.length > 10);
    for (const file of Object.keys(ALLOWED)) assert.match(readFileSync(join(REPO_ROOT, file), 'utf8'), NAMES, file);
  });
});
