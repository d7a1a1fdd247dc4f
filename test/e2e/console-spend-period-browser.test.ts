// A run-time key's max_spend per period set in the console's token form, in real Chromium (issue 45): the operator
// makes a key with a daily cap in Europe/Berlin (the period select and the time zone field beside Max spend), the list
// shows the day's part and when it resets, the key is refused past it with the 402 that says so; an unknown zone is
// refused with the server's message and changes nothing; "Never" makes it a lifetime cap again. The Accounts page
// shows an account's max_spend per month. The calendar clock is injected. Screenshots under test-output/console-spend-period-browser/.

import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { formatMoney } from '../../core/money/decimal.js';
import { browserSkip, consolePagesBuilt, launchChromium, outputDir } from '../helpers/browser.js';
import { postChat } from '../helpers/chat-requests.js';
import { DEFAULT_USAGE, FakeOpenAI } from '../helpers/fake-openai.js';
import { startGatewayUnderTest, type GatewayUnderTest } from '../helpers/gateway-under-test.js';

const ADMIN = 'console-period-admin-token-0123456789';
/** 7 completion tokens at 1.00 per 1M: 7,000 nano-units a request, reserved exactly (max_tokens 7, input free). */
const COST = BigInt(DEFAULT_USAGE.completion) * 1000n;
/** 23:00 on 29 November in Berlin: the day ends at 23:00 UTC. */
const EVENING = Date.parse('2026-11-29T22:00:00Z');

describe('the token form sets a max_spend per period (Chromium)', { skip: browserSkip() }, () => {
  const upstream = new FakeOpenAI('up');
  let gw: GatewayUnderTest;
  let browser: Browser;
  let page: Page;
  let secret = '';
  const shots = outputDir('console-spend-period-browser');

  before(async () => {
    await consolePagesBuilt();
    await upstream.start();
    gw = await startGatewayUnderTest(
      `server: { port: 0, host: 127.0.0.1, admin_token: ${ADMIN} }
store: { url: "sqlite:./gateway.db" }
pricing:
  models:
    "gpt-4o": { input: 0, output: 1.00 }
groups:
  pro: { models: ["*"] }
channels:
  - { name: up, type: openai, base_url: "${upstream.url}", keys: [sk-up-secret-0000000000], models: ["gpt-4o"], models_refresh_ms: 0 }
`,
      { clock: () => EVENING },
    );
    browser = await launchChromium();
    page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    await page.goto(`${gw.url}/console/`);
    await page.getByTestId('sign-in-admin-toggle').check();
    await page.getByTestId('sign-in-admin-token').fill(ADMIN);
    await page.getByTestId('sign-in-submit').click();
    await page.locator('[data-testid="page-dashboard"][data-ready="true"]').waitFor();
  });
  after(async () => {
    await browser?.close();
    await gw?.stop();
    await upstream.close();
  });

  /** The key as the console's API lists it. */
  async function listed(): Promise<Record<string, unknown> | undefined> {
    const res = await page.request.get(`${gw.url}/console/api/keys`);
    return ((await res.json()) as { data: Record<string, unknown>[] }).data.find((k) => k['name'] === 'daily');
  }

  async function openTokens(): Promise<void> {
    await page.getByTestId('nav-tokens').click();
    await page.locator('[data-testid="page-tokens"][data-ready="true"]').waitFor();
  }

  it('makes a key with a daily cap in Berlin, shows the day and its reset, and refuses past it', async () => {
    await openTokens();
    await page.getByTestId('create-token').click();
    await page.getByTestId('token-name').fill('daily');
    await page.getByTestId('token-group').selectOption('pro');
    await page.getByTestId('token-max-spend').fill(formatMoney(COST * 2n));
    assert.equal(await page.getByTestId('token-spend-timezone').count(), 0, 'no zone field for a lifetime cap');
    await page.getByTestId('token-spend-period').selectOption('day');
    await page.getByTestId('token-spend-timezone').fill('Europe/Berlin');
    await page.getByTestId('token-submit').click();
    secret = ((await page.getByTestId('new-key-value').textContent()) ?? '').trim();
    assert.match(secret, /^sk-/);
    await page.getByTestId('new-key-done').click();

    assert.deepEqual((await listed())?.['max_spend_period'], { period: 'day', timezone: 'Europe/Berlin', spend: '0', resets_at: '2026-11-29T23:00:00.000Z' });
    const row = page.locator('[data-testid="table-keys"] [data-testid="row"]', { hasText: 'daily' });
    assert.match((await row.getByTestId('max-spend-period').textContent()) ?? '', /per day/);

    const ask = (i: number): Promise<Response> => postChat(gw.url, { model: 'gpt-4o', max_tokens: DEFAULT_USAGE.completion, messages: [{ role: 'user', content: `hi ${i}` }] }, { key: secret });
    for (let i = 0; i < 2; i++) assert.equal((await ask(i)).status, 200);
    const refused = await ask(2);
    assert.equal(refused.status, 402);
    assert.equal(refused.headers.get('x-gateway-budget-reset'), '2026-11-29T23:00:00.000Z');
    await page.screenshot({ path: join(shots, 'tokens-daily.png'), fullPage: true });
  });

  it('refuses an unknown time zone with the server\'s message, and changes nothing', async () => {
    const row = page.locator('[data-testid="table-keys"] [data-testid="row"]', { hasText: 'daily' });
    await row.getByTestId('edit').click();
    assert.equal(await page.getByTestId('token-spend-period').inputValue(), 'day');
    assert.equal(await page.getByTestId('token-spend-timezone').inputValue(), 'Europe/Berlin');
    await page.getByTestId('token-spend-timezone').fill('Europe/Atlantis');
    await page.getByTestId('token-submit').click();
    assert.match((await page.getByTestId('error').textContent()) ?? '', /unknown timezone "Europe\/Atlantis"/);
    assert.equal(((await listed())?.['max_spend_period'] as Record<string, unknown> | undefined)?.['timezone'], 'Europe/Berlin');
  });

  it('shows an account\'s max_spend per month on the Accounts page', async () => {
    const made = await page.request.post(`${gw.url}/admin/accounts`, {
      headers: { authorization: `Bearer ${ADMIN}` },
      data: { name: 'acme', max_spend: { amount: '25', period: 'month', timezone: 'Europe/Berlin' } },
    });
    assert.equal(made.status(), 201);
    await page.getByTestId('nav-accounts').click();
    await page.locator('[data-testid="page-accounts"][data-ready="true"]').waitFor();
    const row = page.locator('[data-testid="table-accounts"] [data-testid="row"][data-id="acme"]');
    assert.match((await row.getByTestId('account-max-spend-period').textContent()) ?? '', /per month/);
    assert.match((await row.locator('[data-col="max-spend"]').textContent()) ?? '', /25/);
    await page.screenshot({ path: join(shots, 'accounts-monthly.png'), fullPage: true });
    await openTokens();
    await page.locator('[data-testid="table-keys"] [data-testid="row"]', { hasText: 'daily' }).getByTestId('edit').click();
  });

  it('"Never" makes it a lifetime cap again', async () => {
    await page.getByTestId('token-spend-period').selectOption('');
    assert.equal(await page.getByTestId('token-spend-timezone').count(), 0);
    await page.getByTestId('token-max-spend').fill(formatMoney(COST * 3n));
    await page.getByTestId('token-submit').click();
    await page.getByTestId('notice').waitFor();
    const key = await listed();
    assert.equal(key?.['max_spend'], formatMoney(COST * 3n));
    assert.equal(key?.['max_spend_period'], undefined);
    // Two requests were charged in all: a lifetime cap of three serves one more, with no reset said after it.
    const ask = (i: number): Promise<Response> => postChat(gw.url, { model: 'gpt-4o', max_tokens: DEFAULT_USAGE.completion, messages: [{ role: 'user', content: `more ${i}` }] }, { key: secret });
    assert.equal((await ask(0)).status, 200);
    const refused = await ask(1);
    assert.equal(refused.status, 402);
    assert.equal(refused.headers.get('x-gateway-budget-reset'), null);
  });
});
