// The one-line messages of ConfigError: schema, YAML and cross-field problems, each with path and line.

import assert from 'node:assert/strict';
import { BUILTIN_ENDPOINTS } from '../../../features/index.js';
import { routeKeyOf } from '../../../core/endpoints/registry.js';
import { describe, it } from 'node:test';
import { issuesOf, parse, yaml } from './config-helpers.js';

const KEY = 'sk-0123456789abcdef0123';

// Lines 1-9: a valid channels section that tests extend below.
const CHANNELS = [
  'channels:',
  '  - name: openai',
  '    type: openai',
  '    base_url: https://api.openai.com',
  '    keys: [sk-upstream]',
  '    models: [gpt-*]',
  '  - name: demo',
  '    type: mock',
  '    models: [demo-*]',
];

describe('schema messages', () => {
  it('says a bad base_url must be a URL, once', () => {
    const text = yaml(
      ...CHANNELS,
      '  - name: third', // 10
      '    type: openai',
      '    base_url: not a url', // 12
      '    keys: [k]',
      '    models: [m]',
    );
    assert.deepEqual(issuesOf(text), ['channels[2].base_url: must be a URL (x.yaml:12)']);
  });

  it('rejects a URL scheme other than http(s)', () => {
    const text = yaml(...CHANNELS).replace('https://api.openai.com', 'ftp://api.openai.com');
    assert.deepEqual(issuesOf(text), ['channels[0].base_url: must be a URL (x.yaml:4)']);
  });

  it('names an unknown field on the line of that field', () => {
    const text = yaml('server:', '  port: 8080', '  prot: 1', ...CHANNELS);
    assert.deepEqual(issuesOf(text), ['server: unknown field "prot" (x.yaml:3)']);
  });

  it('names a missing required field on the line of its object', () => {
    const text = yaml(...CHANNELS.filter((line) => !line.includes('base_url')));
    assert.deepEqual(issuesOf(text), ['channels[0]: missing required field "base_url" (x.yaml:2)']);
  });

  it('reports only the missing type when a channel has no type', () => {
    const text = yaml(...CHANNELS.filter((line) => line !== '    type: mock'));
    assert.deepEqual(issuesOf(text), ['channels[1]: missing required field "type" (x.yaml:7)']);
  });

  it('lists the allowed values of an enum', () => {
    const text = yaml(...CHANNELS).replace('type: mock', 'type: bedrock');
    assert.deepEqual(issuesOf(text), ['channels[1].type: must be one of: openai, anthropic, volcengine, mock, gemini (x.yaml:8)']);
  });

  it('says what a model list may be, in one message', () => {
    const text = yaml(...CHANNELS).replace('models: [demo-*]', 'models: demo-1');
    assert.deepEqual(issuesOf(text), [
      'channels[1].models: must be a list of model names or a map of client name to upstream name (x.yaml:9)',
    ]);
  });

  it('keeps the precise message when the model list has the right shape', () => {
    const empty = yaml(...CHANNELS).replace('models: [demo-*]', 'models: []');
    assert.deepEqual(issuesOf(empty), ['channels[1].models: must not be empty (x.yaml:9)']);
    const emptyMap = yaml(...CHANNELS).replace('models: [demo-*]', 'models: {}');
    assert.deepEqual(issuesOf(emptyMap), ['channels[1].models: must not be empty (x.yaml:9)']);
    const badTarget = yaml(...CHANNELS, '  - name: m2', '    type: mock', '    models: {a: 1}');
    assert.deepEqual(issuesOf(badTarget), ['channels[2].models.a: must be a string (x.yaml:12)']);
  });

  it('words types, patterns and names plainly', () => {
    const text = yaml(
      'server: {port: eighty}',
      'store: {url: "mysql://x"}',
      ...CHANNELS,
      'groups:',
      '  "bad name": {models: ["*"]}', // 13
      'keys:',
      '  - {name: k, key: "not-a-key", group: x}', // 15
    );
    assert.deepEqual(issuesOf(text), [
      'server.port: must be an integer (x.yaml:1)',
      'store.url: must start with "sqlite:" or "postgres://" (sqlite:<path>, sqlite::memory:, postgres://user@host/db) (x.yaml:2)',
      'groups["bad name"]: invalid name: must be 1 to 64 letters, digits, "_", "." or "-", starting with a letter or digit (x.yaml:13)',
      'keys[0].key: must be "sk-" followed by at least 16 letters, digits, "_" or "-" (x.yaml:15)',
    ]);
  });

  it('rejects a negative or fractional models_refresh_ms', () => {
    const negative = yaml(...CHANNELS, '    models_refresh_ms: -1'); // 10
    assert.deepEqual(issuesOf(negative), ['channels[1].models_refresh_ms: must be >= 0 (x.yaml:10)']);
    const fractional = yaml(...CHANNELS, '    models_refresh_ms: 1.5');
    assert.deepEqual(issuesOf(fractional), ['channels[1].models_refresh_ms: must be an integer (x.yaml:10)']);
  });

  it('reports every problem at once, sorted by line', () => {
    const text = yaml(
      'routes:',
      '  - path: /v1/no-such-route',
      '    plugins: []',
      'channels: []',
      'extra: true',
    );
    assert.deepEqual(issuesOf(text), [
      // The registry's route names a config may write (the admin and console groups' chains cannot be rewritten).
      `routes[0].path: must be one of: ${BUILTIN_ENDPOINTS.all.filter((e) => e.configurable !== false).map(routeKeyOf).join(', ')} (x.yaml:2)`,
      'routes[0].plugins: must not be empty (x.yaml:3)',
      'channels: must not be empty (x.yaml:4)',
      '(root): unknown field "extra" (x.yaml:5)',
    ]);
  });

  it('treats an empty file as missing everything', () => {
    assert.deepEqual(issuesOf(''), ['x.yaml: the config is empty; it needs at least "channels"']);
    assert.deepEqual(issuesOf('server: {}\n'), ['(root): missing required field "channels" (x.yaml:1)']);
  });
});

describe('environment variables', () => {
  const declared = (value: string): string =>
    yaml(...CHANNELS, 'groups: {pro: {models: ["*"]}}', 'keys:', '  - name: laptop', `    key: "${value}"`, '    group: pro');

  it('names an unset variable, its path and line, without a second schema error', () => {
    assert.deepEqual(issuesOf(declared('${GATEWAY_KEY_LAPTOP}')), [
      'keys[0].key: environment variable GATEWAY_KEY_LAPTOP is not set (x.yaml:13)',
    ]);
  });

  it('reports an unset variable inside a list', () => {
    const text = yaml(...CHANNELS).replace('[sk-upstream]', '["${A}", "${B}"]');
    assert.deepEqual(issuesOf(text, { A: 'x' }), [
      'channels[0].keys[1]: environment variable B is not set (x.yaml:5)',
    ]);
  });

  it('reports a malformed reference', () => {
    const text = yaml(...CHANNELS).replace('[sk-upstream]', '["${not closed"]');
    assert.deepEqual(issuesOf(text), [
      'channels[0].keys[0]: malformed "${" reference: write ${NAME}, or $${ for a literal "${" (x.yaml:5)',
    ]);
  });
});

describe('YAML syntax', () => {
  it('gives file:line:col and the parser message', () => {
    const issues = issuesOf(yaml('channels:', '  - name: a', '    type: [mock', 'groups: {}'));
    assert.equal(issues.length, 1);
    assert.match(issues[0] ?? '', /^x\.yaml:4:1: Flow sequence in block collection must be sufficiently indented/);
  });

  it('rejects a key written twice', () => {
    assert.deepEqual(issuesOf(yaml(...CHANNELS, 'channels: []')), ['x.yaml:10:1: Map keys must be unique']);
  });
});

describe('cross-field checks', () => {
  it('rejects a duplicate channel name', () => {
    const text = yaml(...CHANNELS, '  - name: openai', '    type: mock', '    models: [x]');
    assert.deepEqual(issuesOf(text), [
      'channels[2].name: duplicate channel name "openai"; first defined at channels[0] (x.yaml:10)',
    ]);
  });

  it('rejects a body cap smaller than the body limit, and a metrics address that is not host:port', () => {
    assert.deepEqual(issuesOf(yaml(...CHANNELS, 'server:', '  body_limit: 4096', '  max_inflight_body_bytes: 2048')), [
      'server.max_inflight_body_bytes: must be at least server.body_limit (4096), or a body that size could never be read (x.yaml:12)',
    ]);
    assert.deepEqual(issuesOf(yaml(...CHANNELS, 'server:', '  max_inflight_body_bytes: 2048')), [
      'server.max_inflight_body_bytes: must be at least server.body_limit (33554432), or a body that size could never be read (x.yaml:11)',
    ]);
    assert.equal(issuesOf(yaml(...CHANNELS, 'server:', '  metrics_listen: "9464"')).length, 1);
    assert.deepEqual(parse(yaml(...CHANNELS, 'server:', '  metrics_listen: "[::1]:9464"')).server.metricsListen, { host: '::1', port: 9464 });
  });

  it('rejects an account\'s group that is not declared', () => {
    const issues = issuesOf(yaml(...CHANNELS, 'groups: {pro: {models: ["*"]}}', 'accounts: [{name: acme, groups: [pro, gold]}]'));
    assert.deepEqual(issues.map((i) => i.replace(/ \(x\.yaml:\d+\)$/, '')), ['accounts[0].groups[1]: unknown group "gold"; declared groups: pro']);
  });

  it('rejects a trusted proxy that is not an address or a CIDR', () => {
    const issues = issuesOf(yaml('server: {trusted_proxies: ["10.0.0.0/8", "proxy.internal"]}', ...CHANNELS));
    assert.equal(issues.length, 1, issues.join('\n'));
    assert.match(issues[0] as string, /^server\.trusted_proxies\[1\]: "proxy\.internal" is not an address or a CIDR/);
  });

  it('rejects a key whose group is not declared', () => {
    const keys = ['keys:', `  - {name: laptop, key: ${KEY}, group: pro}`];
    assert.deepEqual(issuesOf(yaml(...CHANNELS, ...keys)), [
      'keys[0].group: unknown group "pro"; no groups are declared (x.yaml:11)',
    ]);
    assert.deepEqual(issuesOf(yaml(...CHANNELS, 'groups: {default: {models: ["*"]}, free: {models: []}}', ...keys)), [
      'keys[0].group: unknown group "pro"; declared groups: default, free (x.yaml:12)',
    ]);
  });

  it('rejects duplicate key names and values without printing the key', () => {
    const text = yaml(
      ...CHANNELS,
      'groups: {pro: {models: ["*"]}}',
      'keys:',
      `  - {name: laptop, key: ${KEY}, group: pro}`,
      `  - {name: laptop, key: ${KEY}, group: pro}`, // 13
    );
    const issues = issuesOf(text);
    assert.deepEqual(issues, [
      'keys[1].name: duplicate key name "laptop"; first defined at keys[0] (x.yaml:13)',
      'keys[1].key: same key as keys[0].key; every gateway key must be unique (x.yaml:13)',
    ]);
    for (const issue of issues) assert.ok(!issue.includes(KEY), `key leaked: ${issue}`);
  });

  it('does not print a key that came from the environment either', () => {
    const text = yaml(
      ...CHANNELS,
      'groups: {pro: {models: ["*"]}}',
      'keys:',
      '  - {name: a, key: "${SECRET}", group: pro}',
      '  - {name: b, key: "${SECRET}", group: pro}',
    );
    const issues = issuesOf(text, { SECRET: KEY });
    assert.equal(issues.length, 1);
    assert.ok(!(issues[0] ?? '').includes(KEY));
  });

  it('rejects a route written twice', () => {
    const route = ['  - path: /v1/chat/completions', '    plugins: [{use: relay}]'];
    assert.deepEqual(issuesOf(yaml(...CHANNELS, 'routes:', ...route, ...route)), [
      'routes[1].path: duplicate route "/v1/chat/completions"; first defined at routes[0] (x.yaml:13)',
    ]);
  });
});

describe('channel formats', () => {
  it('accepts a subset of the type\'s formats and rejects one the type cannot speak, naming both', () => {
    const ok = yaml(...CHANNELS.slice(0, 6), '    formats: [openai-chat]', '    drop_params: [client_metadata]', ...CHANNELS.slice(6));
    const channel = parse(ok).channels[0];
    assert.deepEqual([channel?.formats, channel?.dropParams], [['openai-chat'], ['client_metadata']]);
    const bad = yaml(
      ...CHANNELS,
      '  - name: claude', // 10
      '    type: anthropic',
      '    base_url: https://api.anthropic.com',
      '    keys: [k]',
      '    models: [claude-*]',
      '    formats: [anthropic-messages, openai-responses]', // 15
    );
    assert.deepEqual(issuesOf(bad), [
      'channels[2].formats[1]: type anthropic cannot speak openai-responses; it speaks anthropic-messages (x.yaml:15)',
    ]);
  });
});
