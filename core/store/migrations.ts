// Versioned schema migrations, kept in code so a single build carries its schema; applied by Kysely's Migrator.
import { Migrator, type Kysely, type Migration, type MigrationProvider } from 'kysely';
import type { Database } from './schema.js';

/** The dialects the migrations know how to spell; only the auto-increment key differs between them. */
export type StoreDialect = 'sqlite' | 'postgres';

function buildMigrations(dialect: StoreDialect): Record<string, Migration> {
  return {
    '0001_init': {
      // Migrations see the schema as it was then, not today's Database type, hence Kysely<unknown>.
      async up(db: Kysely<unknown>): Promise<void> {
        await db.schema
          .createTable('api_keys')
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('name', 'text', (c) => c.notNull().unique())
          .addColumn('group_name', 'text', (c) => c.notNull())
          .addColumn('prefix', 'text', (c) => c.notNull())
          .addColumn('hash', 'text', (c) => c.notNull().unique())
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          .addColumn('revoked_at', 'bigint')
          .execute();

        await db.schema
          .createTable('usage_records')
          .addColumn('id', dialect === 'sqlite' ? 'integer' : 'bigint', (c) =>
            // SQLite only auto-increments an INTEGER PRIMARY KEY; PostgreSQL uses an identity column.
            dialect === 'sqlite' ? c.primaryKey().autoIncrement() : c.primaryKey().generatedAlwaysAsIdentity(),
          )
          .addColumn('request_id', 'text', (c) => c.notNull())
          .addColumn('ts', 'bigint', (c) => c.notNull())
          .addColumn('key_id', 'text', (c) => c.notNull())
          .addColumn('key_name', 'text', (c) => c.notNull())
          .addColumn('group_name', 'text', (c) => c.notNull())
          .addColumn('route', 'text', (c) => c.notNull())
          .addColumn('model', 'text', (c) => c.notNull())
          .addColumn('upstream_model', 'text')
          .addColumn('channel', 'text')
          .addColumn('status', 'integer', (c) => c.notNull())
          .addColumn('error_code', 'text')
          .addColumn('stream', 'integer', (c) => c.notNull())
          .addColumn('prompt_tokens', 'integer', (c) => c.notNull())
          .addColumn('completion_tokens', 'integer', (c) => c.notNull())
          .addColumn('cached_tokens', 'integer', (c) => c.notNull())
          .addColumn('reasoning_tokens', 'integer', (c) => c.notNull())
          .addColumn('latency_ms', 'integer', (c) => c.notNull())
          .addColumn('ttft_ms', 'integer')
          .addColumn('aborted', 'integer', (c) => c.notNull())
          .execute();

        await db.schema.createIndex('usage_records_ts_idx').on('usage_records').columns(['ts', 'id']).execute();
        await db.schema.createIndex('usage_records_key_id_idx').on('usage_records').column('key_id').execute();
        await db.schema.createIndex('usage_records_request_id_idx').on('usage_records').column('request_id').execute();
      },
    },
    '0002_cache_write_tokens': {
      // Anthropic bills prompt-cache writes apart from reads; records before this migration had none.
      async up(db: Kysely<unknown>): Promise<void> {
        await db.schema
          .alterTable('usage_records')
          .addColumn('cache_write_tokens', 'integer', (c) => c.notNull().defaultTo(0))
          .execute();
      },
    },
    '0003_image_usage': {
      // The image endpoints bill by image, and the GPT image models by tokens split into text and image.
      async up(db: Kysely<unknown>): Promise<void> {
        for (const column of ['images', 'input_image_tokens', 'output_image_tokens']) {
          await db.schema.alterTable('usage_records').addColumn(column, 'integer').execute();
        }
      },
    },
  };
}

function createMigrationProvider(dialect: StoreDialect): MigrationProvider {
  const migrations = buildMigrations(dialect);
  return {
    getMigrations: () => Promise.resolve(migrations),
  };
}

/** Applies pending migrations; a no-op when the schema is current. Throws naming the migration that failed. */
export async function migrateToLatest(db: Kysely<Database>, dialect: StoreDialect): Promise<void> {
  const migrator = new Migrator({ db, provider: createMigrationProvider(dialect) });
  const { error, results } = await migrator.migrateToLatest();
  if (error === undefined) return;
  const failed = results?.find((r) => r.status === 'Error')?.migrationName;
  const detail = error instanceof Error ? error.message : String(error);
  const what = failed === undefined ? 'store migration failed' : `store migration "${failed}" failed`;
  throw new Error(`${what}: ${detail}`, { cause: error });
}
