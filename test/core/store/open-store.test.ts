import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import BetterSqlite3 from 'better-sqlite3';
import { openStore } from '../../../core/store/open-store.js';
import { makeTempDir } from './store-fixtures.js';

describe('openStore', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  beforeEach(async () => ({ dir, cleanup } = await makeTempDir()));
  afterEach(() => cleanup());

  it('creates the parent directory, applies migrations once, and turns WAL on', async () => {
    const file = join(dir, 'nested', 'deeper', 'gateway.db');
    const first = await openStore(`sqlite:${file}`);
    await first.migrate();
    await first.close();
    assert.ok(existsSync(file));

    const second = await openStore(`sqlite:${file}`);
    await second.migrate();
    assert.equal(await second.countUsage(), 0);
    await second.close();

    const raw = new BetterSqlite3(file, { readonly: true });
    try {
      const names = raw.prepare('select name from kysely_migration order by name').pluck().all();
      assert.deepEqual(names, ['0001_init', '0002_cache_write_tokens', '0003_image_usage', '0004_money']);
      assert.equal(raw.pragma('journal_mode', { simple: true }), 'wal');
      const tables = raw
        .prepare("select name from sqlite_master where type = 'table' and name in ('api_keys', 'usage_records')")
        .pluck()
        .all();
      assert.deepEqual([...tables].sort(), ['api_keys', 'usage_records']);
    } finally {
      raw.close();
    }
  });

  it('names the migration that failed', async () => {
    const file = join(dir, 'clash.db');
    const raw = new BetterSqlite3(file);
    raw.exec('create table api_keys (unrelated text)');
    raw.close();
    await assert.rejects(openStore(`sqlite:${file}`), /store migration "0001_init" failed: .*api_keys/);
  });

  it('opens an in-memory store', async () => {
    const store = await openStore('sqlite::memory:');
    assert.equal(await store.countUsage(), 0);
    await store.close();
  });

  it('rejects an unknown scheme, naming the supported ones without echoing the URL', async () => {
    await assert.rejects(openStore('mysql://user:secret@db/gw'), (err: unknown) => {
      assert.ok(err instanceof Error);
      assert.match(err.message, /mysql:/);
      assert.match(err.message, /postgres:/);
      assert.match(err.message, /sqlite:/);
      assert.doesNotMatch(err.message, /secret/);
      return true;
    });
  });

  it('rejects a sqlite URL without a path', async () => {
    await assert.rejects(openStore('sqlite:'), /no path/);
  });
});
