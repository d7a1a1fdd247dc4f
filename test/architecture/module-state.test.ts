// House rule: core, the features and the plugins keep no module-level mutable state (ARCHITECTURE.md, "House rules checked by tests"). What a
// request or a server changes lives in objects the Runtime or a Gateway owns, so two gateways in one process (the
// tests, an embedding program) never share a cache, a counter or a scanner's memory. Every top-level declaration
// of core/ is read with the TypeScript parser:
// - no `let` or `var`;
// - a Map, Set or array only typed read-only (ReadonlyMap, ReadonlySet, ReadonlyArray, readonly T[]);
// - no typed array, ArrayBuffer or Buffer.alloc with room in it (a zero-length one is empty for good; a
//   Buffer.from a string literal is a constant pattern);
// - no instance of any other class, but for the few below that hold nothing a request changes.
// `as`, `satisfies`, parentheses and method chains (`new Int32Array(n).fill(-1)`) are looked through.

import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, it } from 'node:test';
import ts from 'typescript';
import { REPO_ROOT } from '../helpers/repo-root.js';

const ROOT = REPO_ROOT;
/** Core, and the features and plugins built on it: everything hangs off the Gateway of a config load. */
const SCANNED = ['core', 'features', 'plugins'].map((dir) => join(ROOT, dir));

/** Classes whose module-level instances hold no state a request or a server changes. */
const STATELESS_CLASSES: ReadonlyMap<string, string> = new Map([
  ['FieldReader', 'its wording functions only'],
  ['EndpointRegistry', 'a table fixed when it is made'],
]);
const CONTAINERS: ReadonlySet<string> = new Set(['Map', 'Set', 'WeakMap', 'WeakSet', 'Array']);
const BYTES: ReadonlySet<string> = new Set([
  'ArrayBuffer',
  'SharedArrayBuffer',
  'Uint8Array',
  'Uint8ClampedArray',
  'Int8Array',
  'Uint16Array',
  'Int16Array',
  'Uint32Array',
  'Int32Array',
  'Float32Array',
  'Float64Array',
  'BigInt64Array',
  'BigUint64Array',
]);
const READ_ONLY_TYPE = /^(ReadonlyMap|ReadonlySet|ReadonlyArray)<|^readonly [^]*\[\]$/;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

/** The expression a value comes from, through `as`, `satisfies`, parentheses, `!` and method chains; `as const` says read-only. */
function innermost(expr: ts.Expression): { readonly expr: ts.Expression; readonly asConst: boolean } {
  let e = expr;
  let asConst = false;
  for (;;) {
    if (ts.isAsExpression(e)) {
      if (e.type.getText() === 'const') asConst = true;
      e = e.expression;
    } else if (ts.isSatisfiesExpression(e) || ts.isParenthesizedExpression(e) || ts.isNonNullExpression(e)) {
      e = e.expression;
    } else if (ts.isCallExpression(e) && ts.isPropertyAccessExpression(e.expression) && !isBufferFactory(e) && !isFreeze(e)) {
      e = e.expression.expression;
    } else {
      return { expr: e, asConst };
    }
  }
}

function isBufferFactory(call: ts.CallExpression): boolean {
  return /^Buffer\.(alloc|allocUnsafe|allocUnsafeSlow|from)$/.test(call.expression.getText());
}

function isFreeze(call: ts.CallExpression): boolean {
  return call.expression.getText() === 'Object.freeze';
}

const emptyForGood = (args: readonly ts.Expression[] | undefined): boolean => args?.length === 1 && args[0]?.getText() === '0';

/** What is wrong with one top-level variable declaration, or null. */
function problem(list: ts.VariableDeclarationList, decl: ts.VariableDeclaration): string | null {
  if ((list.flags & ts.NodeFlags.Const) === 0) return 'a top-level let or var';
  if (decl.initializer === undefined) return null;
  const readOnlyType = READ_ONLY_TYPE.test(decl.type?.getText() ?? '');
  const { expr, asConst } = innermost(decl.initializer);
  if (ts.isArrayLiteralExpression(expr)) return readOnlyType || asConst ? null : 'an array not typed readonly';
  if (ts.isCallExpression(expr) && isBufferFactory(expr)) {
    const how = expr.expression.getText();
    if (how === 'Buffer.from') return ts.isStringLiteral(expr.arguments[0] ?? expr) ? null : 'a Buffer.from of a value';
    return emptyForGood(expr.arguments) ? null : `a ${how} with room in it`;
  }
  if (ts.isCallExpression(expr) && (ts.isFunctionExpression(expr.expression) || ts.isArrowFunction(expr.expression) || ts.isParenthesizedExpression(expr.expression))) {
    return 'a value made by a function called at load (it may close over state)';
  }
  if (!ts.isNewExpression(expr)) return null;
  const name = expr.expression.getText();
  if (CONTAINERS.has(name)) return readOnlyType ? null : `a new ${name} not typed read-only`;
  if (BYTES.has(name)) return emptyForGood(expr.arguments) ? null : `a new ${name} with room in it`;
  if (STATELESS_CLASSES.has(name)) return null;
  return `a new ${name} (an object a module would share between gateways)`;
}

function findings(source: ts.SourceFile, label: string): string[] {
  const found: string[] = [];
  for (const statement of source.statements) {
    if (!ts.isVariableStatement(statement)) continue;
    for (const decl of statement.declarationList.declarations) {
      const why = problem(statement.declarationList, decl);
      if (why === null) continue;
      const line = source.getLineAndCharacterOfPosition(decl.getStart()).line + 1;
      found.push(`${label}:${line} ${decl.name.getText()}: ${why}`);
    }
  }
  return found;
}

describe('no module-level mutable state', () => {
  it('finds none in core/, features/ or plugins/', () => {
    const found = SCANNED.flatMap(sourceFiles).flatMap((file) =>
      findings(ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true), relative(ROOT, file)),
    );
    assert.deepEqual(found, []);
  });

  it('catches the shapes it looks for (a check that cannot fail is no check)', () => {
    const flagged = [
      'let counter = 0;',
      'var old = 1;',
      'const cache = new Map<string, number>();',
      'const seen: Set<string> = new Set();',
      'const frozenLooking: Readonly<Map<string, number>> = new Map();',
      'const list = [1, 2];',
      'const cast = [] as string[];',
      'const bytes = new Uint8Array(64);',
      "const texts: string[] = new Array<string>(1024).fill('');",
      'const lengths = new Int32Array(1024).fill(-1);',
      'const memory = new ScanMemory();',
      'const lru = new LRUCache({ max: 10 });',
      'const raw = Buffer.alloc(16);',
      'const copy = Buffer.from(source);',
      'const checked = new Map() satisfies Map<string, number>;',
      'const counter2 = (() => { let n = 0; return () => n++; })();',
      'const weak = new WeakSet();',
    ];
    const fine = [
      'const allowed: ReadonlySet<string> = new Set(["a"]);',
      'const table: ReadonlyMap<string, number> = new Map([["a", 1]]);',
      'const alsoFine: readonly number[] = [1];',
      'const tuple = ["a", "b"] as const;',
      'const empty = new Uint8Array(0);',
      'const none = Buffer.alloc(0);',
      "const pattern = Buffer.from('\\r\\n');",
      'const fields = new FieldReader({});',
      'const frozen = Object.freeze({});',
      'const text = "x";',
      'const fn = (): number => 1;',
    ];
    const names = (lines: readonly string[]): string[] => findings(ts.createSourceFile('sample.ts', lines.join('\n'), ts.ScriptTarget.Latest, true), 'sample.ts');
    assert.equal(names(flagged).length, flagged.length, names(flagged).join('\n'));
    assert.deepEqual(names(fine), []);
  });
});
