// The attack surface stays visible: the installed runtime dependency tree equals the committed list
// (docs/runtime-dependencies.json: every package by name and major version), and every direct runtime dependency is
// justified in ARCHITECTURE.md's table. A new package, or a major version change anywhere in the tree, fails here
// until the list is written again (`npm run deps:list`) and the change is looked at.

import { pathToFileURL } from 'node:url';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { committedRuntimeDependencies, installedRuntimeDependencies } from '../../scripts/runtime-dependencies.js';
import { REPO_ROOT } from '../helpers/repo-root.js';

const ROOT = pathToFileURL(`${REPO_ROOT}/`);

test('the runtime dependency tree is the committed one', async (t) => {
  const installed = await installedRuntimeDependencies();
  const committed = committedRuntimeDependencies();
  const added = installed.filter((p) => !committed.includes(p));
  const gone = committed.filter((p) => !installed.includes(p));
  assert.deepEqual({ added, gone }, { added: [], gone: [] }, 'the runtime tree changed: look at the packages, then `npm run deps:list`');
  t.diagnostic(`${installed.length} runtime packages, as committed`);
});

test('every direct runtime dependency is justified in ARCHITECTURE.md', () => {
  const manifest = JSON.parse(readFileSync(new URL('package.json', ROOT), 'utf8')) as { dependencies: Record<string, string> };
  const architecture = readFileSync(new URL('ARCHITECTURE.md', ROOT), 'utf8');
  const unjustified = Object.keys(manifest.dependencies).filter((name) => !new RegExp(`^\\| \`${name.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}\` \\|`, 'm').test(architecture));
  assert.deepEqual(unjustified, []);
  // Pinned by the lockfile: every direct dependency resolves there.
  const lock = JSON.parse(readFileSync(new URL('package-lock.json', ROOT), 'utf8')) as { packages: Record<string, { version?: string }> };
  for (const name of Object.keys(manifest.dependencies)) assert.ok(lock.packages[`node_modules/${name}`]?.version !== undefined, `${name} is in package-lock.json`);
});
