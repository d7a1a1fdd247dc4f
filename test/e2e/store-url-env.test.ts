// One variable points the gateway at PostgreSQL (README "PostgreSQL"): with GATEWAY_STORE_URL set, the CLI's commands
// work in that database although gateway.yaml names a SQLite file, which stays untouched.

import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { openStore } from '../../core/store/open-store.js';
import { cliEnv, runCli } from '../helpers/cli-process.js';
import { storeBackends } from '../helpers/test-stores.js';
import { STORE_PARTS } from '../../features/index.js';

const postgres = storeBackends().find((b) => b.name === 'postgres');

describe('GATEWAY_STORE_URL', { skip: postgres?.skip }, () => {
  let dir: string;
  let db: { readonly url: string; cleanup(): Promise<void> };
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'gw-store-env-'));
    db = await (postgres as NonNullable<typeof postgres>).fresh();
    await writeFile(
      join(dir, 'gateway.yaml'),
      `store:
  url: sqlite:./gateway.db
channels:
  - { name: demo, type: mock, models: ["demo-*"] }
`,
    );
  });
  after(async () => {
    await db.cleanup();
    await rm(dir, { recursive: true, force: true });
  });

  it('moves every command to the database it names', async () => {
    const env = cliEnv({ GATEWAY_STORE_URL: db.url });
    const config = join(dir, 'gateway.yaml');
    const created = await runCli(['accounts', 'create', 'from-env', '--config', config], env);
    assert.equal(created.code, 0, created.stderr);
    const credited = await runCli(['accounts', 'credit', 'from-env', '2.5', '--idempotency-key', 'env-1', '--config', config], env);
    assert.equal(credited.code, 0, credited.stderr);
    const store = await openStore(db.url, STORE_PARTS);
    try {
      assert.equal((await store.ledger.getAccount('from-env'))?.balance, 2_500_000_000n);
    } finally {
      await store.close();
    }
    assert.equal(existsSync(join(dir, 'gateway.db')), false, 'the file the config names was never opened');
  });
});
