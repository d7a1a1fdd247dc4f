// defaults.ts and default-routes.ts must agree with the schema they stand in for.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { defaultRoutesExcept } from '../../../core/config/default-routes.js';
import { routeKeyOf } from '../../../core/endpoints/registry.js';
import { BUILTIN_ENDPOINTS } from '../../../features/index.js';
import { AFFINITY_DEFAULTS, LOG_DEFAULTS, CHANNEL_DEFAULTS, MOCK_DEFAULTS, PRICING_DEFAULTS, SERVER_DEFAULTS } from '../../../core/config/defaults.js';
import { findSchemaDir } from '../../../core/config/schema-dir.js';
import { CONSOLE_ROUTES } from '../../helpers/console-routes.js';

interface SchemaNode {
  readonly default?: unknown;
  readonly enum?: readonly unknown[];
  readonly properties?: Readonly<Record<string, SchemaNode>>;
}

const schema = JSON.parse(readFileSync(join(findSchemaDir(), 'gateway.schema.json'), 'utf8')) as {
  readonly definitions: Readonly<Record<string, SchemaNode>>;
};

function defaultOf(definition: string, field: string): unknown {
  return schema.definitions[definition]?.properties?.[field]?.default;
}

describe('defaults', () => {
  it('match the schema defaults', () => {
    assert.equal(SERVER_DEFAULTS.port, defaultOf('Server', 'port'));
    assert.equal(SERVER_DEFAULTS.host, defaultOf('Server', 'host'));
    assert.equal(SERVER_DEFAULTS.bodyLimit, defaultOf('Server', 'body_limit'));
    assert.equal(SERVER_DEFAULTS.shutdownGraceMs, defaultOf('Server', 'shutdown_grace_ms'));
    assert.equal(SERVER_DEFAULTS.drainDelayMs, defaultOf('Server', 'drain_delay_ms'));
    assert.equal(SERVER_DEFAULTS.bodyTimeoutMs, defaultOf('Server', 'body_timeout_ms'));
    assert.equal(SERVER_DEFAULTS.headerTimeoutMs, defaultOf('Server', 'header_timeout_ms'));
    assert.equal(SERVER_DEFAULTS.maxInflightBodyBytes, defaultOf('Server', 'max_inflight_body_bytes'));
    assert.equal(SERVER_DEFAULTS.maxAnswerBytes, defaultOf('Server', 'max_answer_bytes'));
    assert.equal(SERVER_DEFAULTS.overheadHeader, defaultOf('Server', 'overhead_header'));
    assert.equal(PRICING_DEFAULTS.showCost, defaultOf('Pricing', 'show_cost'));
    assert.equal(LOG_DEFAULTS.access, defaultOf('Log', 'access'));
    assert.equal(CHANNEL_DEFAULTS.priority, defaultOf('Channel', 'priority'));
    assert.equal(CHANNEL_DEFAULTS.weight, defaultOf('Channel', 'weight'));
    assert.equal(CHANNEL_DEFAULTS.timeoutMs, defaultOf('Channel', 'timeout_ms'));
    assert.equal(CHANNEL_DEFAULTS.idleTimeoutMs, defaultOf('Channel', 'idle_timeout_ms'));
    assert.equal(CHANNEL_DEFAULTS.cooldownMs, defaultOf('Channel', 'cooldown_ms'));
    assert.equal(CHANNEL_DEFAULTS.modelsRefreshMs, defaultOf('Channel', 'models_refresh_ms'));
    assert.equal(MOCK_DEFAULTS.chunkDelayMs, defaultOf('MockOptions', 'chunk_delay_ms'));
    assert.equal(AFFINITY_DEFAULTS.ttlMs, defaultOf('Affinity', 'ttl_ms'));
    assert.equal(AFFINITY_DEFAULTS.maxEntries, defaultOf('Affinity', 'max_entries'));
  });
});

describe('default routes', () => {
  it('exist for every endpoint of the registry, with its chain; the schema lists no paths of its own', () => {
    assert.deepEqual(
      defaultRoutesExcept(new Set(), BUILTIN_ENDPOINTS).map((r) => [r.path, r.plugins.map((p) => [p.use, p.with])]),
      BUILTIN_ENDPOINTS.all.map((e) => [routeKeyOf(e), e.chain.map((step) => (typeof step === 'string' ? [step, {}] : [step.use, step.with]))]),
    );
    assert.equal(schema.definitions['Route']?.properties?.['path']?.enum, undefined);
  });

  it('skip written paths and give each plugin an empty `with`', () => {
    assert.deepEqual(defaultRoutesExcept(new Set(BUILTIN_ENDPOINTS.all.map(routeKeyOf)), BUILTIN_ENDPOINTS), []);
    assert.deepEqual(
      defaultRoutesExcept(new Set(['/v1/chat/completions']), BUILTIN_ENDPOINTS).map((r) => r.path),
      BUILTIN_ENDPOINTS.all.map(routeKeyOf).filter((key) => key !== '/v1/chat/completions'),
    );
    const [chat] = defaultRoutesExcept(new Set(), BUILTIN_ENDPOINTS);
    assert.deepEqual(
      chat?.plugins.map((p) => [p.use, p.with, p.path]),
      [
        ['auth', {}, ['(default)']],
        ['rate-limit', {}, ['(default)']],
        ['quota', {}, ['(default)']],
        ['meter', {}, ['(default)']],
        ['relay', {}, ['(default)']],
      ],
    );
    // Each call builds fresh objects, so no caller can alter another's chain.
    assert.notEqual(defaultRoutesExcept(new Set(), BUILTIN_ENDPOINTS)[0]?.plugins[0]?.with, chat?.plugins[0]?.with);
  });
});
