// The /v1/models list of a config: exact and alias names as configured, globs expanded over discovered ids.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildModelList } from '../../../core/routing/model-list.js';
import { resolvedChannel as channel } from './resolved-channel.js';

const NOTHING = new Map<string, readonly string[]>();

describe('buildModelList', () => {
  it('lists exact names and aliases once each, sorted; a glob with nothing discovered as written', () => {
    const channels = [
      channel('a', { patterns: ['gpt-4o', 'gpt-*', 'o?'], aliases: { fast: 'gpt-4o-mini' } }),
      channel('b', { patterns: ['claude-3.5-sonnet', 'gpt-4o'], aliases: { 'best-claude': 'claude-opus-4' } }),
      channel('c', { patterns: ['meta-llama/Llama-3.1-8B'] }),
    ];
    assert.deepEqual(buildModelList(channels, NOTHING), [
      'best-claude',
      'claude-3.5-sonnet',
      'fast',
      'gpt-*',
      'gpt-4o',
      'meta-llama/Llama-3.1-8B',
      'o?',
    ]);
  });

  it('expands each glob to the discovered ids it matches, and leaves the others out', () => {
    const channels = [channel('priv', { patterns: ['priv-*', 'team/?'] })];
    const discovered = new Map([['priv', ['priv-a', 'pub-b', 'priv-c/large', 'team/x', 'team/xy', 'other']]]);
    assert.deepEqual(buildModelList(channels, discovered), ['priv-a', 'priv-c/large', 'team/x']);
  });

  it('lists a glob that matches nothing discovered as written, beside one that matched', () => {
    const channels = [channel('up', { patterns: ['gpt-*', 'o*-mini', 'never-*'] })];
    const discovered = new Map([['up', ['gpt-4o', 'o3-mini', 'text-embedding-3']]]);
    assert.deepEqual(buildModelList(channels, discovered), ['gpt-4o', 'never-*', 'o3-mini']);
  });

  it('an empty discovered list leaves the globs as written', () => {
    const channels = [channel('up', { patterns: ['gpt-*'] })];
    assert.deepEqual(buildModelList(channels, new Map([['up', []]])), ['gpt-*']);
  });

  it('expands a channel only over its own upstream, and lists an id two channels share once', () => {
    const channels = [channel('a', { patterns: ['m-*'] }), channel('b', { patterns: ['m-*', 'x-*'] }), channel('c', { patterns: ['m-*'] })];
    const discovered = new Map([
      ['a', ['m-1', 'm-2', 'x-only-in-a']],
      ['b', ['m-2', 'm-3']],
    ]);
    assert.deepEqual(buildModelList(channels, discovered), ['m-*', 'm-1', 'm-2', 'm-3', 'x-*']);
  });

  it('has nothing to expand for an alias map, whatever was discovered', () => {
    const channels = [channel('alias', { patterns: [], aliases: { mine: 'upstream-name' } })];
    assert.deepEqual(buildModelList(channels, new Map([['alias', ['upstream-name', 'another']]])), ['mine']);
  });

  it('does not list a discovered id that no pattern matches', () => {
    const channels = [channel('up', { patterns: ['gpt-4o'] })];
    assert.deepEqual(buildModelList(channels, new Map([['up', ['gpt-4o', 'gpt-5']]])), ['gpt-4o']);
  });
});
