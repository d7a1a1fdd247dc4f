// Chains are built once per config load; every plugin mistake fails the load with its YAML path and line.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseConfig } from '../../../core/config/load.js';
import { ConfigError } from '../../../core/config/resolved.js';
import { BUILTIN_ENDPOINTS } from '../../../features/index.js';
import { Gateway } from '../../../core/gateway.js';
import { createSilentLogger } from '../../../core/logging/logger.js';
import { GatewayMetrics } from '../../../core/metrics/gateway-metrics.js';
import type { PluginFactory } from '../../../core/pipeline/plugin.js';
import { MemoryAffinityStore } from '../../../core/routing/memory-affinity.js';
import type { Store } from '../../../core/store/store.js';
import { builtinPlugins } from '../../../plugins/index.js';

const HEAD = `channels:
  - name: demo
    type: mock
    models: ["demo-*"]
`;

function build(text: string, factories: ReadonlyMap<string, PluginFactory> = builtinPlugins()): Gateway {
  const config = parseConfig(text, { file: '/x/gw.yaml', env: {}, endpoints: BUILTIN_ENDPOINTS });
  return new Gateway(config, {
    store: {} as Store,
    usage: { add: () => undefined, saturated: false },
    affinity: new MemoryAffinityStore(10),
    metrics: new GatewayMetrics({ defaultMetrics: false }),
    logger: createSilentLogger(),
    factories,
    endpoints: BUILTIN_ENDPOINTS,
  });
}

function issuesOf(text: string, factories?: ReadonlyMap<string, PluginFactory>): readonly string[] {
  try {
    build(text, factories);
  } catch (err) {
    assert.ok(err instanceof ConfigError, String(err));
    return err.issues;
  }
  assert.fail('expected a ConfigError');
}

test('without routes:, /v1/chat/completions gets the default chain auth, rate-limit, quota, meter, relay', () => {
  const gateway = build(HEAD);
  const chain = gateway.chains.get('/v1/chat/completions');
  assert.deepEqual(chain?.plugins.map((p) => p.name), ['auth', 'rate-limit', 'quota', 'meter', 'relay']);
  assert.equal(chain?.relay.name, 'relay');
  // rate-limit's request hook is always there: a run-time key may have limits of its own.
  assert.deepEqual(chain?.request.map((p) => p.name), ['auth', 'rate-limit', 'quota', 'meter']);
  assert.deepEqual(chain?.frame.map((p) => p.name), ['meter'], 'frame hooks in reverse order');
  // Without prices quota has nothing to settle; relay's finish ends its channel's count of requests in flight.
  assert.deepEqual(chain?.finish.map((p) => p.name), ['rate-limit', 'meter', 'relay']);
});

test('a written route keeps its own chain', () => {
  const gateway = build(`${HEAD}routes:
  - path: /v1/chat/completions
    plugins:
      - use: auth
      - use: relay
`);
  assert.deepEqual(gateway.chains.get('/v1/chat/completions')?.plugins.map((p) => p.name), ['auth', 'relay']);
});

test('an unknown plugin, a duplicate, a bad with: block and a missing relay name their line', () => {
  assert.deepEqual(
    issuesOf(`${HEAD}routes:
  - path: /v1/chat/completions
    plugins:
      - use: auth
      - use: auht
      - use: auth
      - use: meter
        with: { colour: red }
`),
    [
      'routes[0].plugins[1] (gw.yaml:9): unknown plugin "auht" (known: auth, rate-limit, quota, meter, relay, console-session)',
      'routes[0].plugins[2] (gw.yaml:10): plugin "auth" appears twice in this route',
      'routes[0].plugins[3] (gw.yaml:11): invalid "with" for plugin meter: unknown option "colour"',
      'routes[0] (gw.yaml:6): route /v1/chat/completions needs exactly one relay plugin, has 0',
    ],
  );
});

test('a plugin object with a hook outside the closed set of phases fails the load', () => {
  const sloppy: PluginFactory = {
    name: 'sloppy',
    uses: [],
    create: () => ({ name: 'sloppy', onRequest: () => undefined }) as never,
  };
  const factories = new Map([...builtinPlugins(), ['sloppy', sloppy]]);
  const issues = issuesOf(
    `${HEAD}routes:
  - path: /v1/chat/completions
    plugins:
      - use: sloppy
      - use: relay
`,
    factories,
  );
  assert.deepEqual(issues, ['routes[0].plugins[0] (gw.yaml:8): plugin sloppy has unknown phase(s): onRequest']);
});

test('a plugin is handed the services it declares, and no others', () => {
  const seen: string[][] = [];
  const probe: PluginFactory<Readonly<Record<string, unknown>>, 'config' | 'logger'> = {
    name: 'probe',
    uses: ['config', 'logger'],
    create: (_options, services) => {
      seen.push(Object.keys(services).sort());
      return { name: 'probe' };
    },
  };
  build(
    `${HEAD}routes:
  - path: /v1/chat/completions
    plugins:
      - use: probe
      - use: relay
`,
    new Map([...builtinPlugins(), ['probe', probe as PluginFactory]]),
  );
  assert.deepEqual(seen, [['config', 'logger']]);
});

test('two relays in one route are refused', () => {
  const second: PluginFactory = { name: 'relay2', uses: [], create: () => ({ name: 'relay2', relay: async () => ({ kind: 'body', status: 200, headers: {}, body: Buffer.alloc(0) }) }) };
  const issues = issuesOf(
    `${HEAD}routes:
  - path: /v1/chat/completions
    plugins:
      - use: relay
      - use: relay2
`,
    new Map([...builtinPlugins(), ['relay2', second]]),
  );
  assert.deepEqual(issues, ['routes[0] (gw.yaml:6): route /v1/chat/completions needs exactly one relay plugin, has 2']);
});

test('a route that puts meter before quota is refused: the record would be written before its charge, the price told before the usage read', () => {
  assert.deepEqual(
    issuesOf(`${HEAD}routes:
  - path: /v1/chat/completions
    plugins:
      - use: auth
      - use: meter
      - use: quota
      - use: relay
`),
    [
      'routes[0].plugins[1] (gw.yaml:9): plugin "meter" reads charge in its finish phase, but "quota" provides it only later: put "quota" before "meter"',
      'routes[0].plugins[2] (gw.yaml:10): plugin "quota" reads usage in its response phase, but "meter" provides it only later: put "meter" after "quota"',
      'routes[0].plugins[2] (gw.yaml:10): plugin "quota" reads usage-final in its frame phase, but "meter" provides it only later: put "meter" after "quota"',
    ],
  );
});

test('a route with quota and no meter is refused: its charges would never be written, nor its holds settled', () => {
  assert.deepEqual(
    issuesOf(`${HEAD}routes:
  - path: /v1/chat/completions
    plugins:
      - use: auth
      - use: quota
      - use: relay
`),
    ['routes[0].plugins[1] (gw.yaml:9): plugin "quota" requires usage, which no plugin of this route provides (add "meter")'],
  );
});
