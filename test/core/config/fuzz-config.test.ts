// Fuzzing gateway.yaml's parsing (issue 28): arbitrary YAML text, and the shipped config and the video example
// broken at arbitrary places. parseConfig either returns a config or throws a ConfigError whose every line names a
// place; it never throws anything else (a TypeError would be a crash at start or, worse, at a reload). Runs:
// GATEWAY_FUZZ_RUNS (default 300 per property).

import { join } from 'node:path';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import fc from 'fast-check';
import { parseConfig } from '../../../core/config/load.js';
import { ConfigError } from '../../../core/config/resolved.js';
import { BUILTIN_ENDPOINTS } from '../../../features/index.js';
import { REPO_ROOT } from '../../helpers/repo-root.js';
import { validator } from './config-helpers.js';

const RUNS = Number(process.env['GATEWAY_FUZZ_RUNS'] ?? 300);
const SHIPPED = readFileSync(join(REPO_ROOT, 'gateway.yaml'), 'utf8');
const VIDEO = `server: { port: 0 }
channels:
  - name: ark
    type: volcengine
    base_url: https://ark.cn-beijing.volces.com/api/v3
    keys: ["ark-key-0123456789"]
    control: { url: https://ark.cn-beijing.volcengineapi.com, region: cn-beijing, access_key_id: AKLT0123, secret_access_key: c2VjcmV0 }
    models: ["doubao-seedance-*"]
    assets: true
video: { poll_interval_ms: 5000, task_timeout_ms: 3600000 }
usage: { retention_days: 30 }
pricing:
  models:
    "doubao-seedance-*": { output: "2.00", per_second: "0.01", task_reserve: "1.50" }
`;

/** Whether `text` parsed into a config (false: a ConfigError). */
function parse(text: string): boolean {
  try {
    parseConfig(text, { file: null, env: {}, endpoints: BUILTIN_ENDPOINTS, validator });
    return true;
  } catch (err) {
    if (!(err instanceof ConfigError)) throw new Error(`not a ConfigError for:\n${text.slice(0, 2000)}`, { cause: err });
    assert.ok(err.issues.length > 0);
    for (const issue of err.issues) assert.equal(typeof issue, 'string');
    return false;
  }
}

const counts = (label: string, parsed: number, cases: number): string => `fuzz ${label}: ${cases} cases, ${parsed} parsed, ${cases - parsed} refused with a ConfigError, 0 other errors`;

/** `text` with a few characters replaced, inserted or deleted at arbitrary places. */
const broken = (text: string): fc.Arbitrary<string> =>
  fc.array(fc.tuple(fc.nat({ max: text.length }), fc.nat({ max: 8 }), fc.constantFrom('', ':', '-', ' ', '\n', '"', '{', '[', '#', '*', '&a', '!!int', '0', 'null', 'true', '~', '\t')), { minLength: 1, maxLength: 4 }).map((edits) => {
    let out = text;
    for (const [at, remove, insert] of edits) {
      const i = Math.min(at, out.length);
      out = out.slice(0, i) + insert + out.slice(i + remove);
    }
    return out;
  });

test(`the shipped config and a video config broken at arbitrary places: a config or a ConfigError (${RUNS * 2} runs)`, (t) => {
  parse(SHIPPED);
  parse(VIDEO);
  let parsed = 0;
  // The property returns nothing: fast-check takes a returned false (a ConfigError here) for a failure.
  fc.assert(fc.property(fc.oneof(broken(SHIPPED), broken(VIDEO)), (text) => void (parsed += Number(parse(text)))), { numRuns: RUNS * 2 });
  t.diagnostic(counts('config, shipped and video broken', parsed, RUNS * 2));
});

test(`arbitrary YAML-ish text: a config or a ConfigError (${RUNS} runs)`, (t) => {
  const yamlish = fc.array(fc.oneof(fc.string({ maxLength: 20 }), fc.constantFrom('channels:', '  - name: x', '    type: mock', '    models: ["*"]', 'server: {port: 8080}', 'keys: [1, 2]', 'pricing: {models: {"*": {output: -1}}}', 'video: {poll_interval_ms: "x"}')), { maxLength: 12 });
  let parsed = 0;
  fc.assert(fc.property(yamlish, (lines) => void (parsed += Number(parse(lines.join('\n'))))), { numRuns: RUNS });
  t.diagnostic(counts('config, YAML-ish text', parsed, RUNS));
});
