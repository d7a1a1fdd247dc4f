// Reads a gateway's store from a test, under the gateway's feet: one SQL query against the database a store URL names
// (SQLite read-only, or PostgreSQL with the URL's search_path), for state no API shows (the instances' holds); or one
// statement that changes it (a test tampering with the books).

import Database from 'better-sqlite3';
import pg from 'pg';

/** The rows `sql` selects from the store at `url` (write it in SQL both SQLite and PostgreSQL read alike). */
export async function selectRows<T>(url: string, sql: string): Promise<T[]> {
  if (url.startsWith('sqlite:')) {
    const db = new Database(url.slice('sqlite:'.length), { readonly: true });
    try {
      return db.prepare(sql).all() as T[];
    } finally {
      db.close();
    }
  }
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql)).rows as T[];
  } finally {
    await client.end();
  }
}

/** Runs one statement that changes the store at `url` (a test's tampering, to see the audit catch it). */
export async function runStatement(url: string, sql: string): Promise<void> {
  if (url.startsWith('sqlite:')) {
    const db = new Database(url.slice('sqlite:'.length));
    try {
      db.prepare(sql).run();
    } finally {
      db.close();
    }
    return;
  }
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}
