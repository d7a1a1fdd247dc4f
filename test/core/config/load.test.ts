// parseConfig / loadConfigFile on valid configs: resolution, defaults, routes and locate().

import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { loadConfigFile, parseConfig } from '../../../core/config/load.js';
import { ConfigError } from '../../../core/config/resolved.js';
import { ISSUE_ENV, ISSUE_EXAMPLE, parse, validator, yaml } from './config-helpers.js';
import { CONSOLE_ROUTES } from '../../helpers/console-routes.js';
import { BUILTIN_ENDPOINTS } from '../../../features/index.js';
import { routeKeyOf } from '../../../core/endpoints/registry.js';
import { consoleSchemaName } from '../../../core/endpoints/route-groups.js';

const MINIMAL = yaml('channels:', '  - name: demo', '    type: mock', '    models: ["demo-*"]');

describe('the issue example', () => {
  it('loads from its file with its env vars set', async () => {
    const config = await loadConfigFile(fileURLToPath(ISSUE_EXAMPLE), BUILTIN_ENDPOINTS, ISSUE_ENV);
    assert.equal(config.file, fileURLToPath(ISSUE_EXAMPLE));
    assert.deepEqual(config.server, {
      port: 8080,
      host: '0.0.0.0',
      bodyLimit: 33554432,
      adminToken: null,
      shutdownGraceMs: 30000,
      drainDelayMs: 0,
      bodyTimeoutMs: 30000,
      headerTimeoutMs: 30000,
      maxInflightBodyBytes: 268435456,
      maxAnswerBytes: 268435456,
      overheadHeader: true,
      metricsToken: null,
      metricsListen: null,
      adminListen: null,
      trustedProxies: [],
    });
    // `sqlite:./data/gateway.db` in the file: relative to the file's folder, whatever the working directory.
    assert.deepEqual(config.store, { poolMax: 10, url: `sqlite:${join(dirname(fileURLToPath(ISSUE_EXAMPLE)), 'data', 'gateway.db')}`, journalPath: null, journalMaxRecords: 1_000_000 });
    assert.deepEqual(
      config.channels.map((c) => [c.name, c.type, c.baseUrl, c.keys, c.priority, c.weight]),
      [
        ['openai', 'openai', 'https://api.openai.com', ['sk-openai-upstream'], 0, 1],
        ['backup', 'openai', 'https://backup.example.com', ['sk-backup-1', 'sk-backup-2'], 0, 1],
        ['deepseek', 'openai', 'https://api.deepseek.com', ['sk-deepseek'], 0, 1],
        ['demo', 'mock', null, [], 0, 1],
      ],
    );
  });

  it('splits model lists into patterns and aliases', async () => {
    const config = await loadConfigFile(fileURLToPath(ISSUE_EXAMPLE), BUILTIN_ENDPOINTS, ISSUE_ENV);
    const models = new Map(config.channels.map((c) => [c.name, c.models]));
    assert.deepEqual(models.get('openai'), { patterns: ['gpt-*', 'o*'], aliases: new Map() });
    assert.deepEqual(models.get('backup'), { patterns: ['gpt-*'], aliases: new Map() });
    assert.deepEqual(models.get('demo'), { patterns: ['demo-*'], aliases: new Map() });
    assert.deepEqual(models.get('deepseek'), {
      patterns: [],
      aliases: new Map([
        ['deepseek-chat', 'deepseek-chat'],
        ['deepseek-r1', 'deepseek-reasoner'],
      ]),
    });
  });

  it('resolves groups and declared keys', async () => {
    const config = await loadConfigFile(fileURLToPath(ISSUE_EXAMPLE), BUILTIN_ENDPOINTS, ISSUE_ENV);
    assert.deepEqual(
      config.groups,
      new Map([
        ['default', { name: 'default', models: ['demo-*', 'deepseek-*'], limits: {}, modelLimits: [] }],
        ['pro', { name: 'pro', models: ['*'], limits: {}, modelLimits: [] }],
      ]),
    );
    assert.deepEqual(config.keys, [{ name: 'laptop', key: 'sk-laptop-0123456789abcdef', group: 'pro' }]);
  });

  it('locates paths with the line they are on', async () => {
    const text = await readFile(ISSUE_EXAMPLE, 'utf8');
    const config = parseConfig(text, { file: '/etc/gw/gateway.yaml', env: ISSUE_ENV, validator, endpoints: BUILTIN_ENDPOINTS });
    assert.equal(config.locate(['channels', 2, 'base_url']), 'channels[2].base_url (gateway.yaml:20)');
    assert.equal(config.locate(['channels', 2, 'models', 'deepseek-r1']), 'channels[2].models["deepseek-r1"] (gateway.yaml:24)');
    assert.equal(config.locate(['keys', 0]), 'keys[0] (gateway.yaml:34)');
    // Absent nodes borrow the line of their nearest ancestor.
    assert.equal(config.locate(['channels', 3, 'weight']), 'channels[3].weight (gateway.yaml:25)');
    assert.equal(config.locate(['routes', 0]), 'routes[0] (gateway.yaml:1)');
    assert.equal(config.locate(['(default)']), '(default)');
  });
});

describe('defaults', () => {
  it('fills server, store, channel and mock defaults', () => {
    const config = parse(MINIMAL);
    assert.equal(config.file, '/somewhere/x.yaml');
    assert.deepEqual(config.server, {
      port: 8080,
      host: '0.0.0.0',
      bodyLimit: 33554432,
      adminToken: null,
      shutdownGraceMs: 30000,
      drainDelayMs: 0,
      bodyTimeoutMs: 30000,
      headerTimeoutMs: 30000,
      maxInflightBodyBytes: 268435456,
      maxAnswerBytes: 268435456,
      overheadHeader: true,
      metricsToken: null,
      metricsListen: null,
      adminListen: null,
      trustedProxies: [],
    });
    assert.equal(config.store.url, 'sqlite:/somewhere/data/gateway.db', 'the default path, in the config file\'s folder');
    assert.deepEqual(config.groups, new Map());
    assert.deepEqual(config.keys, []);
    assert.deepEqual(config.affinity, { ttlMs: 3_600_000, maxEntries: 100_000 });
    assert.deepEqual(config.log, { level: null, access: false });
    const [demo] = config.channels;
    assert.deepEqual(demo, {
      name: 'demo',
      type: 'mock',
      // Every API the routes declare the mock speaks (the chat APIs among them).
      formats: BUILTIN_ENDPOINTS.nativeFormats('mock'),
      dialect: 'openai-chat',
      dropParams: [],
      baseUrl: null,
      keys: [],
      models: { patterns: ['demo-*'], aliases: new Map() },
      priority: 0,
      weight: 1,
      timeoutMs: 60000,
      idleTimeoutMs: 300000,
      cooldownMs: 30000,
      health: { errors: 5, window: 10, probeAfterMs: 30000, probeMaxMs: 600000 },
      modelsRefreshMs: 600000,
      headers: {},
      mock: { chunkDelayMs: 0, reply: null },
    });
  });

  it('resolves a relative store path against the config file\'s folder, or the working directory for text', () => {
    const written = (url: string): string => yaml(`store: {url: "${url}"}`, 'channels:', '  - name: demo', '    type: mock', '    models: [m]');
    assert.equal(parse(written('sqlite:db/gw.db')).store.url, 'sqlite:/somewhere/db/gw.db');
    assert.equal(parse(written('sqlite:/var/lib/gw.db')).store.url, 'sqlite:/var/lib/gw.db');
    const fromText = parseConfig(written('sqlite:./db/gw.db'), { file: null, env: {}, validator, endpoints: BUILTIN_ENDPOINTS });
    assert.equal(fromText.store.url, `sqlite:${join(process.cwd(), 'db', 'gw.db')}`);
  });

  it('resolves store.journal_path like a store path, and keeps journal_max_records', () => {
    const written = (store: string): string => yaml(`store: ${store}`, 'channels:', '  - name: demo', '    type: mock', '    models: [m]');
    const relative = parse(written('{url: "postgres://db/gw", journal_path: ./data/j.db, journal_max_records: 5}')).store;
    assert.equal(relative.journalPath, '/somewhere/data/j.db');
    assert.equal(relative.journalMaxRecords, 5);
    assert.equal(parse(written('{url: "postgres://db/gw", journal_path: /var/lib/j.db}')).store.journalPath, '/var/lib/j.db');
  });

  it('keeps written values and trims trailing slashes from base_url', () => {
    const config = parse(
      yaml(
        'server: {port: 9000, host: 127.0.0.1, body_limit: 2048, admin_token: admin-token-123456, shutdown_grace_ms: 5,',
        '  body_timeout_ms: 7, header_timeout_ms: 8, max_inflight_body_bytes: 4096, metrics_token: metrics-token-123456,',
        '  metrics_listen: "[::1]:9464", trusted_proxies: ["10.0.0.0/8", "::1"]}',
        'log: {level: debug, access: true}',
        'store: {url: "sqlite::memory:"}',
        'channels:',
        '  - name: up',
        '    type: openai',
        '    base_url: https://example.com/proxy//',
        '    keys: [a, b]',
        '    models: [m]',
        '    priority: 2',
        '    weight: 0.5',
        '    timeout_ms: 10',
        '    idle_timeout_ms: 20',
        '    cooldown_ms: 0',
        '    models_refresh_ms: 0',
        '    headers: {x-team: core}',
        '  - name: fake',
        '    type: mock',
        '    base_url: https://ignored.example.com',
        '    models: [m]',
        '    mock: {chunk_delay_ms: 3, reply: hello}',
      ),
    );
    assert.deepEqual(config.server, {
      port: 9000,
      host: '127.0.0.1',
      bodyLimit: 2048,
      adminToken: 'admin-token-123456',
      shutdownGraceMs: 5,
      drainDelayMs: 0,
      bodyTimeoutMs: 7,
      headerTimeoutMs: 8,
      maxInflightBodyBytes: 4096,
      maxAnswerBytes: 268435456,
      overheadHeader: true,
      metricsToken: 'metrics-token-123456',
      metricsListen: { host: '::1', port: 9464 },
      adminListen: null,
      trustedProxies: ['10.0.0.0/8', '::1'],
    });
    assert.deepEqual(config.log, { level: 'debug', access: true });
    assert.equal(config.store.url, 'sqlite::memory:');
    const [up, fake] = config.channels;
    assert.equal(up?.baseUrl, 'https://example.com/proxy');
    assert.deepEqual([up?.priority, up?.weight, up?.timeoutMs, up?.idleTimeoutMs, up?.cooldownMs, up?.modelsRefreshMs], [2, 0.5, 10, 20, 0, 0]);
    assert.deepEqual(up?.headers, { 'x-team': 'core' });
    assert.equal(fake?.baseUrl, null);
    assert.deepEqual(fake?.mock, { chunkDelayMs: 3, reply: 'hello' });
  });
});

/** Who may call a console route (anyone for the pages and the sign-in and password routes, the operator for theirs), and its request schema. */
function consoleWith(path: string): Record<string, string> {
  if (path.startsWith('GET /console') && !path.includes('/api/')) return { access: 'page' };
  const [method, route] = path.includes(' ') ? (path.split(' ') as [string, string]) : ['POST', path];
  const access = path === '/console/api/session' || path === '/console/api/password' ? 'open' : /\/api\/(accounts|channels|instances|config)|\/bind$/.test(path) ? 'operator' : 'user';
  return { access, schema: consoleSchemaName(method, route) };
}

describe('routes', () => {
  it('adds the default chain for every unwritten route', () => {
    const config = parse(MINIMAL);
    const recorded = [
      { use: 'auth', with: {}, path: ['(default)'] },
      { use: 'meter', with: {}, path: ['(default)'] },
      { use: 'relay', with: {}, path: ['(default)'] },
    ];
    const chain = [recorded[0], { use: 'rate-limit', with: {}, path: ['(default)'] }, { use: 'quota', with: {}, path: ['(default)'] }, recorded[1], recorded[2]];
    const byPath = new Map(config.routes.map((r) => [r.path, r]));
    // Every route of the registry, core's and each feature's, with the chain its entry declares, in its order.
    assert.deepEqual(
      config.routes.map((r) => r.path),
      BUILTIN_ENDPOINTS.all.map(routeKeyOf),
    );
    for (const endpoint of BUILTIN_ENDPOINTS.all) {
      const plugins = endpoint.chain.map((step) => (typeof step === 'string' ? { use: step, with: {}, path: ['(default)'] } : { use: step.use, with: step.with, path: ['(default)'] }));
      assert.deepEqual(byPath.get(routeKeyOf(endpoint)), { path: routeKeyOf(endpoint), at: ['(default)'], plugins }, routeKeyOf(endpoint));
    }
    // Core's chains, written out: the metered model routes, count_tokens' own limit, an admin and a console route.
    for (const path of ['/v1/chat/completions', '/v1/messages', '/v1/responses', '/v1/responses/compact']) assert.deepEqual(byPath.get(path)?.plugins, chain, path);
    // Free, and held to a limit of its own: 100 requests per minute per key on the route.
    assert.deepEqual(byPath.get('/v1/messages/count_tokens')?.plugins, [recorded[0], { use: 'rate-limit', with: { route_rpm: 100 }, path: ['(default)'] }, recorded[1], recorded[2]]);
    assert.deepEqual(byPath.get('GET /v1/models')?.plugins, [chain[0]]);
    assert.deepEqual(byPath.get('GET /admin/keys')?.plugins, [{ use: 'auth', with: { credential: 'admin_token' }, path: ['(default)'] }]);
    // The console route group: its session check, with who may call each route.
    for (const path of CONSOLE_ROUTES) assert.deepEqual(byPath.get(path)?.plugins, [{ use: 'console-session', with: consoleWith(path), path: ['(default)'] }], path);
  });

  it('keeps a written route as written, without adding the default', () => {
    const config = parse(
      yaml(
        MINIMAL.trimEnd(),
        'routes:',
        '  - path: /v1/chat/completions',
        '    plugins:',
        '      - use: auth',
        '      - use: relay',
        '        with: {retries: 2}',
      ),
    );
    assert.deepEqual(config.routes[0], {
      path: '/v1/chat/completions',
      at: ['routes', 0],
      plugins: [
        { use: 'auth', with: {}, path: ['routes', 0, 'plugins', 0] },
        { use: 'relay', with: { retries: 2 }, path: ['routes', 0, 'plugins', 1] },
      ],
    });
    assert.deepEqual(
      config.routes.map((r) => r.path),
      BUILTIN_ENDPOINTS.all.map(routeKeyOf),
      'the other paths keep their default chains',
    );
    assert.equal(config.locate(['routes', 0, 'plugins', 1]), 'routes[0].plugins[1] (x.yaml:9)');
  });
});

describe('loadConfigFile', () => {
  it('names the file when it cannot be read', async () => {
    await assert.rejects(loadConfigFile('/nonexistent/gateway.yaml', BUILTIN_ENDPOINTS, {}), (error: unknown) => {
      assert.ok(error instanceof ConfigError);
      assert.match(error.issues[0] ?? '', /^\/nonexistent\/gateway\.yaml: cannot read the config file: .*ENOENT/);
      return true;
    });
  });

  it('labels text without a file as <config>', () => {
    assert.throws(
      () => parseConfig('channels: 3\n', { file: null, env: {}, validator, endpoints: BUILTIN_ENDPOINTS }),
      (error: unknown) => error instanceof ConfigError && error.issues[0] === 'channels: must be a list (<config>:1)',
    );
  });
});
