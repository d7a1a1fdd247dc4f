// Top-up codes in real Chromium (issue 44): the operator makes a batch of 10 codes in the console and saves them as
// CSV (the secrets shown that once); two users of two accounts redeem the same code at the same moment and exactly
// one credit is made (the ledger and both balances say so); on PostgreSQL, a user redeems a code through a second
// gateway instance sharing the store, and the code cannot be used again through the first; the operator lists the
// codes filtered, disables a batch (its codes refused), and debits and adjusts an account with a note. Users see no
// operator page and reach no operator route. Screenshots under test-output/console-browser/.

import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { browserSkip, consolePagesBuilt, launchChromium, outputDir } from '../helpers/browser.js';
import { consoleAccountUser, consoleSignIn } from '../helpers/console-session.js';
import { startGatewayUnderTest, type GatewayUnderTest } from '../helpers/gateway-under-test.js';
import { storeBackends } from '../helpers/test-stores.js';

const ADMIN = 'topup-browser-admin-token-0123456789';
const PASSWORD = 'a long enough password';
const postgres = storeBackends().find((b) => b.name === 'postgres');
const sqlite = storeBackends().find((b) => b.name === 'sqlite');
/** Two instances need a store they can share: PostgreSQL (two in one process cannot share a SQLite file's lock). */
const secondSkip = postgres?.skip;
if (secondSkip !== undefined) console.log(`# the second-instance case is skipped: ${secondSkip}`);

describe('top-up codes in Chromium', { skip: browserSkip() }, () => {
  let db: { readonly url: string; cleanup(): Promise<void> };
  let gwA: GatewayUnderTest;
  let gwB: GatewayUnderTest | undefined;
  let browser: Browser;
  let op: Page;
  let ada: Page;
  let bob: Page;
  const shots = outputDir('console-browser');
  const problems: string[] = [];
  let codes: string[] = [];

  const config = (url: string): string => `server: { port: 0, host: 127.0.0.1, admin_token: ${ADMIN} }
store: { url: "${url}" }
accounts: [{ name: acme }, { name: initech }]
groups:
  pro: { models: ["*"] }
channels:
  - { name: demo, type: mock, models: ["demo-*"] }
`;
  const store = () => gwA.gateway.runtime.deps.store;
  const balance = async (account: string): Promise<bigint | undefined> => (await store().ledger.getAccount(account))?.balance;
  /** Every ledger entry a top-up code made, both accounts. */
  const topups = async () => [...(await store().ledger.listLedger('acme', 100)), ...(await store().ledger.listLedger('initech', 100))].filter((e) => e.idempotencyKey.startsWith('topup:'));

  async function newPage(): Promise<Page> {
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true })).newPage();
    page.on('dialog', (d) => {
      problems.push(d.message());
      void d.dismiss();
    });
    page.on('console', (m) => {
      if (m.type() === 'error' && /Content Security Policy|Refused to/i.test(m.text())) problems.push(`CSP: ${m.text()}`);
    });
    page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
    return page;
  }

  async function signIn(page: Page, url: string, name: string): Promise<void> {
    await page.goto(`${url}/console/`);
    await page.getByTestId('sign-in-name').fill(name);
    await page.getByTestId('sign-in-password').fill(PASSWORD);
    await page.getByTestId('sign-in-submit').click();
    await page.locator('[data-testid="page-dashboard"][data-ready="true"]').waitFor();
  }

  async function open(page: Page, name: string): Promise<void> {
    await page.getByTestId(`nav-${name}`).click();
    await page.locator(`[data-testid="page-${name}"][data-ready="true"]`).waitFor();
  }

  /** Submits a code on the Redeem page; resolves with the balance shown, or the error banner's text. */
  async function outcome(page: Page): Promise<{ readonly balance: string } | { readonly error: string }> {
    await page.locator('[data-testid="redeem-done"], [data-testid="error"]').first().waitFor();
    if ((await page.getByTestId('redeem-done').count()) > 0) return { balance: ((await page.getByTestId('redeem-balance').textContent()) ?? '').trim() };
    return { error: ((await page.getByTestId('error').textContent()) ?? '').trim() };
  }

  /** Opens the Redeem page of `url` afresh (no earlier outcome on it) and redeems `code` there. */
  async function redeem(page: Page, url: string, code: string): Promise<{ readonly balance: string } | { readonly error: string }> {
    await page.goto(`${url}/console/#/redeem`);
    await page.reload();
    await page.locator('[data-testid="page-redeem"][data-ready="true"]').waitFor();
    await page.getByTestId('redeem-code').fill(code);
    await page.getByTestId('redeem-submit').click();
    return outcome(page);
  }

  before(async () => {
    await consolePagesBuilt();
    const backend = secondSkip === undefined ? postgres : sqlite;
    if (backend === undefined) throw new Error('no store backend');
    db = await backend.fresh();
    gwA = await startGatewayUnderTest(config(db.url));
    if (secondSkip === undefined) gwB = await startGatewayUnderTest(config(db.url));
    const operator = await consoleSignIn(gwA.url, { admin_token: ADMIN });
    await consoleAccountUser(gwA.url, operator, 'acme', 'ada', PASSWORD);
    await consoleAccountUser(gwA.url, operator, 'initech', 'bob', PASSWORD);
    browser = await launchChromium();
    op = await newPage();
    ada = await newPage();
    bob = await newPage();
  });
  after(async () => {
    await browser?.close();
    await gwB?.stop();
    await gwA?.stop();
    await db?.cleanup();
  });

  it('the operator makes 10 codes in the console and saves them as CSV', async () => {
    await op.goto(`${gwA.url}/console/`);
    await op.getByTestId('sign-in-admin-toggle').check();
    await op.getByTestId('sign-in-admin-token').fill(ADMIN);
    await op.getByTestId('sign-in-submit').click();
    await op.locator('[data-testid="page-dashboard"][data-ready="true"]').waitFor();
    await open(op, 'topup-codes');
    await op.getByTestId('create-batch').click();
    await op.getByTestId('batch-amount').fill('2.50');
    await op.getByTestId('batch-count').fill('10');
    await op.getByTestId('batch-note').fill('launch week');
    await op.getByTestId('batch-submit').click();
    await op.getByTestId('made-codes').waitFor();
    codes = ((await op.getByTestId('made-codes-all-value').textContent()) ?? '').trim().split('\n');
    assert.equal(codes.length, 10);
    for (const code of codes) assert.match(code, /^TOPUP(-[0-9A-HJKMNP-TV-Z]{5}){4}-[0-9A-HJKMNP-TV-Z]{6}$/);
    assert.equal(new Set(codes).size, 10);
    const download = op.waitForEvent('download');
    await op.getByTestId('made-codes-csv').click();
    const csv = await readFile((await (await download).path()) ?? '', 'utf8');
    const lines = csv.trimEnd().split('\r\n');
    assert.equal(lines[0], 'id,batch,code,amount,currency,expires_at');
    assert.deepEqual(lines.slice(1).map((l) => l.split(',')[2]), codes);
    await op.screenshot({ path: join(shots, 'topup-codes-made.png'), fullPage: true });
    const batch = op.locator('[data-testid="table-batches"] [data-testid="row"]');
    await batch.locator('[data-col="redeemed"]').filter({ hasText: '0 / 10' }).waitFor();
    assert.equal((await op.getByTestId('codes-count').textContent())?.trim(), 'Codes 1–10 of 10');
    // The list shows them masked only.
    const listed = (await op.getByTestId('table-codes').textContent()) ?? '';
    for (const code of codes) assert.ok(listed.includes(`TOPUP-****-${code.slice(-4)}`) && !listed.includes(code.slice(6, 17)));
  });

  it('two users of two accounts redeem the same code at once: exactly one credit', async () => {
    await signIn(ada, gwA.url, 'ada');
    await signIn(bob, gwA.url, 'bob');
    await open(ada, 'redeem');
    await open(bob, 'redeem');
    assert.equal(await ada.getByTestId('nav-topup-codes').count(), 0, 'a user has no Top-up codes page');
    const code = codes[0] ?? '';
    await ada.getByTestId('redeem-code').fill(code);
    await bob.getByTestId('redeem-code').fill(code);
    await Promise.all([ada.getByTestId('redeem-submit').click(), bob.getByTestId('redeem-submit').click()]);
    const results = await Promise.all([outcome(ada), outcome(bob)]);
    const won = results.filter((r) => 'balance' in r);
    assert.equal(won.length, 1, JSON.stringify(results));
    assert.deepEqual(won[0], { balance: '$2.50' });
    assert.match(JSON.stringify(results.find((r) => 'error' in r)), /already redeemed/);
    const entries = await topups();
    assert.equal(entries.length, 1);
    assert.equal(entries[0]?.amount, 2_500_000_000n);
    const winner = entries[0]?.account ?? '';
    assert.equal(await balance(winner), 2_500_000_000n);
    assert.equal(await balance(winner === 'acme' ? 'initech' : 'acme'), 0n);
    await (winner === 'acme' ? ada : bob).screenshot({ path: join(shots, 'topup-redeemed.png'), fullPage: true });
  });

  it('a code redeemed through a second instance on the same store cannot be used again through the first', { skip: secondSkip }, async () => {
    const before = (await balance('acme')) ?? 0n;
    const done = await redeem(ada, gwB?.url ?? '', codes[1] ?? '');
    assert.ok('balance' in done, JSON.stringify(done));
    assert.equal(await balance('acme'), before + 2_500_000_000n);
    const again = await redeem(bob, gwA.url, codes[1] ?? '');
    assert.match(JSON.stringify(again), /already redeemed/);
    assert.equal((await topups()).length, 2);
    assert.equal(await balance('acme'), before + 2_500_000_000n);
  });

  it('the operator filters the codes, disables the batch (its codes refused), and users reach no operator route', async () => {
    await op.reload();
    await op.locator('[data-testid="page-topup-codes"][data-ready="true"]').waitFor();
    const redeemed = (await topups()).length;
    await op.getByTestId('filter-status').selectOption('redeemed');
    await op.getByTestId('codes-count').filter({ hasText: `Codes 1–${redeemed} of ${redeemed}` }).waitFor();
    assert.match((await op.getByTestId('export-codes').getAttribute('href')) ?? '', /\/console\/api\/topup\/codes\.csv\?status=redeemed$/);
    const who = await op.locator('[data-testid="table-codes"] td[data-col="redeemed-by"]').allTextContents();
    assert.equal(who.length, redeemed);
    assert.ok(who.every((w) => w === 'ada' || w === 'bob'), who.join());
    await op.locator('[data-testid="table-batches"] [data-testid="disable"]').click();
    await op.locator('[data-testid="table-batches"] [data-col="status"]').filter({ hasText: 'disabled' }).waitFor();
    await op.screenshot({ path: join(shots, 'topup-codes-list.png'), fullPage: true });
    assert.match(JSON.stringify(await redeem(ada, gwA.url, codes[2] ?? '')), /was disabled/);
    assert.equal((await topups()).length, redeemed);
    for (const path of ['/console/api/topup/codes', '/console/api/topup/batches', '/console/api/topup/codes.csv']) assert.equal((await ada.request.get(`${gwA.url}${path}`)).status(), 403, path);
  });

  it('the operator debits and adjusts an account from the accounts page, each with a note', async () => {
    await open(op, 'accounts');
    const row = op.locator('[data-testid="table-accounts"] [data-testid="row"][data-id="acme"]');
    // acme may hold nothing yet (bob's account may have won the race): a debit past the balance would be refused.
    await row.getByTestId('credit').click();
    await op.getByTestId('credit-amount').fill('5');
    await op.getByTestId('credit-submit').click();
    await op.getByTestId('notice').filter({ hasText: 'Credited acme' }).waitFor();
    const start = (await balance('acme')) ?? 0n;
    assert.ok(start >= 5_000_000_000n);
    await row.getByTestId('debit').click();
    await op.getByTestId('debit-amount').fill('1');
    await op.getByTestId('debit-note').fill('returned voucher');
    await op.getByTestId('debit-submit').click();
    await op.getByTestId('notice').filter({ hasText: 'Debited acme' }).waitFor();
    assert.equal(await balance('acme'), start - 1_000_000_000n);
    await row.getByTestId('adjust').click();
    await op.getByTestId('adjust-amount').fill('-0.25');
    // Without a note the browser keeps the form (the field is required), and nothing is sent.
    await op.getByTestId('adjust-submit').click();
    assert.equal(await op.getByTestId('adjust-form').count(), 1);
    await op.getByTestId('adjust-note').fill('rounding');
    await op.getByTestId('adjust-submit').click();
    await op.getByTestId('notice').filter({ hasText: 'Adjusted acme' }).waitFor();
    assert.equal(await balance('acme'), start - 1_250_000_000n);
    const notes = (await store().ledger.listLedger('acme', 2)).map((e) => [e.kind, e.amount, e.note]);
    assert.deepEqual(notes, [['adjustment', -250_000_000n, 'rounding'], ['adjustment', -1_000_000_000n, 'returned voucher']]);
    await op.screenshot({ path: join(shots, 'accounts-debit-adjust.png'), fullPage: true });
    assert.deepEqual(await store().ledger.auditLedger(), []);
    assert.deepEqual(problems, []);
  });
});
