// The model catalog of one config load: which channels read their upstream's list, the first read at start,
// refreshes, a failed read keeping the last good list (one warn line), stop(), and reload seeding.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import pino from 'pino';
import type { ResolvedChannel } from '../../../core/config/resolved.js';
import type { Logger } from '../../../core/logging/logger.js';
import { discoversModels, ModelCatalog, type ModelLister } from '../../../core/routing/model-catalog.js';
import { until } from '../../helpers/poll.js';
import { resolvedChannel as channel } from './resolved-channel.js';

const POLL = { timeoutMs: 5_000, intervalMs: 5 };

interface LogLine {
  readonly level: number;
  readonly msg: string;
  readonly channel?: string;
  readonly reason?: string;
  readonly models?: number;
}

/** A debug-level logger whose lines are kept as parsed objects. */
function capturingLogger(): { readonly logger: Logger; readonly lines: LogLine[] } {
  const lines: LogLine[] = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => void lines.push(JSON.parse(line) as LogLine) });
  return { logger, lines };
}

const WARN = 40;
const DEBUG = 20;

/** A lister whose answers the test scripts: each call takes the next answer (the last one repeats). */
function scripted(...answers: (readonly string[] | Error)[]): ModelLister & { calls: number } {
  const list = Object.assign(
    (): Promise<readonly string[]> => {
      const answer = answers[Math.min(list.calls, answers.length - 1)];
      list.calls++;
      return answer instanceof Error ? Promise.reject(answer) : Promise.resolve(answer ?? []);
    },
    { calls: 0 },
  );
  return list;
}

describe('discoversModels', () => {
  it('is true only for a channel with a glob pattern and a refresh interval', () => {
    assert.equal(discoversModels(channel('a', { patterns: ['priv-*'] })), true);
    assert.equal(discoversModels(channel('b', { patterns: ['gpt-4o', 'o?'] })), true);
    assert.equal(discoversModels(channel('c', { patterns: ['gpt-4o', 'gpt-4o-mini'] })), false, 'exact names: nothing to expand');
    assert.equal(discoversModels(channel('d', { patterns: [], aliases: { mine: 'theirs' } })), false, 'an alias map');
    assert.equal(discoversModels(channel('e', { patterns: ['priv-*'], modelsRefreshMs: 0 })), false, '0 turns it off');
  });
});

describe('ModelCatalog', () => {
  it('reads nothing until started, then lists the discovered ids the globs match', async () => {
    const lister = scripted(['priv-a', 'priv-b', 'public-c']);
    const { logger, lines } = capturingLogger();
    const catalog = new ModelCatalog([channel('up', { patterns: ['priv-*'] })], () => lister, logger);
    assert.equal(lister.calls, 0, 'building the catalog does no I/O');
    assert.deepEqual(catalog.models(), ['priv-*'], 'before the first read, the pattern as configured');
    catalog.start();
    await catalog.settled();
    catalog.stop();
    assert.equal(lister.calls, 1);
    assert.deepEqual(catalog.models(), ['priv-a', 'priv-b']);
    assert.deepEqual(
      lines.map((l) => [l.level, l.channel, l.models]),
      [[DEBUG, 'up', 3]],
      'a success is one debug line',
    );
  });

  it('asks no lister for channels without globs, with discovery off, or of a type without a list', async () => {
    const asked: string[] = [];
    const lister = scripted(['x']);
    const channels = [
      channel('exact', { patterns: ['gpt-4o'] }),
      channel('off', { patterns: ['off-*'], modelsRefreshMs: 0 }),
      channel('mock', { type: 'mock', patterns: ['demo-*'] }),
    ];
    const catalog = new ModelCatalog(
      channels,
      (c) => {
        asked.push(c.name);
        return c.type === 'mock' ? undefined : lister;
      },
      capturingLogger().logger,
    );
    catalog.start();
    await catalog.settled();
    catalog.stop();
    assert.deepEqual(asked, ['mock'], 'only a discovering channel needs a lister');
    assert.equal(lister.calls, 0);
    assert.deepEqual(catalog.models(), ['demo-*', 'gpt-4o', 'off-*']);
  });

  it('reads again every models_refresh_ms and picks up a changed list', async () => {
    const lister = scripted(['m-1'], ['m-1', 'm-2'], ['m-2']);
    const catalog = new ModelCatalog([channel('up', { patterns: ['m-*'], modelsRefreshMs: 10 })], () => lister, capturingLogger().logger);
    catalog.start();
    try {
      await catalog.settled();
      assert.deepEqual(catalog.models(), ['m-1']);
      await until('the refreshed list', () => (catalog.models().join() === 'm-2' ? true : undefined), POLL);
      assert.ok(lister.calls >= 3);
    } finally {
      catalog.stop();
    }
  });

  it('keeps the last good list when a read fails, with one warn line naming the channel and the reason, never the key', async () => {
    const lister = scripted(['m-1', 'm-2'], new Error('HTTP 503'), ['m-3']);
    const { logger, lines } = capturingLogger();
    const up = channel('up', { patterns: ['m-*'], modelsRefreshMs: 10, keys: ['sk-secret-upstream-key'] });
    const catalog = new ModelCatalog([up], () => lister, logger);
    catalog.start();
    try {
      await catalog.settled();
      const warned = await until('the warn line', () => lines.find((l) => l.level === WARN), POLL);
      assert.deepEqual(catalog.models(), ['m-1', 'm-2'], 'the last good list stays');
      assert.equal(warned.channel, 'up');
      assert.equal(warned.reason, 'HTTP 503');
      assert.equal(lines.filter((l) => l.level === WARN).length, 1, 'one line for one failed read');
      assert.ok(!JSON.stringify(lines).includes('sk-secret-upstream-key'));
      await until('the next good list', () => (catalog.models().join() === 'm-3' ? true : undefined), POLL);
    } finally {
      catalog.stop();
    }
  });

  it('gives up a read after the channel timeout, aborting it, and says so', async () => {
    let seen: AbortSignal | undefined;
    const hanging: ModelLister = (_c, signal) => {
      seen = signal;
      return new Promise((_, reject) => signal.addEventListener('abort', () => reject(new Error('aborted'))));
    };
    const { logger, lines } = capturingLogger();
    const catalog = new ModelCatalog([channel('slow', { patterns: ['m-*'], timeoutMs: 30 })], () => hanging, logger);
    catalog.start();
    // The deadline's timer is unref'd (it must not hold a process open); polling keeps this test's loop alive.
    await until('the read to give up', () => (seen?.aborted === true ? true : undefined), POLL);
    await catalog.settled();
    catalog.stop();
    assert.deepEqual(
      lines.map((l) => [l.level, l.channel, l.reason]),
      [[WARN, 'slow', 'no answer within 30 ms']],
    );
    assert.deepEqual(catalog.models(), ['m-*']);
  });

  it('stop() aborts a read in progress and no timer fires afterwards, without a warn line', async () => {
    let calls = 0;
    let seen: AbortSignal | undefined;
    const lister: ModelLister = (_c, signal) => {
      calls++;
      seen = signal;
      return new Promise((_, reject) => signal.addEventListener('abort', () => reject(new Error('aborted'))));
    };
    const { logger, lines } = capturingLogger();
    const catalog = new ModelCatalog([channel('up', { patterns: ['m-*'], modelsRefreshMs: 5 })], () => lister, logger);
    catalog.start();
    catalog.stop();
    await catalog.settled();
    assert.equal(seen?.aborted, true);
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(calls, 1, 'no read after stop()');
    assert.deepEqual(lines, []);
    catalog.start();
    assert.equal(calls, 1, 'a stopped catalog does not start again');
  });

  it('seedFrom takes the previous lists of channels on the same upstream, and only those', async () => {
    const previous = new ModelCatalog(
      [
        channel('same', { patterns: ['s-*'] }),
        channel('moved', { patterns: ['m-*'] }),
        channel('rekeyed', { patterns: ['r-*'] }),
        channel('retyped', { patterns: ['t-*'] }),
        channel('now-exact', { patterns: ['e-*'] }),
      ],
      () => scripted(['s-1', 'm-1', 'r-1', 't-1', 'e-1']),
      capturingLogger().logger,
    );
    previous.start();
    await previous.settled();
    previous.stop();
    const never = scripted(['unused']);
    const next = new ModelCatalog(
      [
        channel('same', { patterns: ['s-*', 'm-*'] }),
        channel('moved', { patterns: ['m-*'], baseUrl: 'https://elsewhere.example.test' }),
        channel('rekeyed', { patterns: ['r-*'], keys: ['sk-new'] }),
        channel('retyped', { patterns: ['t-*'], type: 'anthropic' }),
        channel('now-exact', { patterns: ['e-1'] }),
        channel('new', { patterns: ['n-*'] }),
      ],
      () => never,
      capturingLogger().logger,
    );
    next.seedFrom(previous);
    assert.equal(never.calls, 0);
    // `same` keeps all it had listed, so its new pattern expands too.
    assert.deepEqual(next.models(), ['e-1', 'm-*', 'm-1', 'n-*', 'r-*', 's-1', 't-*']);
  });
});
