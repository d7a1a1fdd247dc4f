// plugins/<name>/options.gen.ts must be what `npm run gen` makes of schemas/plugins/<name>.schema.json, and a
// plugin's `with:` block reaches its factory typed and checked against that schema (defaults filled in).

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';
import { findSchemaDir } from '../../core/config/schema-dir.js';
import { optionsTypeName, renderAllFromRepo, renderPluginOptions } from '../../scripts/gen-plugin-types.js';

const repoRoot = join(findSchemaDir(), '..');

describe('plugins/<name>/options.gen.ts', () => {
  it('is current with every schemas/plugins/<name>.schema.json', async () => {
    const generated = await renderAllFromRepo();
    assert.deepEqual(
      generated.map((g) => g.path.slice(repoRoot.length + 1)).sort(),
      ['plugins/auth/options.gen.ts', 'plugins/console-session/options.gen.ts', 'plugins/meter/options.gen.ts', 'plugins/quota/options.gen.ts', 'plugins/rate-limit/options.gen.ts', 'plugins/relay/options.gen.ts'],
    );
    for (const { path, text } of generated) assert.equal(await readFile(path, 'utf8'), text, `${path} is stale: run \`npm run gen\``);
  });

  it('names the type after the plugin and follows the schema', async () => {
    assert.equal(optionsTypeName('rate-limit'), 'RateLimitOptions');
    const text = await renderPluginOptions(
      'rate-limit',
      { type: 'object', additionalProperties: false, properties: { rpm: { type: 'integer', description: 'Requests a minute.' } } },
      findSchemaDir(),
    );
    assert.match(text, /^\/\/ Generated from schemas\/plugins\/rate-limit\.schema\.json by `npm run gen`/);
    assert.match(text, /export interface RateLimitOptions \{[\s\S]*rpm\?: number;/);
  });

  it('passes `gen-plugin-types --check` as a script', async () => {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'scripts/gen-plugin-types.ts', '--check'], { cwd: repoRoot });
    assert.equal(stdout + stderr, '');
  });
});
