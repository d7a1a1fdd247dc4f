// The layers of the source tree, from the ground up: no import points from a lower layer to a higher one, but the
// few written below with their reasons. A layer's files may import one another; plugins and features stand on core,
// and never import each other (imports.test.ts).

import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import { describe, it } from 'node:test';
import { REPO_ROOT } from '../helpers/repo-root.js';

/**
 * Lowest first. An entry is a file or a folder (with its `/`); a file belongs to its longest entry. The base is what
 * everything may use: errors, the IR, SSE, metrics, the lifecycle, the log, the config's resolved types.
 */
const LAYERS: readonly (readonly string[])[] = [
  [
    'core/errors.ts', 'core/slot.ts', 'core/client-abort.ts', 'core/scrub-secrets.ts', 'core/iso-time.ts', 'core/lifecycle.ts', 'core/logging/logger.ts', 'core/store/store-unreachable.ts',
    'core/config/resolved.ts', 'core/config/section.ts', 'core/config/gateway.gen.ts', 'core/config/defaults.ts', 'core/config/config-path.ts',
    'core/config/schema-compiler.ts', 'core/config/schema-dir.ts', 'core/config/schema-files.ts', 'core/ir/', 'core/sse/', 'core/metrics/',
  ],
  ['core/store/'],
  ['core/routing/', 'core/http/public-url.ts'],
  ['core/formats/'],
  ['core/money/', 'core/keys/', 'core/limits/', 'core/shared/'],
  // The request's path: routes, the pipeline and its context, the providers it calls, the services plugins use.
  ['core/endpoints/', 'core/pipeline/', 'core/feature/', 'core/providers/', 'core/console/', 'core/logging/'],
  // The process: the config's loading, one Gateway per load, the runtime, the listeners, the start.
  ['core/config/', 'core/gateway.ts', 'core/runtime.ts', 'core/reload.ts', 'core/http/', 'core/serve.ts'],
  ['plugins/', 'features/'],
  ['bin/'],
];

/** Imports that point up a layer, each with why it stays (at most 5). */
const ALLOWED_BACK_EDGES: Readonly<Record<string, string>> = {
  'core/config/resolved.ts -> core/money/pricing.ts': 'the resolved config holds its prices in money\'s own type (a type import, no code)',
};
const MAX_BACK_EDGES = 5;

function layerOf(path: string): number | null {
  let best: { layer: number; length: number } | null = null;
  LAYERS.forEach((entries, layer) => {
    for (const entry of entries) {
      const matches = entry.endsWith('/') ? path.startsWith(entry) : path === entry;
      if (matches && (best === null || entry.length > best.length)) best = { layer, length: entry.length };
    }
  });
  return (best as { layer: number } | null)?.layer ?? null;
}

function listTs(dir: string): string[] {
  return readdirSync(join(REPO_ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const path = `${dir}/${e.name}`;
    // A feature's console/ is browser code, in the console's bundle and its tsconfig, not the server's layers.
    if (e.isDirectory()) return /^features\/[^/]+\/console$/.test(path) ? [] : listTs(path);
    return e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') ? [path] : [];
  });
}

const IMPORT = /^\s*(?:import|export)\b[^;'"]*?\bfrom\s*'(\.[^']+)'|\bimport\s*\(\s*'(\.[^']+)'\s*\)/gm;

/** Every relative import of the product's source, as `from -> to` (repo paths, .ts). */
function imports(): { from: string; to: string }[] {
  return ['core', 'features', 'plugins', 'bin'].flatMap(listTs).flatMap((from) => {
    const text = readFileSync(join(REPO_ROOT, from), 'utf8');
    return [...text.matchAll(IMPORT)].map((m) => ({ from, to: posix.normalize(posix.join(posix.dirname(from), (m[1] ?? m[2]) as string)).replace(/\.js$/, '.ts') }));
  });
}

/** The imports that point up a layer, as `from -> to`. */
function backEdges(all: readonly { from: string; to: string }[]): string[] {
  return [...new Set(all.filter((i) => (layerOf(i.from) ?? 0) < (layerOf(i.to) ?? 0)).map((i) => `${i.from} -> ${i.to}`))];
}

describe('layers', () => {
  const all = imports();

  it('place every source file', () => {
    const unplaced = [...new Set(all.flatMap((i) => [i.from, i.to]))].filter((path) => layerOf(path) === null);
    assert.deepEqual(unplaced, []);
    assert.ok(all.length > 500, `read ${all.length} imports`);
  });

  it(`have no import pointing up a layer beyond the ${MAX_BACK_EDGES} written down`, () => {
    const back = backEdges(all);
    assert.deepEqual(back.filter((edge) => ALLOWED_BACK_EDGES[edge] === undefined), [], 'an import points up a layer');
    assert.deepEqual(Object.keys(ALLOWED_BACK_EDGES).filter((edge) => !back.includes(edge)), [], 'an allowed back-edge that no longer exists: remove it');
    assert.ok(Object.keys(ALLOWED_BACK_EDGES).length <= MAX_BACK_EDGES);
  });

  it('find a back-edge when there is one, and read imports as the source writes them', () => {
    assert.deepEqual(
      backEdges([
        { from: 'core/store/store.ts', to: 'core/pipeline/run.ts' },
        { from: 'core/pipeline/run.ts', to: 'core/store/store.ts' },
        { from: 'core/config/load.ts', to: 'core/serve.ts' },
        { from: 'core/ir/usage.ts', to: 'features/video/index.ts' },
      ]),
      ['core/store/store.ts -> core/pipeline/run.ts', 'core/ir/usage.ts -> features/video/index.ts'],
    );
    const text = "import type { A } from '../x/a.js'; // it's a comment\nimport {\n  b,\n} from './b.js';\nexport { c } from '../c.js';\nconst d = await import('./d.js');\n";
    assert.deepEqual([...text.matchAll(IMPORT)].map((m) => m[1] ?? m[2]), ['../x/a.js', './b.js', '../c.js', './d.js']);
  });
});
