import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import BetterSqlite3 from 'better-sqlite3';
import { openStore } from '../../../core/store/open-store.js';
import { makeTempDir, makeUsage } from './store-fixtures.js';
import { STORE_PARTS } from '../../../features/index.js';

describe('openStore', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  beforeEach(async () => ({ dir, cleanup } = await makeTempDir()));
  afterEach(() => cleanup());

  it('creates the parent directory, applies migrations once, and turns WAL on', async () => {
    const file = join(dir, 'nested', 'deeper', 'gateway.db');
    const first = await openStore(`sqlite:${file}`, STORE_PARTS);
    await first.migrate();
    await first.close();
    assert.ok(existsSync(file));

    const second = await openStore(`sqlite:${file}`, STORE_PARTS);
    await second.migrate();
    assert.equal(await second.countUsage(), 0);
    await second.close();

    const raw = new BetterSqlite3(file, { readonly: true });
    try {
      const names = raw.prepare('select name from kysely_migration order by name').pluck().all();
      assert.deepEqual(names, ['0001_init', '0002_cache_write_tokens', '0003_image_usage', '0004_money', '0005_one_record_per_request', '0006_key_limits', '0007_key_access', '0008_usage_hourly', '0009_console', '0010_console_reads', '0011_account_key_groups', '0012_assets', '0013_video_tasks', '0014_usage_pruned', '0015_asset_group_slots', '0016_video_seconds_renamed', '0017_usage_seconds', '0020_request_trace', '0021_console_session_details', '0022_webhook_events', '0023_record_subject', '0024_topup_codes', '0025_channel_overrides', '0026_key_spend_period', '0027_account_max_spend', '0028_period_spend_audit', '0029_key_tokens_per_period']);
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

  it('migration 0005 keeps the first of a request\'s records written twice before it, then refuses a second', async () => {
    const file = join(dir, 'before-0005.db');
    const store = await openStore(`sqlite:${file}`, STORE_PARTS);
    await store.insertUsage([makeUsage({ requestId: 'twice', ts: 1 }), makeUsage({ requestId: 'once', ts: 2 })]);
    await store.close();
    // The schema as 0004 left it: a plain index on request_id (and a partial unique one for priced records), so
    // an unpriced record retried by the usage writer could be there twice.
    const raw = new BetterSqlite3(file);
    raw.exec(`drop index usage_records_request_id_key;
      create index usage_records_request_id_idx on usage_records (request_id);
      create unique index usage_records_priced_request_idx on usage_records (request_id) where cost is not null;
      delete from kysely_migration where name >= '0005_one_record_per_request';`);
    raw.prepare('insert into usage_records (request_id, ts, key_id, key_name, group_name, route, model, status, stream, prompt_tokens, completion_tokens, cached_tokens, reasoning_tokens, latency_ms, aborted) select request_id, 3, key_id, key_name, group_name, route, model, 500, stream, prompt_tokens, completion_tokens, cached_tokens, reasoning_tokens, latency_ms, aborted from usage_records where request_id = ?').run('twice');
    assert.equal(raw.prepare('select count(*) from usage_records').pluck().get(), 3, 'written twice before the migration');
    raw.close();

    const migrated = await openStore(`sqlite:${file}`, STORE_PARTS);
    try {
      assert.equal(await migrated.countUsage(), 2);
      assert.deepEqual(
        (await migrated.listUsage({ requestId: 'twice' })).map((r) => [r.ts, r.status]),
        [[1, 200]],
      );
      await migrated.insertUsage([makeUsage({ requestId: 'twice', ts: 4 })]);
      assert.equal(await migrated.countUsage(), 2);
    } finally {
      await migrated.close();
    }
  });

  it('migration 0005 runs again after a crash cut it short (SQLite migrates outside a transaction)', async () => {
    const file = join(dir, 'cut-0005.db');
    const store = await openStore(`sqlite:${file}`, STORE_PARTS);
    await store.close();
    // Cut after its drops, before its record: the old indexes gone, the new one maybe made, 0005 not recorded.
    const raw = new BetterSqlite3(file);
    raw.exec(`create index usage_records_request_id_idx on usage_records (request_id);
      delete from kysely_migration where name >= '0005_one_record_per_request';
      alter table api_keys drop column concurrency_limit;
      alter table api_keys drop column allowed_ips;`); // and 0006 and 0007 cut before their last column
    raw.close();
    const again = await openStore(`sqlite:${file}`, STORE_PARTS);
    try {
      await again.insertUsage([makeUsage({ requestId: 'after-crash' }), makeUsage({ requestId: 'after-crash' })]);
      assert.equal(await again.countUsage(), 1);
    } finally {
      await again.close();
    }
  });

  it('migration 0008 sums the records already there into the hourly table', async () => {
    const file = join(dir, 'before-0008.db');
    const store = await openStore(`sqlite:${file}`, STORE_PARTS);
    const hour = 1_700_000_000_000 - (1_700_000_000_000 % 3_600_000);
    await store.insertUsage([
      makeUsage({ requestId: 'old-1', ts: hour + 1 }),
      makeUsage({ requestId: 'old-2', ts: hour + 2, status: 500 }),
      makeUsage({ requestId: 'old-3', ts: hour + 3_600_000, keyId: 'key-2', channel: null }),
    ]);
    const written = await store.hourlyUsage({ from: 0, to: 2e12 });
    await store.close();
    // As a store before 0008 had it: the records, no sums.
    const raw = new BetterSqlite3(file);
    raw.exec(`drop table usage_hourly; delete from kysely_migration where name >= '0008_usage_hourly';`);
    raw.close();
    const migrated = await openStore(`sqlite:${file}`, STORE_PARTS);
    try {
      const summed = await migrated.hourlyUsage({ from: 0, to: 2e12 });
      assert.deepEqual(summed, written, 'the same sums as written with the records');
      assert.deepEqual(
        summed.map((r) => [r.keyId, r.requests, r.errors, r.channel]),
        [
          ['key-1', 2, 1, 'openai-main'],
          ['key-2', 1, 0, null],
        ],
      );
    } finally {
      await migrated.close();
    }
  });

  it('names the migration that failed', async () => {
    const file = join(dir, 'clash.db');
    const raw = new BetterSqlite3(file);
    raw.exec('create table api_keys (unrelated text)');
    raw.close();
    await assert.rejects(openStore(`sqlite:${file}`, STORE_PARTS), /store migration "0001_init" failed: .*api_keys/);
  });

  it('opens an in-memory store', async () => {
    const store = await openStore('sqlite::memory:', STORE_PARTS);
    assert.equal(await store.countUsage(), 0);
    await store.close();
  });

  it('rejects an unknown scheme, naming the supported ones without echoing the URL', async () => {
    await assert.rejects(openStore('mysql://user:secret@db/gw', STORE_PARTS), (err: unknown) => {
      assert.ok(err instanceof Error);
      assert.match(err.message, /mysql:/);
      assert.match(err.message, /postgres:/);
      assert.match(err.message, /sqlite:/);
      assert.doesNotMatch(err.message, /secret/);
      return true;
    });
  });

  it('rejects a sqlite URL without a path', async () => {
    await assert.rejects(openStore('sqlite:', STORE_PARTS), /no path/);
  });
});
