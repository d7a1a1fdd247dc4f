// The console's API types are generated from the routes' response schemas, never copied by hand: the generated file
// is current, every answer has its type, and console/src/api-types.ts only names generated types.

import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { schemaFolders } from '../../core/config/schema-files.js';
import { renderFromRepo } from '../../scripts/gen-console-types.js';
import { REPO_ROOT } from '../helpers/repo-root.js';

describe('console API types', () => {
  it('are current with schemas/console/*.response.schema.json', async () => {
    const { path, text } = await renderFromRepo();
    assert.equal(await readFile(path, 'utf8'), text, 'console/src/api-types.gen.ts is stale: run `npm run gen`');
    assert.match(text, /^\/\/ Generated from schemas\/console\/\*\.response\.schema\.json by `npm run gen`; do not edit\./);
  });

  it('give every route\'s answer a type, by its schema\'s name', async () => {
    const { text } = await renderFromRepo();
    const names = (await Promise.all(schemaFolders('console', REPO_ROOT).map((dir) => readdir(dir)))).flat().filter((f) => f.endsWith('.response.schema.json')).map((f) => f.slice(0, -'.response.schema.json'.length));
    assert.ok(names.length >= 25);
    for (const name of names) assert.match(text, new RegExp(`^  (?:"${name}"|${name}): Console\\w+;$`, 'm'), name);
  });

  it('are only named, not written, in api-types.ts', async () => {
    const text = await readFile(join(REPO_ROOT, 'console', 'src', 'api-types.ts'), 'utf8');
    const code = text.split('\n').filter((line) => line.trim() !== '' && !line.startsWith('//'));
    const other = code.filter((line) => !/^export type \w+ = Api\.[\w[\]'".]+;$/.test(line) && line !== "import type * as Api from './api-types.gen.js';");
    assert.deepEqual(other, []);
  });
});
