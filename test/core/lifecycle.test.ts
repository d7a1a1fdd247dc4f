// The one lifecycle: services start in the order added and stop in reverse, once; a failed start stops what
// started before it; a failed stop does not keep the rest from stopping, and is thrown at the end. startGateway is
// a list of services, short enough to read at once.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { Lifecycle } from '../../core/lifecycle.js';
import { createSilentLogger } from '../../core/logging/logger.js';
import { REPO_ROOT } from '../helpers/repo-root.js';

function recorder(): { events: string[]; service: (name: string, fail?: 'start' | 'stop') => { name: string; start: () => Promise<void>; stop: () => Promise<void> } } {
  const events: string[] = [];
  return {
    events,
    service: (name, fail) => ({
      name,
      start: async () => {
        events.push(`start ${name}`);
        if (fail === 'start') throw new Error(`${name} cannot start`);
      },
      stop: async () => {
        events.push(`stop ${name}`);
        if (fail === 'stop') throw new Error(`${name} cannot stop`);
      },
    }),
  };
}

describe('Lifecycle', () => {
  it('stops in the reverse of the start order, once however often asked', async () => {
    const { events, service } = recorder();
    const life = new Lifecycle(createSilentLogger());
    await life.start(service('store'));
    const pool = await life.open('pool', () => ({ id: 7 }), (value) => void events.push(`close pool ${value.id}`));
    assert.deepEqual(pool, { id: 7 });
    await life.start(service('listener'));
    assert.deepEqual(life.names, ['store', 'pool', 'listener']);
    await Promise.all([life.stop(), life.stop()]);
    assert.deepEqual(events, ['start store', 'start listener', 'stop listener', 'close pool 7', 'stop store']);
    assert.deepEqual(life.names, []);
  });

  it('a start that fails leaves the earlier ones to stop, and is not itself stopped', async () => {
    const { events, service } = recorder();
    const life = new Lifecycle(createSilentLogger());
    await life.start(service('store'));
    await assert.rejects(life.start(service('redis', 'start')), /redis cannot start/);
    await life.stop();
    assert.deepEqual(events, ['start store', 'start redis', 'stop store']);
  });

  it('a stop that fails is thrown after every other service stopped', async () => {
    const { events, service } = recorder();
    const life = new Lifecycle(createSilentLogger());
    await life.start(service('store'));
    await life.start(service('writer', 'stop'));
    await life.start(service('listener'));
    await assert.rejects(life.stop(), /writer cannot stop/);
    assert.deepEqual(events.filter((e) => e.startsWith('stop')), ['stop listener', 'stop writer', 'stop store']);
  });
});

describe('startGateway', () => {
  it('is at most 60 lines, and stops nothing by hand: its services stop through the lifecycle', () => {
    const text = readFileSync(join(REPO_ROOT, 'core', 'serve.ts'), 'utf8');
    const lines = text.split('\n');
    const first = lines.findIndex((line) => line.startsWith('export async function startGateway('));
    const last = lines.findIndex((line, i) => i > first && line === '}');
    assert.ok(first >= 0 && last > first);
    assert.ok(last - first + 1 <= 60, `startGateway is ${last - first + 1} lines`);
    const body = lines.slice(first, last + 1).join('\n');
    assert.doesNotMatch(body, /\.(close|stop)\(\)\s*;/, 'a service is stopped by the lifecycle, not by a call of its own');
  });
});
