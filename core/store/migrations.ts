// Versioned schema migrations, kept in code so a single build carries its schema; applied by Kysely's Migrator.
import { Migrator, sql, type ColumnDefinitionBuilder, type Kysely, type Migration, type MigrationProvider } from 'kysely';
import type { Database } from './schema.js';
import type { StorePart } from './store-part.js';

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
    '0004_money': {
      // Accounts, their append-only ledger, the balance held by instances (holds), what each key has spent, and
      // the price versions costs were computed with. Amounts are BIGINT nano-units (core/money/decimal.ts).
      async up(db: Kysely<unknown>): Promise<void> {
        await db.schema
          .createTable('accounts')
          .addColumn('name', 'text', (c) => c.primaryKey())
          .addColumn('description', 'text')
          // The sum of the account's ledger, kept with every entry in the same transaction (the audit checks it).
          .addColumn('balance', 'bigint', (c) => c.notNull().defaultTo(0))
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          .execute();
        await db.schema
          .createTable('ledger')
          .addColumn('id', dialect === 'sqlite' ? 'integer' : 'bigint', (c) =>
            dialect === 'sqlite' ? c.primaryKey().autoIncrement() : c.primaryKey().generatedAlwaysAsIdentity(),
          )
          .addColumn('account', 'text', (c) => c.notNull().references('accounts.name'))
          .addColumn('kind', 'text', (c) => c.notNull())
          .addColumn('amount', 'bigint', (c) => c.notNull())
          .addColumn('idempotency_key', 'text', (c) => c.notNull().unique())
          .addColumn('request_id', 'text')
          .addColumn('key_id', 'text')
          .addColumn('note', 'text')
          .addColumn('ts', 'bigint', (c) => c.notNull())
          .execute();
        await db.schema.createIndex('ledger_account_idx').on('ledger').columns(['account', 'id']).execute();
        await db.schema
          .createTable('holds')
          .addColumn('id', 'text', (c) => c.primaryKey())
          // 'account:<name>' or 'key:<id>'.
          .addColumn('budget', 'text', (c) => c.notNull())
          .addColumn('amount', 'bigint', (c) => c.notNull())
          .addColumn('owner', 'text', (c) => c.notNull())
          .addColumn('expires_at', 'bigint', (c) => c.notNull())
          .execute();
        await db.schema.createIndex('holds_budget_idx').on('holds').columns(['budget', 'expires_at']).execute();
        await db.schema.createIndex('holds_owner_idx').on('holds').column('owner').execute();
        await db.schema
          .createTable('key_spend')
          .addColumn('key_id', 'text', (c) => c.primaryKey())
          .addColumn('spent', 'bigint', (c) => c.notNull())
          .execute();
        await db.schema
          .createTable('price_versions')
          .addColumn('version', 'text', (c) => c.primaryKey())
          .addColumn('document', 'text', (c) => c.notNull())
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          .execute();
        await db.schema.alterTable('usage_records').addColumn('cost', 'bigint').execute();
        await db.schema.alterTable('usage_records').addColumn('price_version', 'text').execute();
        await db.schema.alterTable('usage_records').addColumn('account', 'text').execute();
        await db.schema.alterTable('usage_records').addColumn('usage_estimated', 'integer').execute();
        // What a key's account spent over some days (GET /v1/dashboard/billing/usage) reads those days' records only.
        await db.schema.createIndex('usage_records_account_ts_idx').on('usage_records').columns(['account', 'ts']).execute();
        // A priced request is recorded (and charged) once, however often its batch is written: a batch whose
        // commit was lost on the way back is retried, and its records are then found here. Records without a cost
        // (those before this migration among them) need not be unique.
        await db.schema
          .createIndex('usage_records_priced_request_idx')
          .unique()
          .on('usage_records')
          .column('request_id')
          .where(sql.ref('cost'), 'is not', null)
          .execute();
        await db.schema.alterTable('api_keys').addColumn('account', 'text').execute();
        await db.schema.alterTable('api_keys').addColumn('max_spend', 'bigint').execute();
      },
    },
    '0005_one_record_per_request': {
      // Every request has one usage record: one unique index on request_id replaces the plain one and the priced
      // records' partial one, so a retried batch (its commit lost on the way back) writes no record twice, priced
      // or not, and a priced record pays for one index on request_id instead of two. A record already written
      // twice (by such a retry, before this migration) is a double count: the later copies go.
      async up(db: Kysely<unknown>): Promise<void> {
        // Each row looks up an earlier copy through the request_id index (still there): linear, where NOT IN over a
        // GROUP BY can turn quadratic on PostgreSQL once the subquery outgrows its hash memory.
        await sql`delete from usage_records where exists (select 1 from usage_records earlier where earlier.request_id = usage_records.request_id and earlier.id < usage_records.id)`.execute(
          db,
        );
        // IF [NOT] EXISTS: SQLite runs migrations outside a transaction, so one cut short by a crash runs again.
        await db.schema.dropIndex('usage_records_priced_request_idx').ifExists().execute();
        await db.schema.dropIndex('usage_records_request_id_idx').ifExists().execute();
        await db.schema.createIndex('usage_records_request_id_key').ifNotExists().unique().on('usage_records').column('request_id').execute();
      },
    },
    '0006_key_limits': {
      // A run-time key's own rate limits (keys create --rpm ..., POST /admin/keys {limits}), over its group's.
      async up(db: Kysely<unknown>): Promise<void> {
        await addMissingColumns(db, dialect, 'api_keys', [
          ['rpm_limit', 'integer'],
          ['tpm_limit', 'integer'],
          ['concurrency_limit', 'integer'],
        ]);
      },
    },
    '0007_key_access': {
      // What a run-time key may do, edited after its creation (keys update, PATCH /admin/keys/{id}, the console):
      // an expiry, enabled or not, a model allow-list within its group's, an IP allow-list.
      async up(db: Kysely<unknown>): Promise<void> {
        await addMissingColumns(db, dialect, 'api_keys', [
          ['expires_at', 'bigint'],
          ['disabled', 'integer'],
          ['allowed_models', 'text'],
          ['allowed_ips', 'text'],
        ]);
      },
    },
    '0008_usage_hourly': {
      // Usage summed per hour, account, key, model and channel (store/usage-hourly.ts), written with the records:
      // dashboards and charts read this, not millions of records. The records already there are summed in.
      async up(db: Kysely<unknown>): Promise<void> {
        const sum = (c: ColumnDefinitionBuilder): ColumnDefinitionBuilder => c.notNull().defaultTo(0);
        await db.schema
          .createTable('usage_hourly')
          .ifNotExists()
          .addColumn('hour', 'bigint', (c) => c.notNull())
          .addColumn('account', 'text', (c) => c.notNull())
          .addColumn('key_id', 'text', (c) => c.notNull())
          .addColumn('model', 'text', (c) => c.notNull())
          .addColumn('channel', 'text', (c) => c.notNull())
          .addColumn('requests', 'bigint', sum)
          .addColumn('errors', 'bigint', sum)
          .addColumn('prompt_tokens', 'bigint', sum)
          .addColumn('completion_tokens', 'bigint', sum)
          .addColumn('cached_tokens', 'bigint', sum)
          .addColumn('cache_write_tokens', 'bigint', sum)
          .addColumn('reasoning_tokens', 'bigint', sum)
          .addColumn('images', 'bigint', sum)
          .addColumn('cost', 'bigint', sum)
          .addColumn('latency_ms', 'bigint', sum)
          .addPrimaryKeyConstraint('usage_hourly_pk', ['hour', 'account', 'key_id', 'model', 'channel'])
          .execute();
        // An account's or a key's hours (a dashboard's range): the primary key leads with the hour instead.
        await db.schema.createIndex('usage_hourly_account_hour_idx').ifNotExists().on('usage_hourly').columns(['account', 'hour']).execute();
        await db.schema.createIndex('usage_hourly_key_hour_idx').ifNotExists().on('usage_hourly').columns(['key_id', 'hour']).execute();
        // A rerun (SQLite migrates outside a transaction) starts the sums again.
        await sql`delete from usage_hourly`.execute(db);
        await sql`insert into usage_hourly (hour, account, key_id, model, channel, requests, errors, prompt_tokens, completion_tokens, cached_tokens, cache_write_tokens, reasoning_tokens, images, cost, latency_ms)
          select (ts / 3600000) * 3600000, coalesce(account, ''), key_id, model, coalesce(channel, ''), count(*),
            sum(case when status >= 400 then 1 else 0 end), sum(prompt_tokens), sum(completion_tokens), sum(cached_tokens),
            sum(coalesce(cache_write_tokens, 0)), sum(reasoning_tokens), sum(coalesce(images, 0)), sum(coalesce(cost, 0)), sum(latency_ms)
          from usage_records group by (ts / 3600000) * 3600000, coalesce(account, ''), key_id, model, coalesce(channel, '')`.execute(db);
      },
    },
    '0009_console': {
      // The console's users (an account's, or the operator's), their server-side sessions and one-time password links.
      async up(db: Kysely<unknown>): Promise<void> {
        await db.schema
          .createTable('console_users')
          .ifNotExists()
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('name', 'text', (c) => c.notNull().unique())
          .addColumn('account', 'text')
          .addColumn('password_hash', 'text')
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          .addColumn('disabled', 'integer')
          .execute();
        await db.schema
          .createTable('console_sessions')
          .ifNotExists()
          .addColumn('token_hash', 'text', (c) => c.primaryKey())
          .addColumn('user_id', 'text', (c) => c.notNull())
          .addColumn('csrf', 'text', (c) => c.notNull())
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          .addColumn('expires_at', 'bigint', (c) => c.notNull())
          .addColumn('ended_at', 'bigint')
          .execute();
        // Ending every session of a user (a new password, a disabled user) finds them by user.
        await db.schema.createIndex('console_sessions_user_idx').ifNotExists().on('console_sessions').column('user_id').execute();
        await db.schema
          .createTable('console_links')
          .ifNotExists()
          .addColumn('token_hash', 'text', (c) => c.primaryKey())
          .addColumn('user_id', 'text', (c) => c.notNull())
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          .addColumn('expires_at', 'bigint', (c) => c.notNull())
          .addColumn('used_at', 'bigint')
          .execute();
      },
    },
    '0010_console_reads': {
      // The console's usage log pages by (ts, id) within one key or account, and finds a key's last use: indexes that
      // lead with the key or account and end with the order. And an operator may disable an account (its keys are
      // refused until it is enabled again).
      async up(db: Kysely<unknown>): Promise<void> {
        await db.schema.createIndex('usage_records_key_ts_idx').ifNotExists().on('usage_records').columns(['key_id', 'ts', 'id']).execute();
        await db.schema.dropIndex('usage_records_key_id_idx').ifExists().execute();
        await addMissingColumns(db, dialect, 'accounts', [['disabled', 'integer']]);
      },
    },
    '0011_account_key_groups': {
      // The groups an account's users make keys in, set in the console (gateway.yaml's accounts[].groups add to them).
      async up(db: Kysely<unknown>): Promise<void> {
        await addMissingColumns(db, dialect, 'accounts', [['key_groups', 'text']]);
      },
    },
    '0014_usage_pruned': {
      // usage.retention_days: what the pruned records cost, per account, so that the audit still balances each
      // account's charges against the costs of its records (those kept, and those pruned).
      async up(db: Kysely<unknown>): Promise<void> {
        await db.schema
          .createTable('usage_pruned')
          .ifNotExists()
          .addColumn('account', 'text', (c) => c.primaryKey())
          .addColumn('cost', 'bigint', (c) => c.notNull())
          .addColumn('records', 'bigint', (c) => c.notNull())
          .execute();
      },
    },
    '0017_usage_seconds': {
      // Seconds of timed output a record is charged for at per_second (0016 renamed the column where it was).
      async up(db: Kysely<unknown>): Promise<void> {
        await addMissingColumns(db, dialect, 'usage_records', [['seconds', 'integer']]);
      },
    },
    '0020_request_trace': {
      // A request's detail in the console: its upstream attempts (only when there was more than one, or a failure),
      // the error message its client got, and the charge that covers it (the request id naming the ledger charge:
      // ledger.request_id), so a charge lists its requests and a request finds its charge. Records before this
      // migration have none of them. The charge's requests are found by an index of the charged records only.
      async up(db: Kysely<unknown>): Promise<void> {
        await addMissingColumns(db, dialect, 'usage_records', [
          ['attempts', 'text'],
          ['error_message', 'text'],
          ['charge_id', 'text'],
        ]);
        await db.schema
          .createIndex('usage_records_charge_idx')
          .ifNotExists()
          .on('usage_records')
          .column('charge_id')
          .where(sql.ref('charge_id'), 'is not', null)
          .execute();
      },
    },
    '0023_record_subject': {
      // What a request made or acted on (`<kind>:<id>`: a task it started, a thing it stored), set by its route's handler: the
      // console's request detail links it. Null for the others, and for records before it.
      async up(db: Kysely<unknown>): Promise<void> {
        await addMissingColumns(db, dialect, 'usage_records', [['subject', 'text']]);
      },
    },
    '0028_period_spend_audit': {
      // A periodic cap's spend row (`<id>@<period start>` in key_spend) checked by the audit: each usage record names
      // the period rows its charge added to (spend_id), and what records pruned by usage.retention_days cost stays
      // per row (usage_pruned_spend). Rows there before this migration were added to by records that name none: their
      // spend so far is put in usage_pruned_spend, so each row is exact from here on.
      async up(db: Kysely<unknown>): Promise<void> {
        await addMissingColumns(db, dialect, 'usage_records', [['spend_id', 'text']]);
        await db.schema
          .createTable('usage_pruned_spend')
          .ifNotExists()
          .addColumn('spend_id', 'text', (c) => c.primaryKey())
          .addColumn('cost', 'bigint', (c) => c.notNull())
          .execute();
        await sql`insert into usage_pruned_spend (spend_id, cost) select key_id, spent from key_spend where key_id like '%@%' on conflict (spend_id) do nothing`.execute(db);
      },
    },
    '0021_console_session_details': {
      // A user's own list of their sessions (issue 44): a public id to end one by (the token's digest stays the key,
      // never shown), where it signed in from and when it was last used. Sessions made before have none of these
      // and end within their 12 hours; they get an id here so the list can end them too.
      async up(db: Kysely<unknown>): Promise<void> {
        await addMissingColumns(db, dialect, 'console_sessions', [['id', 'text'], ['address', 'text'], ['user_agent', 'text'], ['last_seen_at', 'bigint']]);
        const fresh = dialect === 'sqlite' ? sql`'cs_' || lower(hex(randomblob(12)))` : sql`'cs_' || substr(md5(random()::text || token_hash), 1, 24)`;
        await sql`update console_sessions set id = ${fresh} where id is null`.execute(db);
        await db.schema.createIndex('console_sessions_id_idx').ifNotExists().on('console_sessions').column('id').execute();
      },
    },
    '0026_key_spend_period': {
      // A run-time key's max_spend may reset each calendar day, week or month (issue 45), as a declared key's does:
      // the period, and the zone whose midnight starts it (null: UTC). Keys before it keep a lifetime cap.
      async up(db: Kysely<unknown>): Promise<void> {
        await addMissingColumns(db, dialect, 'api_keys', [['spend_period', 'text'], ['spend_timezone', 'text']]);
      },
    },
    '0027_account_max_spend': {
      // An account's max_spend over all its keys together (issue 45), for life or per calendar period, set on an
      // account made at run time (gateway.yaml's are the file's). Its spend is counted as a key's is, in key_spend:
      // `account:<name>` for life (every charge adds to it from now on; here it starts from the account's charges so
      // far), `account:<name>@<period start>` per period. No key id starts with `account:` (config:, key_).
      async up(db: Kysely<unknown>): Promise<void> {
        await addMissingColumns(db, dialect, 'accounts', [['max_spend', 'bigint'], ['spend_period', 'text'], ['spend_timezone', 'text']]);
        await sql`insert into key_spend (key_id, spent) select 'account:' || account, cast(-sum(amount) as bigint) from ledger where kind = 'charge' group by account on conflict (key_id) do nothing`.execute(db);
      },
    },
    '0029_key_tokens_per_period': {
      // A run-time key's own limits.tokens_per_day (issue 45), as a declared key's: its tokens, its period (null:
      // a day) and the zone whose midnight starts it (null: UTC). Counted by the limiter, not in the store.
      async up(db: Kysely<unknown>): Promise<void> {
        await addMissingColumns(db, dialect, 'api_keys', [['tpd_limit', 'bigint'], ['tpd_period', 'text'], ['tpd_timezone', 'text']]);
      },
    },
  };
}

/**
 * Adds the columns `table` lacks. SQLite migrates outside a transaction, so a migration cut short by a crash runs
 * again and finds some of its columns there (its introspection sees the one database); PostgreSQL's introspection
 * would see every schema's table of that name, so it is asked IF NOT EXISTS instead.
 */
export async function addMissingColumns(db: Kysely<unknown>, dialect: StoreDialect, table: string, columns: readonly (readonly [string, 'integer' | 'bigint' | 'text'])[]): Promise<void> {
  if (dialect === 'postgres') {
    for (const [name, type] of columns) await sql`alter table ${sql.table(table)} add column if not exists ${sql.ref(name)} ${sql.raw(type)}`.execute(db);
    return;
  }
  const present = new Set((await db.introspection.getTables()).find((t) => t.name === table)?.columns.map((c) => c.name));
  for (const [name, type] of columns) if (!present.has(name)) await db.schema.alterTable(table).addColumn(name, type).execute();
}

/**
 * Renames `from` to `to` when the table has `from` and not yet `to` (a SQLite migration cut short runs again and finds
 * it renamed; a database restored from before the rename and migrated again finds both, and keeps its `to`).
 */
export async function renameColumnIfPresent(db: Kysely<unknown>, dialect: StoreDialect, table: string, from: string, to: string): Promise<void> {
  const columns = dialect === 'postgres'
    ? new Set((await sql<{ name: string }>`select column_name as name from information_schema.columns where table_schema = current_schema() and table_name = ${table}`.execute(db)).rows.map((r) => r.name))
    : new Set((await db.introspection.getTables()).find((t) => t.name === table)?.columns.map((c) => c.name));
  if (columns.has(from) && !columns.has(to)) await db.schema.alterTable(table).renameColumn(from, to).execute();
}

/** Core's migrations and the features' (store-part.ts), one history ordered by name; a name twice is refused. */
function createMigrationProvider(dialect: StoreDialect, parts: readonly StorePart<unknown>[]): MigrationProvider {
  const migrations = buildMigrations(dialect);
  for (const part of parts) {
    for (const [name, migration] of Object.entries(part.migrations(dialect))) {
      if (name in migrations) throw new Error(`store part ${part.slot.name}: a migration named "${name}" exists already`);
      migrations[name] = migration;
    }
  }
  return {
    getMigrations: () => Promise.resolve(migrations),
  };
}

/** Applies pending migrations; a no-op when the schema is current. Throws naming the migration that failed. */
export async function migrateToLatest(db: Kysely<Database>, dialect: StoreDialect, parts: readonly StorePart<unknown>[]): Promise<void> {
  // PostgreSQL: Kysely looks for its own tables in every schema it can see, so one database holding the gateway in
  // several schemas (one per test, or per tenant) would find another's and never make its own; name the schema
  // the connection works in (its search_path's first).
  const migrationTableSchema = dialect === 'postgres' ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(db)).rows[0]?.schema : undefined;
  const migrator = new Migrator({ db, provider: createMigrationProvider(dialect, parts), ...(migrationTableSchema === undefined ? {} : { migrationTableSchema }) });
  const { error, results } = await migrator.migrateToLatest();
  if (error === undefined) return;
  const failed = results?.find((r) => r.status === 'Error')?.migrationName;
  const detail = error instanceof Error ? error.message : String(error);
  const what = failed === undefined ? 'store migration failed' : `store migration "${failed}" failed`;
  throw new Error(`${what}: ${detail}`, { cause: error });
}
