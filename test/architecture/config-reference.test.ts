// docs/config-reference.md must be what `npm run gen` makes of schemas/gateway.schema.json, and name every setting
// the schema has (walked here on its own, so a renderer that skipped a branch would be caught).

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';
import { findSchemaDir } from '../../core/config/schema-dir.js';
import { composeSchema } from '../../core/config/compose-schema.js';
import { BUILTIN_ENDPOINTS } from '../../features/index.js';
import { renderConfigReference, renderFromRepo, type SchemaNode } from '../../scripts/gen-config-doc.js';

const schemaDir = findSchemaDir();
const repoRoot = join(schemaDir, '..');

async function readSchema(): Promise<SchemaNode> {
  // With the features' sections, as the gateway validates it: their settings are documented too.
  return composeSchema(JSON.parse(await readFile(join(schemaDir, 'gateway.schema.json'), 'utf8')) as object, BUILTIN_ENDPOINTS.sections) as SchemaNode;
}

/** Every setting's path: properties, list items (`[]`) and maps (`<name>`), through `$ref`s. */
function settingPaths(root: SchemaNode): string[] {
  const deref = (node: SchemaNode): SchemaNode => {
    if (node.$ref === undefined) return node;
    const target = node.$ref.slice(2).split('/').reduce<unknown>((at, part) => (at as Record<string, unknown>)[part], root);
    return deref(target as SchemaNode);
  };
  const walk = (prefix: string, raw: SchemaNode): string[] => {
    const node = deref(raw);
    if (node.properties !== undefined) {
      return Object.entries(node.properties).flatMap(([name, child]) => {
        const path = prefix === '' ? name : `${prefix}.${name}`;
        return [path, ...walk(path, child)];
      });
    }
    if (node.items !== undefined) return walk(`${prefix}[]`, node.items);
    if (typeof node.additionalProperties === 'object') return walk(`${prefix}.<name>`, node.additionalProperties);
    return [];
  };
  return walk('', root);
}

describe('docs/config-reference.md', () => {
  it('is current with schemas/gateway.schema.json', async () => {
    const { path, text } = await renderFromRepo();
    assert.equal(await readFile(path, 'utf8'), text, 'docs/config-reference.md is stale: run `npm run gen`');
  });

  it('names every setting of the schema, with the generated header', async () => {
    const text = await readFile(join(repoRoot, 'docs', 'config-reference.md'), 'utf8');
    assert.match(text, /^<!-- Generated from schemas\/gateway\.schema\.json and the features' config sections by `npm run gen`.*do not edit/);
    const paths = settingPaths(await readSchema());
    assert.ok(paths.length > 100, `${paths.length} settings`);
    const missing = paths.filter((p) => !text.includes(`| \`${p}\` |`));
    assert.deepEqual(missing, []);
  });

  it('follows the schema: a new setting, its default and its description appear', async () => {
    const schema = await readSchema();
    const edited = { ...schema, properties: { ...schema.properties, extra: { type: 'object', properties: { knob: { type: 'integer', default: 7, description: 'A | knob.' } } } } };
    const text = renderConfigReference(edited);
    assert.match(text, /\| `extra\.knob` \| integer \| `7` \| A \\\| knob\. \|/);
  });

  it('passes `gen-config-doc --check` as a script', async () => {
    const run = promisify(execFile);
    const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', 'scripts/gen-config-doc.ts', '--check'], { cwd: repoRoot });
    assert.equal(stdout + stderr, '');
  });
});
