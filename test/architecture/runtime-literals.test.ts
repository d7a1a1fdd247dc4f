// House rule: no object literal V8 builds in its runtime where a request could make one. On Node 20 (V8 11.3)
// such an object survives the next scavenge however short its life, and with it what it points to: every
// request's response headers and parsed request were promoted to the old generation (bench/README.md,
// seventh session; docs/performance.md, "Object literals V8 builds in its runtime").

import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import ts from 'typescript';
import { REPO_ROOT } from '../helpers/repo-root.js';

const ROOT = REPO_ROOT;
const SCANNED = ['core', 'features', 'plugins', 'bin'];

function listTs(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const path = `${dir}/${e.name}`;
    if (e.isDirectory()) return listTs(path);
    return e.name.endsWith('.ts') && !e.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** `file:line: why` for each literal that starts with a spread and has more members, or has a get/set accessor. */
function runtimeLiterals(path: string, text: string): string[] {
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isObjectLiteralExpression(node)) {
      const [first, ...rest] = node.properties;
      const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
      if (first !== undefined && ts.isSpreadAssignment(first) && rest.length > 0) {
        found.push(`${path}:${line}: starts with a spread and has more members (Object.assign({}, a, { b }), or a member before the spread)`);
      }
      if (node.properties.some((p) => ts.isGetAccessorDeclaration(p) || ts.isSetAccessorDeclaration(p))) {
        found.push(`${path}:${line}: has a get/set accessor (a class with the accessor on its prototype)`);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('object literals V8 builds in its runtime', () => {
  it('none in core/, features/, plugins/ or bin/', () => {
    const files = SCANNED.flatMap(listTs);
    assert.ok(files.includes('core/http/raw-sink.ts'), 'scans the tree');
    const problems = files.flatMap((path) => runtimeLiterals(path, readFileSync(join(ROOT, path), 'utf8')));
    if (problems.length > 0) assert.fail(`${problems.length} literal(s):\n  ${problems.join('\n  ')}`);
  });

  it('the check flags both kinds, and not the forms that are fine', () => {
    const bad = ['const a = { ...x, y: 1 };', 'const b = { ...x, ...z };', 'const c = {\n  get v() { return 1; },\n};', 'const d = { ...x, f() {} };'];
    assert.deepEqual(
      runtimeLiterals('core/x.ts', bad.join('\n')).map((p) => p.split(':').slice(0, 2).join(':')),
      ['core/x.ts:1', 'core/x.ts:2', 'core/x.ts:3', 'core/x.ts:6'],
    );
    const fine = [
      'const a = { ...x };',
      'const b = { y: 1, ...x };',
      'const c = { y: 1, ...x, z: 2 };',
      'const d = Object.assign({}, x, { y: 1 });',
      'const e = { f() { return 1; } };',
      'class C { get v() { return 1; } }',
    ];
    assert.deepEqual(runtimeLiterals('core/y.ts', fine.join('\n')), []);
  });
});
