// House rules enforced on the source tree: import direction, where fastify lives, no `any` in core, file sizes, names.

import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import { describe, it } from 'node:test';
import { REPO_ROOT } from '../helpers/repo-root.js';

const ROOT = REPO_ROOT;
const SCANNED = ['core', 'features', 'plugins', 'bin', 'scripts'];
const MAX_LINES = 500;

interface SourceFile {
  /** Repo-relative, always with `/`. */
  readonly path: string;
  readonly text: string;
}

interface ImportRef {
  readonly specifier: string;
  readonly line: number;
}

function listTs(dir: string): string[] {
  let entries;
  try {
    entries = readdirSync(join(ROOT, dir), { withFileTypes: true });
  } catch {
    return [];
  }
  return entries.flatMap((e) => {
    const path = `${dir}/${e.name}`;
    if (e.isDirectory()) return e.name === 'node_modules' ? [] : listTs(path);
    return /\.[cm]?tsx?$/.test(e.name) ? [path] : [];
  });
}

function readTree(dirs: readonly string[]): SourceFile[] {
  return dirs.flatMap(listTs).map((path) => ({ path, text: readFileSync(join(ROOT, ...path.split('/')), 'utf8') }));
}

/** A `/` right after one of these opens a regex literal, not a division. */
const BEFORE_REGEX = /(?:[(,=:[!&|?{};]|\breturn)$/;

function opensRegex(text: string, i: number): boolean {
  const before = text.slice(Math.max(0, i - 32), i).trimEnd();
  return before === '' ? i < 32 : BEFORE_REGEX.test(before);
}

/** Index just past the regex literal opening at `i`, which may hold quotes that are no string. */
function skipRegex(text: string, i: number): number {
  let j = i + 1;
  let inClass = false;
  while (j < text.length && text[j] !== '\n') {
    const c = text[j];
    if (c === '\\') j++;
    else if (c === '[') inClass = true;
    else if (c === ']') inClass = false;
    else if (c === '/' && !inClass) return j + 1;
    j++;
  }
  return j;
}

/**
 * Blanks comments (and, if asked, string contents) with spaces, keeping every newline and offset,
 * so later regexes see only code and still report the right line.
 */
function blank(text: string, strings: boolean): string {
  const out = text.split('');
  let i = 0;
  const wipe = (from: number, to: number): void => {
    for (let k = from; k < to; k++) if (out[k] !== '\n') out[k] = ' ';
  };
  while (i < text.length) {
    const ch = text[i];
    const next = text[i + 1];
    if (ch === '/' && next === '/') {
      const end = text.indexOf('\n', i);
      const stop = end === -1 ? text.length : end;
      wipe(i, stop);
      i = stop;
    } else if (ch === '/' && next === '*') {
      const end = text.indexOf('*/', i + 2);
      const stop = end === -1 ? text.length : end + 2;
      wipe(i, stop);
      i = stop;
    } else if (ch === '/' && opensRegex(text, i)) {
      i = skipRegex(text, i);
    } else if (ch === "'" || ch === '"' || ch === '`') {
      let j = i + 1;
      while (j < text.length && text[j] !== ch) j += text[j] === '\\' ? 2 : 1;
      if (strings) wipe(i + 1, j);
      i = j + 1;
    } else {
      i++;
    }
  }
  return out.join('');
}

function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let k = 0; k < offset; k++) if (text.charCodeAt(k) === 10) line++;
  return line;
}

const IMPORT_PATTERNS = [
  /(?:^|[\n;])\s*(?:import|export)\b[^;'"]*?\bfrom\s*(['"])([^'"]+)\1/g,
  /(?:^|[\n;])\s*import\s*(['"])([^'"]+)\1/g,
  /\bimport\s*\(\s*(['"])([^'"]+)\1\s*\)/g,
  /\brequire\s*\(\s*(['"])([^'"]+)\1\s*\)/g,
];

function findImports(text: string): ImportRef[] {
  const code = blank(text, false);
  const refs: ImportRef[] = [];
  for (const pattern of IMPORT_PATTERNS) {
    for (const m of code.matchAll(pattern)) {
      const specifier = m[2] ?? '';
      refs.push({ specifier, line: lineAt(code, (m.index ?? 0) + m[0].lastIndexOf(specifier)) });
    }
  }
  return refs.sort((a, b) => a.line - b.line);
}

/** The repo-relative target of a relative specifier, or null for a package import. */
function resolveSpecifier(from: string, specifier: string): string | null {
  if (!specifier.startsWith('.')) return null;
  return posix.normalize(posix.join(posix.dirname(from), specifier));
}

/** `plugins/<name>/...` -> `<name>` (`features/` likewise); the lists `plugins/index.ts` and `features/index.ts` are none. */
function unitOf(path: string, top: 'plugins' | 'features'): string | null {
  const parts = path.split('/');
  return parts[0] === top && parts.length > 2 ? (parts[1] ?? null) : null;
}

function formatProblem(file: SourceFile, ref: ImportRef, rule: string): string {
  return `${file.path}:${ref.line}: imports '${ref.specifier}' (${rule})`;
}

function checkFastify(file: SourceFile): string[] {
  if (file.path.startsWith('core/http/')) return [];
  return findImports(file.text)
    .filter(({ specifier: s }) => s === 'fastify' || s.startsWith('fastify/') || s.startsWith('@fastify/'))
    .map((ref) => formatProblem(file, ref, 'only core/http/ imports fastify'));
}

function checkDirection(file: SourceFile): string[] {
  const problems: string[] = [];
  const at = (ref: ImportRef, rule: string): string => formatProblem(file, ref, rule);
  for (const ref of findImports(file.text)) {
    const target = resolveSpecifier(file.path, ref.specifier);
    if (target === null) continue;
    if (file.path.startsWith('core/') && (target.startsWith('plugins/') || target.startsWith('features/'))) {
      problems.push(at(ref, 'core/ never imports plugins/ or features/'));
    }
    // What a module uses is imported from the module that defines it: no catch-all re-export hides it.
    if (target === 'core/index.js') problems.push(at(ref, 'no catch-all: import from the module that defines it'));
    for (const top of ['plugins', 'features'] as const) {
      const own = unitOf(file.path, top);
      const other = unitOf(target, top);
      if (own !== null && target.startsWith(`${top}/`) && other !== own) problems.push(at(ref, `${top} never import each other`));
      if (own === null && file.path.startsWith(`${top}/`) && other !== null && target !== `${top}/${other}/index.js`) {
        problems.push(at(ref, `the ${top} list imports only ${top}/<name>/index.ts`));
      }
    }
    if (file.path.startsWith('plugins/') && target.startsWith('features/')) problems.push(at(ref, 'plugins never import features'));
    if (file.path.startsWith('features/') && target.startsWith('plugins/')) problems.push(at(ref, 'features never import plugins'));
  }
  return problems;
}

const ANY = /(?::\s*any\b|<\s*any\s*[>,]|,\s*any\s*[>,)]|\bas\s+any\b|\bany\s*\[\s*\]|[|&]\s*any\b|=>\s*any\b)/;

function checkAny(file: SourceFile): string[] {
  if (!file.path.startsWith('core/') || file.path.endsWith('.gen.ts')) return [];
  const lines = blank(file.text, true).split('\n');
  const problems: string[] = [];
  lines.forEach((line, i) => {
    if (ANY.test(line)) problems.push(`${file.path}:${i + 1}: uses \`any\` (use unknown and narrow): ${line.trim()}`);
  });
  return problems;
}

function checkSize(file: SourceFile): string[] {
  if (file.path.endsWith('.gen.ts') || !/^(core|features|plugins)\//.test(file.path)) return [];
  const lines = file.text.split('\n').length - (file.text.endsWith('\n') ? 1 : 0);
  return lines > MAX_LINES ? [`${file.path}:${MAX_LINES + 1}: ${lines} lines, over the ${MAX_LINES}-line limit`] : [];
}

function checkName(file: SourceFile): string[] {
  return /(^|\/)utils\.[cm]?tsx?$/.test(file.path) ? [`${file.path}:1: no utils.ts; name the file after what it does`] : [];
}

function assertNone(problems: readonly string[]): void {
  if (problems.length > 0) assert.fail(`${problems.length} violation(s):\n  ${problems.join('\n  ')}`);
}

describe('architecture of the source tree', () => {
  const files = readTree(SCANNED);

  it('finds the tree it polices', () => {
    assert.ok(files.some((f) => f.path.startsWith('plugins/') && f.path !== 'plugins/index.ts'));
    assert.ok(files.some((f) => f.path.startsWith('features/') && f.path !== 'features/index.ts'));
    const pluginImports = files.filter((f) => f.path.startsWith('plugins/')).flatMap((f) => findImports(f.text));
    assert.ok(pluginImports.some((r) => r.specifier.startsWith('../../core/')), 'plugins import core modules');
  });

  it('core/ never imports plugins/ or features/; plugins and features import core modules, never each other', () => {
    assertNone(files.flatMap(checkDirection));
  });

  it('the route registry knows no mock: a route carries its mock answer, the registry only its type', () => {
    const registry = files.find((f) => f.path === 'core/endpoints/registry.ts');
    assert.ok(registry !== undefined);
    assert.deepEqual(findImports(registry.text).filter((r) => r.specifier.includes('/mock/')), []);
    assert.ok(findImports(registry.text).length > 0);
  });

  it('only core/http/ imports fastify', () => {
    assertNone(files.flatMap(checkFastify));
    assert.ok(files.some((f) => f.path.startsWith('core/http/') && findImports(f.text).some((r) => r.specifier === 'fastify')));
  });

  it('has no `any` type in core/ (generated files excepted)', () => {
    assertNone(files.flatMap(checkAny));
  });

  it(`keeps every file in core/, features/ and plugins/ within ${MAX_LINES} lines (generated files excepted)`, () => {
    assertNone(files.flatMap(checkSize));
  });

  it('has no file named utils.ts anywhere, tests included', () => {
    assertNone([...files, ...readTree(['test'])].flatMap(checkName));
  });
});

describe('the architecture checks themselves', () => {
  const src = (path: string, text: string): SourceFile => ({ path, text });

  it('flag each kind of bad import with file:line', () => {
    const problems = [
      src('core/routing/x.ts', "// header\nimport { a } from '../../plugins/auth/index.js';\n"),
      src('plugins/auth/x.ts', "import {\n  GatewayError,\n} from '../../core/errors.js';\nimport '../../core/index.js';\n"),
      src('features/video/x.ts', "import { a } from '../assets/index.js';\nimport { b } from '../../plugins/auth/index.js';\n"),
      src('features/index.ts', "import { c } from './video/x.js';\n"),
      src('plugins/auth/y.ts', "export { relayPlugin } from '../relay/index.js';\nconst m = await import('../meter/index.js');\n"),
      src('plugins/index.ts', "import { f } from './relay/last-failure.js';\n"),
      src('core/pipeline/z.ts', "import type { FastifyReply } from 'fastify';\nconst p = require('@fastify/cors');\n"),
    ].flatMap((f) => [...checkDirection(f), ...checkFastify(f)]);
    assert.deepEqual(problems, [
      "core/routing/x.ts:2: imports '../../plugins/auth/index.js' (core/ never imports plugins/ or features/)",
      "plugins/auth/x.ts:4: imports '../../core/index.js' (no catch-all: import from the module that defines it)",
      "features/video/x.ts:1: imports '../assets/index.js' (features never import each other)",
      "features/video/x.ts:2: imports '../../plugins/auth/index.js' (features never import plugins)",
      "features/index.ts:1: imports './video/x.js' (the features list imports only features/<name>/index.ts)",
      "plugins/auth/y.ts:1: imports '../relay/index.js' (plugins never import each other)",
      "plugins/auth/y.ts:2: imports '../meter/index.js' (plugins never import each other)",
      "plugins/index.ts:1: imports './relay/last-failure.js' (the plugins list imports only plugins/<name>/index.ts)",
      "core/pipeline/z.ts:1: imports 'fastify' (only core/http/ imports fastify)",
      "core/pipeline/z.ts:2: imports '@fastify/cors' (only core/http/ imports fastify)",
    ]);
  });

  it('accept the allowed imports, and ignore imports inside comments and strings', () => {
    const problems = [
      src('plugins/auth/index.ts', "import { x } from '../../core/errors.js';\nimport { y } from './helper.js';\n"),
      src('features/video/index.ts', "import { x } from '../../core/errors.js';\n"),
      src('plugins/index.ts', "import { authPlugin } from './auth/index.js';\n"),
      src('core/http/server.ts', "import Fastify from 'fastify';\n"),
      src('core/a.ts', "// import x from '../plugins/a/index.js'\n/* from 'fastify' */\nconst s = \"import 'fastify'\";\n"),
    ].flatMap((f) => [...checkDirection(f), ...checkFastify(f)]);
    assert.deepEqual(problems, []);
  });

  it('flag `any` in core code but not in comments, strings, identifiers or generated files', () => {
    const bad = src(
      'core/a.ts',
      [
        'let a: any = 1;',
        'const b = <any>a;',
        'const c = a as any;',
        'let d: any[] = [];',
        'let e: Record<string, any> = {};',
        'let f: string | any;',
        'let g: Array<any>;',
      ].join('\n'),
    );
    assert.deepEqual(
      checkAny(bad).map((p) => p.split(':').slice(0, 2).join(':')),
      [1, 2, 3, 4, 5, 6, 7].map((n) => `core/a.ts:${n}`),
    );
    const fine = src(
      'core/b.ts',
      "// x: any\n/** as any */\nconst s = 'as any: any[]';\nconst company = anyOf(x);\nlet u: unknown;\nconst o = { many: 1 };\n",
    );
    assert.deepEqual(checkAny(fine), []);
    const regex = src('core/c.ts', "const q = /['\"`]/g;\nconst r = x / 2, t = y / 3;\nlet a: any;\nconst s = 'as any';\n");
    assert.deepEqual(checkAny(regex).map((p) => p.split(':').slice(0, 2).join(':')), ['core/c.ts:3']);
    assert.deepEqual(checkAny(src('core/config/x.gen.ts', 'let a: any;')), []);
    assert.deepEqual(checkAny(src('plugins/a/x.ts', 'let a: any;')), []);
  });

  it('flag long files and utils.ts', () => {
    const long = 'x;\n'.repeat(MAX_LINES + 1);
    assert.equal(checkSize(src('core/long.ts', long)).length, 1);
    assert.deepEqual(checkSize(src('core/ok.ts', 'x;\n'.repeat(MAX_LINES))), []);
    assert.deepEqual(checkSize(src('core/config/big.gen.ts', long)), []);
    assert.equal(checkName(src('plugins/relay/utils.ts', '')).length, 1);
    assert.deepEqual(checkName(src('core/string-utils.ts', '')), []);
  });
});
