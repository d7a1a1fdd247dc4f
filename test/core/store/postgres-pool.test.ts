// PostgreSQL cut under a connection in use: the query on it fails, the process lives on (a crash found by the chaos
// run: pg leaves a checked-out connection's 'error' event unheard), and the pool serves again once it is back.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { postgresPool } from '../../../core/store/postgres-store.js';
import { until, withDeadline } from '../../helpers/poll.js';
import { startTcpProxy, type TcpProxy } from '../../helpers/tcp-proxy.js';
import { storeBackends } from '../../helpers/test-stores.js';

const postgres = storeBackends().find((b) => b.name === 'postgres');

describe('the PostgreSQL pool when the connection is cut', { skip: postgres?.skip }, () => {
  let db: { readonly url: string; cleanup(): Promise<void> };
  let proxy: TcpProxy;
  let url: string;
  before(async () => {
    db = await (postgres as NonNullable<typeof postgres>).fresh();
    const target = new URL(db.url);
    proxy = await startTcpProxy(target.hostname, Number(target.port || 5432));
    const proxied = new URL(db.url);
    proxied.hostname = '127.0.0.1';
    proxied.port = String(proxy.port);
    url = proxied.href;
  });
  after(async () => {
    await proxy.close();
    await db.cleanup();
  });

  test('a query running and a connection held idle both survive the cut; the pool answers after the restore', async () => {
    const pool = postgresPool(url, 4);
    const uncaught: unknown[] = [];
    const listener = (err: unknown): void => void uncaught.push(err);
    process.on('uncaughtException', listener);
    try {
      const running = await pool.connect();
      const held = await pool.connect();
      const slow = running.query('SELECT pg_sleep(5)');
      // Not events.once: it would reject on the 'error' this test wants the pool's own listener to take.
      const heldEnded = new Promise((resolve) => held.once('end', resolve));
      // Cut once the server runs the query (seen on a connection of the test's own, not through the proxy).
      const direct = postgresPool(db.url, 1);
      try {
        await until('the server runs the slow query', async () => {
          const seen = await direct.query("SELECT 1 FROM pg_stat_activity WHERE query = 'SELECT pg_sleep(5)' AND state = 'active'");
          return seen.rowCount === 1 ? true : undefined;
        }, { timeoutMs: 5000, intervalMs: 20 });
      } finally {
        await direct.end();
      }
      proxy.cut();
      await assert.rejects(slow, 'the query on the cut connection fails');
      // The held connection's socket dies too, with no query on it: its error must be heard.
      await withDeadline(heldEnded, 5000, 'the held connection ends');
      running.release();
      held.release();
      proxy.restore();
      const answer = await pool.query<{ one: number }>('SELECT 1 AS one');
      assert.equal(answer.rows[0]?.one, 1);
      assert.deepEqual(uncaught, [], 'no error reached the process');
    } finally {
      process.off('uncaughtException', listener);
      await pool.end();
    }
  });
});
