// `npm start` on a fresh clone builds first (prestart: `npm run build`); `npm test` builds once itself and starts the
// gateway from that build without the prestart (test/e2e/npm-start.test.ts, readme.test.ts), so that no test
// rebuilds dist/ under the others. What keeps the two builds one: `npm run build` compiles tsconfig.build.json, the
// same options as tsconfig.json on a subset of its folders, and bundles the console with the script the tests' build
// runs too (scripts/test-plan.ts BUILD_STEPS).

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { BUILD_STEPS } from '../../scripts/test-plan.js';
import { REPO_ROOT } from '../helpers/repo-root.js';

interface TsConfig {
  readonly extends?: string;
  readonly compilerOptions?: Record<string, unknown>;
  readonly include?: readonly string[];
}

const json = <T>(file: string): T => JSON.parse(readFileSync(join(REPO_ROOT, file), 'utf8')) as T;

test('npm start builds with `npm run build`, and starts the gateway that build writes', () => {
  const { scripts } = json<{ scripts: Record<string, string> }>('package.json');
  assert.equal(scripts['prestart'], 'npm run build');
  assert.equal(scripts['build'], 'tsc -p tsconfig.build.json && npm run build:console --silent');
  assert.equal(scripts['build:console'], 'tsx scripts/build-console.ts');
  assert.match(scripts['start'] ?? '', / dist\/bin\/gateway\.js serve$/);
});

test("npm run build's compile is the tests' build's, on a subset of its folders; the console's bundle is the same script", () => {
  const whole = json<TsConfig>('tsconfig.json');
  const build = json<TsConfig>('tsconfig.build.json');
  assert.equal(build.extends, './tsconfig.json');
  assert.deepEqual(build.compilerOptions, { noEmit: false }, 'only what makes it emit differs from tsconfig.json');
  assert.notEqual(whole.compilerOptions?.['noEmit'], true, "the tests' build emits dist/ as npm run build does");
  for (const folder of ['core', 'plugins', 'bin']) assert.ok(build.include?.includes(folder), `npm run build compiles ${folder}/`);
  for (const folder of build.include ?? []) assert.ok(whole.include?.includes(folder), `the tests' build compiles ${folder}/ too`);
  assert.deepEqual(BUILD_STEPS.find((step) => step[0] === 'tsc' && !step.includes('--noEmit'))?.slice(0, 3), ['tsc', '-p', 'tsconfig.json']);
  assert.ok(BUILD_STEPS.some((step) => step.join(' ') === 'tsx scripts/build-console.ts'));
});
