// `npm run build:console [outDir]`: bundles the web console (console/src, Preact + htm + uPlot) with esbuild into
// exactly three files, index.html, app.js and app.css, in outDir (dist/console by default); the server serves
// index.html at /console/ and the other two under /console/static/. The features'
// pages (features/<name>/console/page.ts) come in through `virtual:feature-pages`. Everything comes from
// node_modules: no CDN.

import { copyFile, mkdir, writeFile } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import { existsSync } from 'node:fs';
import { FEATURES } from '../features/index.js';
import { build, type Plugin } from 'esbuild';
import { findPackageRoot } from '../core/config/schema-dir.js';
import { isMainScript } from './generated-file.js';

// Found from here whether this runs from its source or its build in dist/scripts (which the tests import).
const ROOT = findPackageRoot(import.meta.url);
const SOURCE = join(ROOT, 'console');
export const DEFAULT_OUT_DIR = join(ROOT, 'dist', 'console');
/** The only files a build writes. */
export const CONSOLE_FILES = ['index.html', 'app.js', 'app.css'] as const;

// The console's CSP allows no eval: a bundle that needs it would fail in the browser, so it fails the build here.
const EVAL = /\beval\s*\(|\bnew\s+Function\s*\(/;

/** The listed features' pages (features/index.ts): each one's features/<name>/console/page.ts, in the list's order. */
export function featurePageFiles(root: string = ROOT): string[] {
  return FEATURES.map((feature) => join(root, 'features', feature.name, 'console', 'page.ts')).filter((file) => existsSync(file));
}

function featurePages(): Plugin {
  return {
    name: 'feature-pages',
    setup(bundle) {
      bundle.onResolve({ filter: /^virtual:feature-pages$/ }, () => ({ path: 'feature-pages', namespace: 'feature-pages' }));
      bundle.onLoad({ filter: /.*/, namespace: 'feature-pages' }, () => {
        const files = featurePageFiles();
        // A feature's page is its `consolePage`; one with several (the operator's and its users') lists `consolePages`.
        const imports = files.map((file, i) => `import * as page${i} from ${JSON.stringify(file)};`);
        const pagesOf = 'const pagesOf = (m: { consolePages?: readonly unknown[]; consolePage?: unknown }) => m.consolePages ?? [m.consolePage];';
        return { contents: `${imports.join('\n')}\n${pagesOf}\nexport default [${files.map((_, i) => `...pagesOf(page${i})`).join(', ')}];\n`, loader: 'ts', resolveDir: ROOT };
      });
    },
  };
}

/** Bundles the console into `outDir` (created if missing); throws when the bundle is not the three expected files. */
export async function buildConsole(outDir: string): Promise<void> {
  const out = resolve(outDir);
  const result = await build({
    absWorkingDir: ROOT,
    entryPoints: { app: join(SOURCE, 'src', 'main.ts') },
    outdir: out,
    bundle: true,
    minify: true,
    format: 'iife',
    platform: 'browser',
    target: ['es2020', 'chrome100', 'firefox100', 'safari15'],
    charset: 'utf8',
    // Nothing loaded later: one script, one stylesheet.
    splitting: false,
    sourcemap: false,
    write: false,
    plugins: [featurePages()],
    logLevel: 'warning',
  });
  const written = result.outputFiles.map((f) => basename(f.path)).sort();
  if (written.join() !== 'app.css,app.js') throw new Error(`console build: expected app.js and app.css, got ${written.join(', ')}`);
  for (const file of result.outputFiles) {
    if (file.path.endsWith('.js') && EVAL.test(file.text)) throw new Error('console build: the bundle uses eval or new Function, which the CSP forbids');
  }
  await mkdir(out, { recursive: true });
  await Promise.all(result.outputFiles.map((f) => writeFile(join(out, basename(f.path)), f.contents)));
  await copyFile(join(SOURCE, 'index.html'), join(out, 'index.html'));
}

if (isMainScript(import.meta.url)) {
  const outDir = process.argv[2] ?? DEFAULT_OUT_DIR;
  await buildConsole(outDir);
  console.log(`built the console into ${outDir}`);
}
