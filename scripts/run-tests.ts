// `npm test` and `npm run test:quick`: build once, then run the test files in parallel under node's test runner.
//
// The build is one tsc over the whole repository (it type-checks the tests too, and emits dist/: the gateway the CLI
// tests spawn, and the test files themselves, run from there), the console's type check and its bundle, side by
// side. Then node --test runs the files, several at once: most of a file's time is spent waiting on the processes,
// sockets and databases it talks to, so more files than cores keeps the cores busy. Every file has its own port,
// temp folder, PostgreSQL schema and Redis prefix; a file that runs past FILE_TIMEOUT_MS fails with its name.
//
//   npm test                      everything CI runs
//   npm run test:quick            unit tests and the fast end-to-end files, fewer fuzz cases: the loop between edits
//                                 (its build is tsc's alone, incremental: seconds after an edit)
//   npm test -- test/e2e/x.test.ts   the build, then just these files
//
// TEST_CONCURRENCY overrides the number of files run at once.

import { spawn } from 'node:child_process';
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BUILD_STEPS, QUICK_E2E, QUICK_FOLDERS, QUICK_SKIPPED, SLOW_FIRST, TS_BUILD_INFO } from './test-plan.js';

const ROOT = join(fileURLToPath(import.meta.url), '..', '..');
/** A file still running after this fails (a hung hook included), and the run goes on. */
const FILE_TIMEOUT_MS = 240_000;
/** Cases per fuzz property in test:quick (300 in npm test). */
const QUICK_FUZZ_RUNS = 30;
/** The reporter that names the slowest files, from its build. */
const REPORTER = 'dist/scripts/test-times-reporter.js';

function run(command: string, args: readonly string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: ROOT, env, stdio: 'inherit' });
    child.once('exit', (code, signal) => resolve(code ?? (signal === null ? 1 : 128)));
  });
}

function testFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.test.ts'))
    .map((e) => relative(ROOT, join(e.parentPath, e.name)))
    .sort();
}

/** The slow files first, so that the last files to start are short ones and the cores stay busy to the end. */
function ordered(files: readonly string[]): string[] {
  const rank = (f: string): number => {
    const at = SLOW_FIRST.indexOf(f);
    return at === -1 ? SLOW_FIRST.length : at;
  };
  return [...files].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
}

async function main(): Promise<number> {
  const argv = process.argv.slice(2);
  const quick = argv.includes('--quick');
  const named = argv.filter((a) => !a.startsWith('--'));

  const started = Date.now();
  // A feature's tests live in its folder (features/<name>/*.test.ts), the rest under test/.
  let files = named.length > 0 ? named : [...testFiles('test'), ...testFiles('features')];
  if (quick && named.length === 0) {
    files = [...QUICK_FOLDERS.flatMap(testFiles).filter((f) => !QUICK_SKIPPED.includes(f)), ...QUICK_E2E];
  }
  const paths = ordered(files).map((f) => join('dist', f.replace(/\.ts$/, '.js')));

  const npx = join(ROOT, 'node_modules', '.bin');
  // test:quick builds the gateway and the tests only (it runs no browser test): after an edit, tsc checks and emits
  // what the edit touched (--incremental keeps what it knows in dist/), in seconds.
  const steps = quick && named.length === 0 ? BUILD_STEPS.filter((step) => step[0] === 'tsc' && !step.includes('--noEmit')) : BUILD_STEPS;
  const build = async (): Promise<boolean> => {
    const codes = await Promise.all(
      steps.map(([tool = '', ...args]) => (tool === 'tsx' ? run(process.execPath, ['--import', 'tsx', ...args]) : run(join(npx, tool), args))),
    );
    return codes.every((code) => code === 0);
  };
  if (!(await build())) return 1;
  // tsc --incremental does not write again an output deleted since its last run: then it starts from nothing.
  const outputs = [...paths, join('dist', 'bin', 'gateway.js'), REPORTER];
  if (outputs.some((path) => !existsSync(join(ROOT, path)))) {
    rmSync(join(ROOT, TS_BUILD_INFO), { force: true });
    if (!(await build())) return 1;
  }
  console.log(`# built in ${((Date.now() - started) / 1000).toFixed(1)} s`);

  const concurrency = Number(process.env['TEST_CONCURRENCY'] ?? Math.max(2, availableParallelism() * 2));
  // The fuzz suites read GATEWAY_FUZZ_RUNS: fewer cases between edits, all of them in `npm test`.
  const env: NodeJS.ProcessEnv = { ...process.env, GATEWAY_TEST_BUILT: '1' };
  if (quick) env['GATEWAY_FUZZ_RUNS'] ??= String(QUICK_FUZZ_RUNS);
  const reporters = ['--test-reporter=spec', '--test-reporter-destination=stdout', `--test-reporter=./${REPORTER}`, '--test-reporter-destination=stdout'];
  // Each file runs from its build (dist/test/...js): loading the gateway through tsx costs a file about a second of
  // CPU more, which, 200 files over, is a quarter of the run.
  const code = await run(process.execPath, ['--enable-source-maps', '--test', `--test-concurrency=${concurrency}`, `--test-timeout=${FILE_TIMEOUT_MS}`, ...reporters, ...paths], env);
  console.log(`# ${files.length} files, ${concurrency} at once, ${((Date.now() - started) / 1000).toFixed(1)} s in all`);
  return code;
}

process.exitCode = await main();
