// Telling the fleet of a change never holds the operator's answer: with Redis unreachable (a server that takes the
// connection and never answers, so the client waits and retries forever), changed() applies the override here and
// then fails within its bound, instead of waiting for Redis; the route logs that and answers 200 (the other instances'
// polling reads the table within a second). The test's timeout (8 s) is the bound's check: before, the call never
// ended.

import assert from 'node:assert/strict';
import { createServer, type Server, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { Registry } from 'prom-client';
import type { GatewayServices } from '../../core/pipeline/plugin.js';
import { ChannelOverrides } from '../../core/routing/overrides.js';
import type { StoredOverride } from './override-store.js';
import { channelControl } from './sync.js';

describe('channel control: telling the fleet', () => {
  let blackHole: Server;
  const sockets: Socket[] = [];
  let port = 0;
  before(async () => {
    blackHole = createServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => blackHole.listen(0, '127.0.0.1', resolve));
    const address = blackHole.address();
    port = typeof address === 'object' && address !== null ? address.port : 0;
  });
  after(async () => {
    for (const s of sockets) s.destroy();
    await new Promise<void>((resolve) => blackHole.close(() => resolve()));
  });

  it('applies the change here, then gives up on a Redis that never answers instead of waiting for it', { timeout: 8_000 }, async () => {
    const rows: StoredOverride[] = [{ channel: 'a', disabled: true, weight: null, updatedAt: 1, updatedBy: 'root' }];
    const overrides = new ChannelOverrides();
    // Only what changed() reads of the services: the config's redis, the metrics registry, the store part, the router.
    const services = {
      config: { redis: { url: `redis://127.0.0.1:${port}`, prefix: 'gw-test:' } },
      metrics: { registry: new Registry() },
      store: { part: () => ({ all: () => Promise.resolve(rows) }) },
      router: { overrides },
    } as unknown as GatewayServices;
    const control = channelControl(services);
    try {
      await assert.rejects(control.changed(services), /Redis/);
      assert.equal(overrides.snapshot.get('a')?.disabled, true, 'applied on this instance before telling the others');
      assert.ok(sockets.length >= 1, 'it did try the Redis given');
      // A second change does not wait on the first's connection forever either.
      await assert.rejects(control.changed(services), /Redis/);
    } finally {
      await control.close();
    }
  });
});
