// Where a new asset group goes: the first healthy library by priority, never one on a channel the operator disabled
// at run time (channel control), cooling ones only when nothing else is left; with every library disabled, none (the
// route answers 503 asset_library_unavailable, "out of service", told apart from "none configured").

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ChannelHealth } from '../../core/routing/health.js';
import { ChannelOverrides } from '../../core/routing/overrides.js';
import { resolvedChannel } from '../../test/core/routing/resolved-channel.js';
import type { AssetLibrary } from './library.js';
import { AssetLibraries } from './libraries.js';

const unused = { close: () => Promise.resolve() } as unknown as AssetLibrary;

describe('asset libraries: the channel of a new group', () => {
  const channels = [resolvedChannel('high', { priority: 10 }), resolvedChannel('low', { priority: 1 }), resolvedChannel('plain')];
  const settings = { libraries: new Map([['high', {}], ['low', {}]]) };

  it('skips a channel the operator disabled, whatever its health; every one disabled: none', () => {
    const overrides = new ChannelOverrides();
    const libraries = new AssetLibraries(channels, settings, () => unused, new ChannelHealth(() => 0), overrides);
    assert.equal(libraries.forNewGroup()?.name, 'high');
    overrides.set(new Map([['high', { disabled: true, weight: null }]]));
    assert.equal(libraries.forNewGroup()?.name, 'low');
    assert.equal(libraries.byName('high')?.name, 'high', 'an existing group\'s calls still reach its channel');
    overrides.set(new Map([['high', { disabled: true, weight: null }], ['low', { disabled: true, weight: null }]]));
    assert.equal(libraries.forNewGroup(), undefined);
    assert.equal(libraries.configured, true, 'out of service, not unconfigured');
    overrides.set(new Map([['high', { disabled: false, weight: 5 }]]));
    assert.equal(libraries.forNewGroup()?.name, 'high', 'a weight alone changes nothing here');
  });

  it('a cooling library is passed over while another is healthy, and tried when it is the only one left', () => {
    let now = 0;
    const health = new ChannelHealth(() => now);
    const overrides = new ChannelOverrides();
    const libraries = new AssetLibraries(channels, settings, () => unused, health, overrides);
    const high = libraries.byName('high');
    assert.ok(high !== undefined);
    libraries.failed(high);
    assert.equal(libraries.forNewGroup()?.name, 'low');
    overrides.set(new Map([['low', { disabled: true, weight: null }]]));
    assert.equal(libraries.forNewGroup()?.name, 'high', 'cooling, but the only one the operator left open');
    now = 10 * 60_000;
    overrides.set(new Map());
    assert.equal(libraries.forNewGroup()?.name, 'high', 'its cool-down over');
    assert.equal(new AssetLibraries([resolvedChannel('plain')], { libraries: new Map() }, () => unused, health).configured, false);
  });
});
