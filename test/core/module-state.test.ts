// Core keeps no module-level mutable state (ARCHITECTURE.md, "Rules"): what a request or a server changes lives in
// objects the Runtime or a Gateway owns, so two gateways in one process (the tests, an embedding program) never
// share a cache, a counter or a scanner's memory. Every top-level declaration of core/ is read with the
// TypeScript parser: no `let` or `var`, and a `const` that holds a new Map, Set, array or typed array must be
// typed read-only (ReadonlySet, ReadonlyMap, readonly T[]) or be empty for good (a zero-length typed array).

import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, it } from 'node:test';
import ts from 'typescript';

const ROOT = join(import.meta.dirname, '..', '..');
const CORE = join(ROOT, 'core');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

const MUTABLE_CONTAINERS = new Set(['Map', 'Set', 'WeakMap', 'Array', 'Uint8Array', 'Int32Array', 'Float64Array', 'Uint32Array', 'Int8Array', 'Uint16Array', 'Int16Array', 'Float32Array']);

/** What is wrong with one top-level variable declaration, or null. */
function problem(list: ts.VariableDeclarationList, decl: ts.VariableDeclaration): string | null {
  if ((list.flags & ts.NodeFlags.Const) === 0) return 'a top-level let or var';
  const init = decl.initializer;
  if (init === undefined) return null;
  const type = decl.type?.getText() ?? '';
  const readOnlyType = /^(Readonly|readonly )/.test(type);
  if (ts.isArrayLiteralExpression(init) && !readOnlyType) return 'an array literal not typed readonly';
  if (ts.isNewExpression(init) || (ts.isCallExpression(init) && ts.isPropertyAccessExpression(init.expression))) {
    const callee = ts.isNewExpression(init) ? init.expression : (init.expression as ts.PropertyAccessExpression).expression;
    const name = callee.getText().replace(/<.*$/, '');
    if (!MUTABLE_CONTAINERS.has(name)) return null;
    if (readOnlyType) return null;
    const args = init.arguments ?? [];
    const emptyForGood = name !== 'Map' && name !== 'Set' && name !== 'WeakMap' && name !== 'Array' && args.length === 1 && args[0]?.getText() === '0';
    return emptyForGood ? null : `a new ${name} not typed read-only`;
  }
  return null;
}

describe('core has no module-level mutable state', () => {
  it('finds no top-level let, var, or mutable container in core/', () => {
    const found: string[] = [];
    for (const file of sourceFiles(CORE)) {
      const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
      for (const statement of source.statements) {
        if (!ts.isVariableStatement(statement)) continue;
        for (const decl of statement.declarationList.declarations) {
          const why = problem(statement.declarationList, decl);
          if (why !== null) {
            const line = source.getLineAndCharacterOfPosition(decl.getStart()).line + 1;
            found.push(`${relative(ROOT, file)}:${line} ${decl.name.getText()}: ${why}`);
          }
        }
      }
    }
    assert.deepEqual(found, []);
  });

  it('catches the shapes it looks for (a check that cannot fail is no check)', () => {
    const sample = [
      'let counter = 0;',
      'const cache = new Map<string, number>();',
      'const seen: Set<string> = new Set();',
      'const list = [1, 2];',
      'const bytes = new Uint8Array(64);',
      'const fine: ReadonlySet<string> = new Set(["a"]);',
      'const alsoFine: readonly number[] = [1];',
      'const empty = new Uint8Array(0);',
      'const text = "x";',
    ].join('\n');
    const source = ts.createSourceFile('sample.ts', sample, ts.ScriptTarget.Latest, true);
    const flagged = source.statements.flatMap((s) =>
      ts.isVariableStatement(s) ? s.declarationList.declarations.filter((d) => problem(s.declarationList, d) !== null).map((d) => d.name.getText()) : [],
    );
    assert.deepEqual(flagged, ['counter', 'cache', 'seen', 'list', 'bytes']);
  });
});
