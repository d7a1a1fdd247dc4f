// The console on big data (issue 25): a store seeded with 1,000,000 usage records over 30 days (3 accounts, 21 keys,
// 6 models), a gateway on it, and the console API calls a user and the operator make, each timed over HTTP on
// loopback: the dashboard, the usage log (a filtered first page with its totals, a deep page by cursor), the CSV
// of a day, keys, ledger, channels; a request's detail (50 ms) and a charge's requests. The bound is 200 ms per call
// (p95 here), 50 ms for a request's detail. Not part of npm test.
//
//   npm run bench:console                      # SQLite, 1M records (seeding takes a minute or two)
//   BENCH_CONSOLE_RECORDS=200000 npm run bench:console
//   BENCH_STORE_URL='postgres://postgres@127.0.0.1:5432/test?options=-c%20search_path%3Dbench_console' npm run bench:console
//
// The seeded store is kept in the temp dir and reused while BENCH_CONSOLE_DB names it (SQLite only).

import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createSilentLogger } from '../core/logging/logger.js';
import { startGateway } from '../core/serve.js';
import { openStore } from '../core/store/open-store.js';
import type { UsageRecord } from '../core/store/store.js';
import pg from 'pg';
import { builtinPlugins } from '../plugins/index.js';
import { FEATURES } from '../features/index.js';
import { STORE_PARTS } from '../features/index.js';

const RECORDS = Number(process.env['BENCH_CONSOLE_RECORDS'] ?? 1_000_000);
const DAYS = 30;
const RUNS = Number(process.env['BENCH_CONSOLE_RUNS'] ?? 20);
const ADMIN = 'bench-console-admin-token-0123456789';
const ACCOUNTS = ['acme', 'globex', 'initech'];
const MODELS = ['gpt-4o', 'gpt-4o-mini', 'o3-mini', 'claude-sonnet-4-5', 'claude-haiku-4-5', 'gpt-image-1'];
const KEYS_PER_ACCOUNT = 7;
const BATCH = 5000;
const DAY_MS = 86_400_000;

const dir = mkdtempSync(join(tmpdir(), 'bench-console-'));
const storeUrl = process.env['BENCH_STORE_URL'] ?? `sqlite:${process.env['BENCH_CONSOLE_DB'] ?? join(dir, 'console.db')}`;
const now = Date.now();

function record(i: number): UsageRecord {
  const account = ACCOUNTS[i % ACCOUNTS.length] as string;
  const key = (i >> 2) % KEYS_PER_ACCOUNT;
  const model = MODELS[(i >> 5) % MODELS.length] as string;
  const failed = i % 53 === 0;
  return {
    requestId: `bench-${i}`,
    // Spread evenly over the 30 days before now, newest last.
    ts: now - DAYS * DAY_MS + Math.floor((i * DAYS * DAY_MS) / RECORDS),
    keyId: `key_${account}_${key}`,
    keyName: `${account}-key-${key}`,
    group: 'pro',
    route: i % 3 === 0 ? '/v1/messages' : '/v1/chat/completions',
    model,
    upstreamModel: model,
    channel: model.startsWith('claude') ? 'anthropic' : 'openai',
    status: failed ? 502 : 200,
    errorCode: failed ? 'GW_ERR_UPSTREAM_STATUS' : null,
    stream: i % 2 === 0,
    promptTokens: 500 + (i % 1000),
    completionTokens: 100 + (i % 300),
    cachedTokens: i % 4 === 0 ? 256 : 0,
    cacheWriteTokens: 0,
    reasoningTokens: model === 'o3-mini' ? 64 : 0,
    latencyMs: 300 + (i % 2000),
    ttftMs: 80 + (i % 400),
    aborted: false,
    cost: BigInt(1000 + (i % 5000)) * 1000n,
    priceVersion: 'bench',
    account,
    // A failed request's trace, as the relay records it.
    ...(failed ? { attempts: [{ channel: 'openai', status: 502, error: 'status_502', latencyMs: 120 }], errorMessage: 'The upstream answered HTTP 502.' } : {}),
  };
}

/** The prices the seeded records name (their request detail reads them). */
const BENCH_PRICES = JSON.stringify({ models: [['*', { input: '2.5', output: '10', cache_read: '1.25', cache_write: '2.5', input_image: '2.5', output_image: '10', per_image: '0' }]], calls: [], multipliers: [['pro', '1']] });

async function seed(): Promise<void> {
  const store = await openStore(storeUrl, STORE_PARTS);
  try {
    const have = await store.countUsage();
    if (have >= RECORDS) {
      console.error(`store already holds ${have} records`);
      return;
    }
    await store.ledger.ensureAccounts(ACCOUNTS.map((name) => ({ name, description: null })), now);
    await store.ledger.savePriceVersion('bench', BENCH_PRICES, now);
    const started = performance.now();
    for (let start = have; start < RECORDS; start += BATCH) {
      const batch: UsageRecord[] = [];
      for (let i = start; i < Math.min(RECORDS, start + BATCH); i++) batch.push(record(i));
      await store.insertUsage(batch);
      if ((start / BATCH) % 40 === 0) console.error(`seeded ${start + batch.length} of ${RECORDS} (${((performance.now() - started) / 1000).toFixed(0)} s)`);
    }
  } finally {
    await store.close();
  }
  if (!storeUrl.startsWith('sqlite:')) {
    // A million rows inserted at once: PostgreSQL plans by stale statistics until autovacuum's next ANALYZE (a
    // minute or so later in production); the bench measures the settled plans.
    const client = new pg.Client({ connectionString: storeUrl });
    await client.connect();
    await client.query('analyze');
    await client.end();
  }
}

interface Timing {
  readonly name: string;
  readonly p50: number;
  readonly p95: number;
  readonly max: number;
  readonly bytes: number;
}

async function time(name: string, url: string, cookie: string): Promise<Timing> {
  const ms: number[] = [];
  let bytes = 0;
  for (let run = 0; run < RUNS + 2; run++) {
    const t0 = performance.now();
    const res = await fetch(url, { headers: { cookie } });
    const body = Buffer.from(await res.arrayBuffer());
    const took = performance.now() - t0;
    if (res.status !== 200) throw new Error(`${name}: HTTP ${res.status} ${body.toString().slice(0, 200)}`);
    bytes = body.length;
    // The first two warm the caches and the JIT.
    if (run >= 2) ms.push(took);
  }
  ms.sort((a, b) => a - b);
  const at = (q: number): number => ms[Math.min(ms.length - 1, Math.floor(q * ms.length))] ?? 0;
  return { name, p50: at(0.5), p95: at(0.95), max: ms[ms.length - 1] ?? 0, bytes };
}

async function signIn(url: string, body: Record<string, unknown>): Promise<{ cookie: string; csrf: string }> {
  const res = await fetch(`${url}/console/api/session`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  if (res.status !== 200) throw new Error(`sign-in: HTTP ${res.status}`);
  return { cookie: (res.headers.get('set-cookie') ?? '').split(';')[0] ?? '', csrf: String(((await res.json()) as { csrf: string }).csrf) };
}

async function main(): Promise<void> {
  await seed();
  const configPath = join(dir, 'gateway.yaml');
  writeFileSync(
    configPath,
    `server: { port: 0, host: 127.0.0.1, admin_token: ${ADMIN} }
store: { url: "${storeUrl}" }
groups: { pro: { models: ["*"] } }
accounts: [${ACCOUNTS.map((a) => `{ name: ${a}, groups: [pro] }`).join(', ')}]
channels:
  - { name: openai, type: mock, models: ["gpt-*", "o3-*"] }
  - { name: anthropic, type: mock, models: ["claude-*"] }
`,
  );
  const gw = await startGateway({ configPath, features: FEATURES, factories: builtinPlugins(), logger: createSilentLogger(), watch: false });
  try {
    const operator = await signIn(gw.url, { admin_token: ADMIN });
    const made = await fetch(`${gw.url}/console/api/accounts/acme/users`, {
      method: 'POST',
      headers: { cookie: operator.cookie, 'x-csrf-token': operator.csrf, 'content-type': 'application/json' },
      body: JSON.stringify({ name: `bench-${Date.now()}` }),
    });
    const { link, user } = (await made.json()) as { link: string; user: { name: string } };
    await fetch(`${gw.url}/console/api/password`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token: link.split('/').pop(), password: 'bench password 1' }) });
    const ada = await signIn(gw.url, { name: user.name, password: 'bench password 1' });
    const iso = (t: number): string => encodeURIComponent(new Date(t).toISOString());
    const week = `from=${iso(now - 7 * DAY_MS)}&to=${iso(now)}`;
    const firstPage = (await (await fetch(`${gw.url}/console/api/usage?${week}&model=gpt-4o`, { headers: { cookie: ada.cookie } })).json()) as { next_cursor: string };
    // A cursor deep in the log: a page ten days back.
    const deepCursor = `${now - 10 * DAY_MS}-999999999999999`;
    const yesterday = Math.floor(now / DAY_MS) * DAY_MS - DAY_MS;
    // A failed acme request in the middle of the log (i % 3 == 0: acme's; i % 53 == 0: failed, with its trace), and
    // the charge of a batch of the oldest records.
    const failedId = `bench-${Math.floor(RECORDS / 2 / 159) * 159}`;
    const oldest = (await (await fetch(`${gw.url}/console/api/ledger?limit=200`, { headers: { cookie: ada.cookie } })).json()) as { data: { id: number; kind: string }[] };
    const charge = oldest.data.find((e) => e.kind === 'charge');
    if (charge === undefined) throw new Error('no charge in the ledger of acme');
    const calls: [string, string, { cookie: string }][] = [
      ['user: dashboard, 24 h by hour', '/console/api/dashboard', ada],
      ['user: dashboard, 30 days by day', `/console/api/dashboard?bucket=day&from=${iso(now - 30 * DAY_MS)}&to=${iso(now)}`, ada],
      ['operator: dashboard, all accounts, 30 days by day', `/console/api/dashboard?bucket=day&from=${iso(now - 30 * DAY_MS)}&to=${iso(now)}`, operator],
      ['user: usage, 7 days, one model, page 1 + totals', `/console/api/usage?${week}&model=gpt-4o`, ada],
      ['user: usage, same filter, page 2 (cursor)', `/console/api/usage?${week}&model=gpt-4o&cursor=${firstPage.next_cursor}`, ada],
      ['user: usage, 30 days, errors only + totals', `/console/api/usage?from=${iso(now - 30 * DAY_MS)}&to=${iso(now)}&status=error`, ada],
      ['user: usage, 30 days, a page 10 days back', `/console/api/usage?from=${iso(now - 30 * DAY_MS)}&to=${iso(now)}&cursor=${deepCursor}`, ada],
      ['operator: usage, all accounts, 24 h + totals', '/console/api/usage', operator],
      ['user: CSV of a day', `/console/api/usage.csv?from=${iso(yesterday)}&to=${iso(yesterday + DAY_MS)}`, ada],
      ['user: keys', '/console/api/keys', ada],
      ['user: ledger', '/console/api/ledger', ada],
      ['user: request detail (failed, with its trace)', `/console/api/requests/${failedId}`, ada],
      ['user: request detail (the newest)', `/console/api/requests/bench-${Math.floor((RECORDS - 1) / 3) * 3}`, ada],
      ["user: a charge's requests, page 1", `/console/api/ledger/${charge.id}/requests`, ada],
      ['operator: channels', '/console/api/channels', operator],
      ['operator: accounts', '/console/api/accounts', operator],
    ];
    const rows: Timing[] = [];
    for (const [name, path, who] of calls) rows.push(await time(name, `${gw.url}${path}`, who.cookie));
    const store = storeUrl.startsWith('sqlite:') ? 'SQLite' : 'PostgreSQL';
    console.log(`\n${RECORDS.toLocaleString('en')} usage records over ${DAYS} days, ${store}; ${RUNS} runs each (after 2 warm-up runs); ms\n`);
    console.log('| call | p50 | p95 | max | bytes |');
    console.log('|---|---:|---:|---:|---:|');
    for (const r of rows) console.log(`| ${r.name} | ${r.p50.toFixed(1)} | ${r.p95.toFixed(1)} | ${r.max.toFixed(1)} | ${r.bytes.toLocaleString('en')} |`);
    const slow = rows.filter((r) => r.p95 >= (r.name.includes('request detail') ? 50 : 200));
    console.log(slow.length === 0 ? '\nevery call under its bound (p95: 200 ms, a request detail 50 ms)' : `\nOVER ITS BOUND (p95): ${slow.map((r) => r.name).join('; ')}`);
    process.exitCode = slow.length === 0 ? 0 : 1;
  } finally {
    await gw.close();
  }
}

await main();
