// Store URLs: relative sqlite paths resolved against a given folder, the filename read, and a URL shown without secrets.

import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { describeStoreUrl, parseSqliteUrl, resolveStoreUrl } from '../../../core/store/store-url.js';

describe('resolveStoreUrl', () => {
  it('resolves a relative sqlite path against the given folder, not the working directory', () => {
    assert.equal(resolveStoreUrl('sqlite:./data/gateway.db', '/etc/gw'), 'sqlite:/etc/gw/data/gateway.db');
    assert.equal(resolveStoreUrl('sqlite:gateway.db', '/etc/gw'), 'sqlite:/etc/gw/gateway.db');
    assert.equal(resolveStoreUrl('sqlite:../shared/gw.db', '/etc/gw'), 'sqlite:/etc/shared/gw.db');
  });

  it('leaves absolute paths, the in-memory database, an empty path and other schemes as they are', () => {
    assert.equal(resolveStoreUrl('sqlite:/var/lib/gw.db', '/etc/gw'), 'sqlite:/var/lib/gw.db');
    assert.equal(resolveStoreUrl('sqlite::memory:', '/etc/gw'), 'sqlite::memory:');
    assert.equal(resolveStoreUrl('sqlite:', '/etc/gw'), 'sqlite:');
    assert.equal(resolveStoreUrl('postgres://u:p@db/gw', '/etc/gw'), 'postgres://u:p@db/gw');
  });
});

describe('parseSqliteUrl', () => {
  it('gives better-sqlite3 a filename; a relative path given directly is taken from the working directory', () => {
    assert.equal(parseSqliteUrl('sqlite:/abs/path.db'), '/abs/path.db');
    assert.equal(parseSqliteUrl('sqlite::memory:'), ':memory:');
    assert.equal(parseSqliteUrl('sqlite:./data/gateway.db'), join(process.cwd(), 'data', 'gateway.db'));
    assert.equal(parseSqliteUrl('postgres://db/gw'), undefined);
    assert.throws(() => parseSqliteUrl('sqlite:'), /no path/);
  });
});

describe('describeStoreUrl', () => {
  it('shows a sqlite URL whole', () => {
    assert.equal(describeStoreUrl('sqlite:/var/lib/gw/gateway.db'), 'sqlite:/var/lib/gw/gateway.db');
    assert.equal(describeStoreUrl('sqlite::memory:'), 'sqlite::memory:');
  });

  it('never shows a password, in the user part or in the query', () => {
    const cases: [string, string][] = [
      ['postgres://gw:s3cret@db.internal:5432/gateway', 'postgres://gw:***@db.internal:5432/gateway'],
      ['postgresql://gw:p%40ss@db/gateway?sslmode=require', 'postgresql://gw:***@db/gateway?sslmode=require'],
      ['redis://:s3cret@cache:6379/0', 'redis://:***@cache:6379/0'],
      ['postgres://db/gateway?user=gw&password=s3cret', 'postgres://db/gateway?user=gw&password=***'],
      ['postgres://db/gateway?sslpassword=s3cret&auth_token=s3cret', 'postgres://db/gateway?sslpassword=***&auth_token=***'],
    ];
    for (const [url, shown] of cases) {
      assert.equal(describeStoreUrl(url), shown);
      assert.doesNotMatch(describeStoreUrl(url), /s3cret|p%40ss/);
    }
  });

  it('keeps a URL without secrets as it is', () => {
    assert.equal(describeStoreUrl('postgres://gw@db.internal/gateway'), 'postgres://gw@db.internal/gateway');
  });

  it('shows only the scheme of a URL whose password it cannot find', () => {
    assert.equal(describeStoreUrl('postgres:gw:s3cret@db/gateway'), 'postgres:***');
    assert.equal(describeStoreUrl('postgres://gw:s3cret@db:notaport/gateway'), 'postgres:***');
    assert.equal(describeStoreUrl('s3cret'), '(none)***');
  });
});
