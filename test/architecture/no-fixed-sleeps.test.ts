// No test sleeps for a fixed time longer than 50 ms (issue 41): test files run in parallel on loaded machines, where a
// fixed sleep is either too short (a flake) or too long (wasted time). Wait for the condition instead
// (test/helpers/poll.ts: until, withDeadline), or shorten the time under test with a config value or a clock.
//
// What counts as a fixed sleep, found in the text (comments blanked out, strings kept: a sleep in generated source is
// still a sleep):
// - `sleep(N)` or `delay(N)` (any import or local helper of that name) with N > 50;
// - `setTimeout(callback, N)` inside a `new Promise(...)`, with N > 50: a timer that settles a promise is a sleep,
//   a deadline included (use withDeadline, which is no sleep when the test passes);
// where N is a numeric literal (`2_000` too) or a constant declared in the same file (`const PAUSE_MS = 300`).
// Not counted: a timer that does something else (`setTimeout(() => proc.kill(), ...)`), pacing by a variable
// (test/helpers' fakes take `delayMs` options: their callers must not pass more than 50 ms only to wait).

import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { describe, it } from 'node:test';
import { REPO_ROOT } from '../helpers/repo-root.js';

const ROOT = REPO_ROOT;
/** This file: its own examples would match. */
const SELF = 'test/architecture/no-fixed-sleeps.test.ts';
const LIMIT_MS = 50;


function listTs(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : listTs(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** The source with its comments replaced by spaces (newlines kept, so offsets and lines still match). */
function blankComments(source: string): string {
  let out = '';
  for (let i = 0; i < source.length; ) {
    const c = source[i];
    if (c === '"' || c === "'" || c === '`') {
      // A string: copied as it is, to its closing quote (template holes are not followed: close enough here).
      let j = i + 1;
      while (j < source.length && source[j] !== c && !(c !== '`' && source[j] === '\n')) j += source[j] === '\\' ? 2 : 1;
      out += source.slice(i, j + 1);
      i = j + 1;
    } else if (source.startsWith('//', i) || source.startsWith('/*', i)) {
      const end = source.startsWith('//', i) ? source.indexOf('\n', i) : source.indexOf('*/', i) + 2;
      const stop = end <= i + 1 ? source.length : end;
      out += source.slice(i, stop).replace(/[^\n]/g, ' ');
      i = stop;
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

/** The index of the parenthesis closing the one at `open`, or the end of the text. */
function closing(text: string, open: number): number {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    if (text[i] === '(') depth++;
    else if (text[i] === ')' && --depth === 0) return i;
  }
  return text.length;
}

/** The last top-level argument of the call whose parenthesis opens at `open`. */
function lastArgument(text: string, open: number): string {
  const end = closing(text, open);
  let depth = 0;
  let start = open + 1;
  for (let i = open + 1; i < end; i++) {
    const c = text[i];
    if (c === '(' || c === '[' || c === '{') depth++;
    else if (c === ')' || c === ']' || c === '}') depth--;
    else if (c === ',' && depth === 0) start = i + 1;
  }
  return text.slice(start, end).trim();
}

/** The milliseconds an argument stands for: a numeric literal or a constant of the file; undefined otherwise. */
function millis(argument: string, constants: ReadonlyMap<string, number>): number | undefined {
  if (/^\d[\d_]*(\.\d+)?$/.test(argument)) return Number(argument.replaceAll('_', ''));
  return constants.get(argument);
}

interface FixedSleep {
  readonly line: number;
  readonly ms: number;
  readonly call: string;
}

/** Every fixed sleep longer than LIMIT_MS in one file's source. */
function findFixedSleeps(source: string): FixedSleep[] {
  const text = blankComments(source);
  const constants = new Map<string, number>();
  for (const m of text.matchAll(/\bconst\s+([A-Za-z_$][\w$]*)\s*(?::\s*number\s*)?=\s*(\d[\d_]*)\s*[;\n]/g)) {
    constants.set(m[1] as string, Number((m[2] as string).replaceAll('_', '')));
  }
  const promises = [...text.matchAll(/\bnew\s+Promise\s*(<[^(]*>)?\s*\(/g)].map((m) => {
    const open = (m.index ?? 0) + m[0].length - 1;
    return [open, closing(text, open)] as const;
  });
  const lineOf = (index: number): number => text.slice(0, index).split('\n').length;
  const found: FixedSleep[] = [];
  for (const m of text.matchAll(/(?<![\w$.])(sleep|delay|setTimeout)\s*\(/g)) {
    const at = m.index ?? 0;
    const open = at + m[0].length - 1;
    const name = m[1] as string;
    if (name === 'setTimeout' && !promises.some(([start, end]) => start < at && at < end)) continue;
    const argument = lastArgument(text, open);
    // sleep(N) has one argument; setTimeout needs a callback before its delay.
    if (name === 'setTimeout' && argument === text.slice(open + 1, closing(text, open)).trim()) continue;
    const ms = millis(argument, constants);
    if (ms !== undefined && ms > LIMIT_MS) found.push({ line: lineOf(at), ms, call: `${name}(… ${argument})` });
  }
  return found;
}

describe('no fixed sleeps in tests', () => {
  it('finds what it should and nothing else', () => {
    const flagged = [
      'await new Promise((r) => setTimeout(r, 300));',
      'await new Promise((resolve) => setTimeout(resolve, 2_000));',
      'await sleep(2500);',
      'await delay(120);',
      "Promise.race([p, new Promise((_, reject) => setTimeout(() => reject(new Error('late')), 5000).unref())]);",
      'const PAUSE_MS = 300;\nawait new Promise((r) => setTimeout(r, PAUSE_MS));',
      'await new Promise<void>((resolve) => {\n  setTimeout(() => {\n    resolve();\n  }, 1000);\n});',
    ];
    const clean = [
      'await new Promise((r) => setTimeout(r, 50));',
      'await sleep(10);',
      'await new Promise((r) => setTimeout(r, options.intervalMs));',
      "const killer = setTimeout(() => proc.kill('SIGKILL'), 30_000);",
      'const PAUSE_MS = 300;\nconst timer = setTimeout(() => controller.abort(), PAUSE_MS);',
      "await client.query('SELECT pg_sleep(5)');",
      '// await sleep(2500) was here',
      '/* new Promise((r) => setTimeout(r, 300)) */',
      'await withDeadline(p, 3000, "it answers");',
      'const PAUSE_MS = 30;\nawait new Promise((r) => setTimeout(r, PAUSE_MS));',
    ];
    for (const source of flagged) assert.equal(findFixedSleeps(source).length, 1, `not flagged:\n${source}`);
    for (const source of clean) assert.deepEqual(findFixedSleeps(source), [], `flagged:\n${source}`);
    assert.deepEqual(findFixedSleeps('\n\nawait sleep(2_000);'), [{ line: 3, ms: 2000, call: 'sleep(… 2_000)' }]);
  });

  it('no test file sleeps longer than 50 ms', () => {
    const problems: string[] = [];
    for (const path of [...listTs(join(ROOT, 'test')), ...listTs(join(ROOT, 'features'))]) {
      const file = relative(ROOT, path).split(sep).join('/');
      if (file === SELF) continue;
      for (const s of findFixedSleeps(readFileSync(path, 'utf8'))) problems.push(`${file}:${s.line}: ${s.call}, a fixed ${s.ms} ms: poll for the condition instead`);
    }
    assert.deepEqual(problems, []);
  });
});
