// What a route does is decided once, by the router: no plugin or feature handler compares a request's path, route or
// method (they read the route's own declarations, and the context's `safe` and `carriesBody`).

import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { routeKeyOf, type ChainStep } from '../../core/endpoints/registry.js';
import { BUILTIN_ENDPOINTS } from '../../features/index.js';
import { REPO_ROOT } from '../helpers/repo-root.js';

/** A comparison of the request's method, path or route, or a test of a path by pattern or prefix. */
const CHECKS: readonly RegExp[] = [
  // The request's method, path or route, compared, switched on, or taken apart.
  /\bctx\.(?:route|path|method)\s*(?:===|!==|==|!=)/,
  /(?:===|!==|==|!=)\s*ctx\.(?:route|path|method)\b/,
  /\bswitch\s*\(\s*ctx\.(?:route|path|method)\b/,
  /\bctx\.(?:route|path)\s*(?:\?\?[^;]*?)?\)?\.(?:startsWith|endsWith|includes|match|split|replace)\(/,
  /\.includes\(\s*ctx\.(?:route|path|method)\b/,
  /\{\s*(?:[\w\s,]*,\s*)?(?:route|path|method)\b[^}]*\}\s*=\s*ctx\b/,
  // A method named by its string, either side of the comparison, in either quotes.
  /\bmethod\s*(?:===|!==|==|!=)\s*['"](?:GET|HEAD|POST|PATCH|PUT|DELETE)['"]/,
  /['"](?:GET|HEAD|POST|PATCH|PUT|DELETE)['"]\s*(?:===|!==|==|!=)\s*(?:ctx\.)?method\b/,
  // A path of ours compared or matched by a pattern.
  /['"]\/(?:v1|admin|console)\/[^'"]*['"]\s*(?:===|!==)|(?:===|!==)\s*['"]\/(?:v1|admin|console)\//,
  /\/\^?\\\/(?:v1|admin|console)\\\//,
];

function listTs(dir: string): string[] {
  return readdirSync(join(REPO_ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const path = `${dir}/${e.name}`;
    if (e.isDirectory()) return listTs(path);
    return e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') ? [path] : [];
  });
}

function violations(path: string, text: string): string[] {
  return text.split('\n').flatMap((line, i) => (CHECKS.some((check) => check.test(line.replace(/(^|\s)\/\/.*$/, ''))) ? [`${path}:${i + 1}: ${line.trim()}`] : []));
}

describe('route checks', () => {
  it('no plugin or handler compares a path, a route or a method', () => {
    const files = [...listTs('plugins'), ...listTs('features')];
    assert.ok(files.length > 50);
    assert.deepEqual(files.flatMap((path) => violations(path, readFileSync(join(REPO_ROOT, path), 'utf8'))), []);
  });

  it('catch each kind of comparison', () => {
    const caught = [
      "if (ctx.route === '/console/api/session') {",
      "if (ctx.route.endsWith('/usage')) return x;",
      "const path = (ctx.path ?? ctx.route).startsWith('/console/api/');",
      "if (method !== 'GET' && method !== 'HEAD') requireJson(ctx);",
      "if (ctx.method === 'POST') {",
      "return /^\\/console\\/api\\/(accounts)/.test(path);",
      "if (/\\/console\\/api\\//.test(p)) {",
      "switch (ctx.method) {",
      "const { path } = ctx;",
      "if (['GET', 'HEAD'].includes(ctx.method)) return;",
      "if ('GET' === method) return;",
      'if (method === "DELETE") return;',
    ].filter((line) => violations('x.ts', line).length === 0);
    assert.deepEqual(caught, []);
    assert.deepEqual(violations('x.ts', "if (!ctx.safe) requireJson(ctx); // ctx.method === 'GET' once"), []);
  });
});

describe('every route checks its caller first', () => {
  it("its chain starts with auth (a key, or the admin token) or console-session: no feature's route is open by mistake", () => {
    const first = (step: ChainStep | undefined): string | undefined => (typeof step === 'string' ? step : step?.use);
    const open = BUILTIN_ENDPOINTS.all.filter((e) => !['auth', 'console-session'].includes(first(e.chain[0]) ?? '')).map(routeKeyOf);
    assert.deepEqual(open, []);
    assert.ok(BUILTIN_ENDPOINTS.all.length > 50);
  });
});
