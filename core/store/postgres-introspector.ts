// Kysely's PostgreSQL introspection reads every schema of the database, and names each one back to the server while
// it reads (`has_schema_privilege(name, ...)`): with one database holding many gateways' schemas (tenants, or test
// runs side by side), opening a store reads all their tables, and fails when one of those schemas is dropped
// meanwhile ("schema ... does not exist"). The migrator only asks whether its own tables exist in the schema the
// connection works in: this introspector answers for that schema alone.

import { sql, PostgresDialect, type ColumnMetadata, type DatabaseIntrospector, type DatabaseMetadata, type Kysely, type SchemaMetadata, type TableMetadata } from 'kysely';

interface ColumnRow {
  readonly table: string;
  readonly schema: string;
  readonly is_view: boolean;
  readonly column: string;
  readonly type: string;
  readonly not_null: boolean;
  readonly has_default: boolean;
}

class CurrentSchemaIntrospector implements DatabaseIntrospector {
  readonly #db: Kysely<unknown>;

  constructor(db: Kysely<unknown>) {
    this.#db = db;
  }

  async getSchemas(): Promise<SchemaMetadata[]> {
    const { rows } = await sql<{ name: string | null }>`select current_schema() as name`.execute(this.#db);
    return rows.flatMap((r) => (r.name === null ? [] : [{ name: r.name }]));
  }

  async getTables(): Promise<TableMetadata[]> {
    const { rows } = await sql<ColumnRow>`
      select c.relname as "table", n.nspname as "schema", c.relkind = 'v' as is_view, a.attname as "column",
             t.typname as "type", a.attnotnull as not_null, a.atthasdef as has_default
      from pg_catalog.pg_class c
      join pg_catalog.pg_namespace n on n.oid = c.relnamespace
      join pg_catalog.pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
      join pg_catalog.pg_type t on t.oid = a.atttypid
      where n.nspname = current_schema() and c.relkind in ('r', 'v', 'p')
      order by c.relname, a.attnum`.execute(this.#db);
    const tables = new Map<string, { name: string; schema: string; isView: boolean; columns: ColumnMetadata[] }>();
    for (const row of rows) {
      let table = tables.get(row.table);
      if (table === undefined) {
        table = { name: row.table, schema: row.schema, isView: row.is_view, columns: [] };
        tables.set(row.table, table);
      }
      table.columns.push({ name: row.column, dataType: row.type, isNullable: !row.not_null, hasDefaultValue: row.has_default, isAutoIncrementing: false });
    }
    return [...tables.values()];
  }

  async getMetadata(): Promise<DatabaseMetadata> {
    return { tables: await this.getTables() };
  }
}

/** PostgreSQL, introspected in the connection's current schema only. */
export class CurrentSchemaPostgresDialect extends PostgresDialect {
  override createIntrospector(db: Kysely<unknown>): DatabaseIntrospector {
    return new CurrentSchemaIntrospector(db);
  }
}
