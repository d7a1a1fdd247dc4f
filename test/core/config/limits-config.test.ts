// The limits part of gateway.yaml: issue 24's file accepted as written, limits resolved per group (and per model),
// per key and per account, and the checks a key's request is held to (its own values over its group's).

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { LimitPlan } from '../../../core/limits/limit-plan.js';
import { issuesOf, parse, yaml } from './config-helpers.js';
import { fixturePath } from '../../helpers/repo-root.js';

const ENV = { GW_KEY_CI: 'sk-ci-0123456789abcdef' };

describe('limits config', () => {
  const config = parse(readFileSync(fixturePath('config/limits-example.yaml'), 'utf8'), ENV);

  it('accepts issue 24\'s file as written', () => {
    assert.deepEqual(config.redis, { url: 'redis://127.0.0.1:6379', prefix: 'gateway:', onFailure: 'open', timeoutMs: 100 });
    assert.deepEqual(config.groups.get('default')?.limits, { rpm: 60, tpm: 100000, concurrency: 4 });
    assert.deepEqual(config.groups.get('fast')?.modelLimits, [{ pattern: 'demo-fast', limits: { rpm: 5 } }]);
    assert.deepEqual(config.accounts[0]?.limits, { rpm: 600 });
    assert.deepEqual(config.keys[0]?.limits, { rpm: 10 });
  });

  it('holds a key to its own values over its group\'s, its model\'s, and its account\'s', () => {
    const plan = new LimitPlan(config);
    assert.equal(plan.declared, true);
    const ci = { id: 'config:ci', name: 'ci', group: 'default', account: 'acme', limits: { rpm: 10 } };
    assert.deepEqual(plan.checksFor(ci, 'demo-chat'), [
      { subject: 'key:config:ci', scope: 'key', label: 'key "ci"', rpm: 10, tpm: 100000, concurrency: 4 },
      { subject: 'account:acme', scope: 'account', label: 'account "acme"', rpm: 600 },
    ]);
    const fast = { id: 'k2', name: 'quick', group: 'fast' };
    assert.deepEqual(plan.checksFor(fast, 'demo-fast'), [{ subject: 'key:k2:model:demo-fast', scope: 'model', label: 'key "quick" on demo-fast', rpm: 5 }]);
    assert.deepEqual(plan.checksFor(fast, 'demo-slow'), [], 'no limit applies');
  });

  it('without redis everything is in the process; a bad redis url or limit is named', () => {
    const plain = parse(yaml('channels:', '  - { name: m, type: mock, models: ["demo-*"] }'));
    assert.equal(plain.redis, null);
    assert.equal(new LimitPlan(plain).declared, false);
    const issues = issuesOf(
      yaml('redis: { url: "http://cache:6379" }', 'groups:', '  g: { models: ["*"], limits: { rpm: 0, burst: 3 } }', 'channels:', '  - { name: m, type: mock, models: ["demo-*"] }'),
    );
    assert.ok(issues.some((i) => i.includes('redis.url')), issues.join('\n'));
    assert.ok(issues.some((i) => i.includes('groups.g.limits')), issues.join('\n'));
  });

  it('redis.timeout_ms: a request\'s wait on Redis, 10 to 1000 ms', () => {
    const withTimeout = (ms: number): string => yaml(`redis: { url: "redis://cache:6379", timeout_ms: ${ms} }`, 'channels:', '  - { name: m, type: mock, models: ["demo-*"] }');
    assert.equal(parse(withTimeout(500)).redis?.timeoutMs, 500);
    // Above the heartbeat's 1.5 s a slow answer would read as a dead connection.
    assert.ok(issuesOf(withTimeout(5000)).some((i) => i.includes('redis.timeout_ms')));
    assert.ok(issuesOf(withTimeout(0)).some((i) => i.includes('redis.timeout_ms')));
  });
});
