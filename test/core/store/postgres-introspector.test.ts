// The store's PostgreSQL introspection sees the connection's own schema only: opening a store neither reads nor names
// the other schemas of the database (other gateways', other test files'), so one dropped meanwhile cannot fail it.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Kysely, sql } from 'kysely';
import pg from 'pg';
import { CurrentSchemaPostgresDialect } from '../../../core/store/postgres-introspector.js';
import { openStore } from '../../../core/store/open-store.js';
import { storeBackends } from '../../helpers/test-stores.js';
import { STORE_PARTS } from '../../../features/index.js';

const postgres = storeBackends().find((b) => b.name === 'postgres');

describe('PostgreSQL introspection in the current schema', { skip: postgres?.skip }, () => {
  const dbs: { readonly url: string; cleanup(): Promise<void> }[] = [];
  let mine: Kysely<unknown>;

  before(async () => {
    for (let i = 0; i < 2; i++) dbs.push(await (postgres as NonNullable<typeof postgres>).fresh());
    const [own, other] = dbs as [(typeof dbs)[0], (typeof dbs)[0]];
    // Another schema with tables of its own, and this one with the gateway's (migrated by openStore).
    const store = await openStore(other.url, STORE_PARTS);
    await store.close();
    mine = new Kysely<unknown>({ dialect: new CurrentSchemaPostgresDialect({ pool: new pg.Pool({ connectionString: own.url, max: 1 }) }) });
    await sql`create table own_table (id integer primary key, note text not null default '')`.execute(mine);
  });

  after(async () => {
    await mine?.destroy();
    for (const db of dbs) await db.cleanup();
  });

  it('lists the current schema\'s tables and columns, and no other schema\'s', async () => {
    const tables = await mine.introspection.getTables();
    assert.deepEqual(
      tables.map((t) => [t.name, t.isView, t.columns.map((c) => [c.name, c.dataType, c.isNullable, c.hasDefaultValue])]),
      [['own_table', false, [['id', 'int4', false, false], ['note', 'text', false, true]]]],
    );
    const [schema] = await mine.introspection.getSchemas();
    assert.equal(tables[0]?.schema, schema?.name);
  });

  it('a store opens, and migrates, while another schema of the database is dropped', async () => {
    const other = dbs[1] as (typeof dbs)[0];
    const dropped = other.cleanup();
    const store = await openStore((dbs[0] as (typeof dbs)[0]).url, STORE_PARTS);
    await dropped;
    assert.deepEqual(await store.listUsage({ limit: 1 }), []);
    await store.close();
  });
});
