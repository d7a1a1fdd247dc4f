// `npm run chaos` on a machine without its PostgreSQL says what to set, in one line, and exits 2 (no stack trace).

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { REPO_ROOT } from '../helpers/repo-root.js';

const ROOT = REPO_ROOT;

test('the chaos run without GATEWAY_TEST_POSTGRES_URL names what to set, in one line', async () => {
  const env = { ...process.env };
  delete env['GATEWAY_TEST_POSTGRES_URL'];
  delete env['NODE_TEST_CONTEXT'];
  const failed = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'chaos/run.ts'], { cwd: ROOT, env }).then(
    () => null,
    (err: { code?: number; stderr?: string }) => err,
  );
  assert.ok(failed !== null, 'the run refuses to start');
  assert.equal(failed.code, 2);
  const lines = (failed.stderr ?? '').trim().split('\n');
  assert.equal(lines.length, 1, failed.stderr);
  assert.match(lines[0] ?? '', /^chaos: cannot run: set GATEWAY_TEST_POSTGRES_URL to a PostgreSQL server/);
});
