// Users and sessions, and the console's keyboard and failure handling, in real Chromium over real HTTP with a real
// store (issue 44): a user signed in on a laptop and a phone ends the phone's session from Settings (the phone's next
// page is the sign-in form) and changes their password there (their other sessions end, the laptop's stays); the
// operator disables the user from Accounts (the laptop is signed out) and enables them again. An opened form takes the
// focus and Escape closes it; a navigation moves the focus to the page's heading, and a skip link leads there too; a
// token cannot be made with an expiry in the past (the form says why, nothing is made); a failed load shows a Retry
// and no empty-state text, and the Retry loads it; the usage filters take a model prefix and a status code.
// Screenshots under test-output/console-users-browser/.

import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { postChat } from '../helpers/chat-requests.js';
import { browserSkip, consolePagesBuilt, launchChromium, outputDir } from '../helpers/browser.js';
import { consoleAccountUser, consoleSignIn, creditAccount } from '../helpers/console-session.js';
import { FakeOpenAI } from '../helpers/fake-openai.js';
import { until } from '../helpers/poll.js';
import { startGatewayUnderTest, type GatewayUnderTest } from '../helpers/gateway-under-test.js';

const ADMIN = 'console-users-browser-admin-0123456789';
const PASSWORD = 'ada has a long password';
const NEW_PASSWORD = 'ada picked a newer password';

describe('users, sessions, keyboard and failures in the console, in Chromium', { skip: browserSkip() }, () => {
  const upstream = new FakeOpenAI('up');
  const flaky = new FakeOpenAI('flaky');
  let gw: GatewayUnderTest;
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  let laptop: Page;
  let phone: Page;
  let op: Page;
  const shots = outputDir('console-users-browser');
  const problems: string[] = [];

  async function pageFor(userAgent: string): Promise<Page> {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, userAgent });
    contexts.push(context);
    const page = await context.newPage();
    page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
    await page.goto(`${gw.url}/console/`);
    return page;
  }

  async function signIn(page: Page, name: string, password: string): Promise<void> {
    await page.locator('[data-testid="page-sign-in"]').waitFor();
    await page.getByTestId('sign-in-name').fill(name);
    await page.getByTestId('sign-in-password').fill(password);
    await page.getByTestId('sign-in-submit').click();
    await page.locator('[data-testid="page-dashboard"][data-ready="true"]').waitFor();
  }

  async function open(page: Page, name: string): Promise<void> {
    await page.getByTestId(`nav-${name}`).click();
    await page.locator(`[data-testid="page-${name}"][data-ready="true"]`).waitFor();
  }

  /** The data-testid of the focused element (or its tag). */
  const focused = async (page: Page): Promise<string> => String(await page.evaluate("document.activeElement?.getAttribute('data-testid') ?? document.activeElement?.tagName ?? ''"));

  before(async () => {
    await consolePagesBuilt();
    await upstream.start();
    await flaky.start();
    flaky.reply = () => ({ kind: 'status', status: 503 });
    gw = await startGatewayUnderTest(`server: { port: 0, host: 127.0.0.1, admin_token: ${ADMIN} }
store: { url: "sqlite:./gateway.db" }
pricing:
  models:
    "gpt-*": { input: 2.50, output: 10.00 }
groups:
  pro: { models: ["*"] }
accounts: [{ name: acme, groups: [pro] }]
channels:
  - { name: up, type: openai, base_url: "${upstream.url}", keys: [sk-up-secret-0000000000], models: ["gpt-4o", "gpt-4o-mini"], models_refresh_ms: 0 }
  - { name: flaky, type: openai, base_url: "${flaky.url}", keys: [sk-flaky-secret-00000000], models: ["gpt-flaky"], models_refresh_ms: 0, cooldown_ms: 60000 }
`);
    await creditAccount(gw.url, ADMIN, 'acme', '5.00');
    await consoleAccountUser(gw.url, await consoleSignIn(gw.url, { admin_token: ADMIN }), 'acme', 'ada', PASSWORD);
    browser = await launchChromium();
    laptop = await pageFor('Mozilla/5.0 (ada-laptop) Chromium');
    phone = await pageFor('Mozilla/5.0 (ada-phone) Chromium Mobile');
    await signIn(laptop, 'ada', PASSWORD);
    await signIn(phone, 'ada', PASSWORD);
  });
  after(async () => {
    await browser?.close();
    await gw?.stop();
    await upstream.close();
    await flaky.close();
  });

  it('Settings: the laptop ends the phone\'s session (the phone is signed out), then changes the password (the other sessions end, the laptop stays)', async () => {
    await laptop.getByTestId('nav-settings').click();
    await laptop.locator('[data-testid="page-settings"][data-ready="true"]').waitFor();
    const rows = laptop.locator('[data-testid="table-sessions"] [data-testid="row"]');
    // The phone's, the laptop's and the one the test helper signed in with.
    assert.equal(await rows.count(), 3);
    const mine = rows.filter({ has: laptop.getByTestId('current-session') });
    assert.match((await mine.locator('[data-col="browser"]').textContent()) ?? '', /ada-laptop/);
    assert.equal(await mine.getByTestId('end-session').count(), 0, 'this session is ended by signing out');
    await laptop.screenshot({ path: join(shots, 'settings.png'), fullPage: true });
    await rows.filter({ hasText: 'ada-phone' }).getByTestId('end-session').click();
    await laptop.getByTestId('notice').waitFor();
    await until('two sessions left', async () => ((await rows.count()) === 2 ? true : undefined), { timeoutMs: 5_000, intervalMs: 25 });

    // The phone's next call finds its session gone: the sign-in form, back to Tokens after.
    await phone.getByTestId('nav-tokens').click();
    await phone.locator('[data-testid="page-sign-in"]').waitFor();
    assert.match(phone.url(), /#\/sign-in\?next=%2Ftokens$/);

    await laptop.getByTestId('current-password').fill('not my password');
    await laptop.getByTestId('new-password').fill(NEW_PASSWORD);
    await laptop.getByTestId('repeat-password').fill(NEW_PASSWORD);
    await laptop.getByTestId('change-password-submit').click();
    assert.match((await laptop.getByTestId('error').textContent()) ?? '', /current password is wrong/);
    await laptop.getByTestId('current-password').fill(PASSWORD);
    await laptop.getByTestId('change-password-submit').click();
    assert.match((await laptop.getByTestId('notice').textContent()) ?? '', /Password changed\. One other session ended/);
    await until('one session left', async () => ((await rows.count()) === 1 ? true : undefined), { timeoutMs: 5_000, intervalMs: 25 });
    await open(laptop, 'tokens');

    // The old password opens nothing; the new one does.
    await phone.getByTestId('sign-in-name').fill('ada');
    await phone.getByTestId('sign-in-password').fill(PASSWORD);
    await phone.getByTestId('sign-in-submit').click();
    await phone.getByTestId('error').waitFor();
    await phone.getByTestId('sign-in-password').fill(NEW_PASSWORD);
    await phone.getByTestId('sign-in-submit').click();
    await phone.locator('[data-testid="page-tokens"][data-ready="true"]').waitFor();
  });

  it('the operator sees the account\'s users, disables ada (her pages are signed out) and enables her again', async () => {
    op = await pageFor('Mozilla/5.0 (operator) Chromium');
    await op.getByTestId('sign-in-admin-toggle').check();
    await op.getByTestId('sign-in-admin-token').fill(ADMIN);
    await op.getByTestId('sign-in-submit').click();
    await op.locator('[data-testid="page-dashboard"][data-ready="true"]').waitFor();
    await open(op, 'accounts');
    await op.locator('[data-testid="table-accounts"] [data-testid="row"][data-id="acme"]').getByTestId('users').click();
    const ada = op.locator('[data-testid="table-users"] [data-testid="row"][data-id="ada"]');
    await ada.waitFor();
    assert.equal((await ada.locator('[data-col="sessions"]').textContent())?.trim(), '2');
    await ada.getByTestId('disable-user').click();
    await op.getByTestId('notice').waitFor();
    assert.match((await ada.locator('[data-col="status"]').textContent()) ?? '', /disabled/);
    await op.screenshot({ path: join(shots, 'account-users.png'), fullPage: true });
    await laptop.getByTestId('nav-usage').click();
    await laptop.locator('[data-testid="page-sign-in"]').waitFor();
    await ada.getByTestId('enable-user').click();
    await until('ada enabled', async () => ((await ada.getByTestId('disable-user').count()) === 1 ? true : undefined), { timeoutMs: 5_000, intervalMs: 25 });
    await ada.getByTestId('user-new-link').click();
    assert.match((await op.getByTestId('user-link-value').textContent()) ?? '', /#\/password\//);
    await laptop.getByTestId('sign-in-name').fill('ada');
    await laptop.getByTestId('sign-in-password').fill(NEW_PASSWORD);
    await laptop.getByTestId('sign-in-submit').click();
    await laptop.locator('[data-testid="page-usage"][data-ready="true"]').waitFor();
  });

  it('an opened form takes the focus and Escape closes it; a navigation focuses the heading; the skip link leads there', async () => {
    await open(laptop, 'tokens');
    assert.equal(await focused(laptop), 'page-heading');
    await laptop.getByTestId('create-token').click();
    await laptop.getByTestId('token-form').waitFor();
    assert.equal(await focused(laptop), 'token-name');
    await laptop.keyboard.press('Escape');
    await laptop.getByTestId('token-form').waitFor({ state: 'detached' });
    // The skip link is the first stop of the page: before the brand, which leads the header.
    await laptop.locator('.brand').focus();
    await laptop.keyboard.press('Shift+Tab');
    assert.equal(await focused(laptop), 'skip-link');
    assert.ok(await laptop.getByTestId('skip-link').isVisible());
    await laptop.keyboard.press('Enter');
    assert.equal(await focused(laptop), 'page-heading');
  });

  it('a token\'s expiry is typed YYYY-MM-DD; one in the past is refused by the form, and nothing is made', async () => {
    await laptop.getByTestId('create-token').click();
    const expires = laptop.getByTestId('token-expires');
    assert.deepEqual([await expires.getAttribute('type'), await expires.getAttribute('placeholder')], ['text', 'YYYY-MM-DD']);
    await laptop.getByTestId('token-name').fill('ada-dead');
    await expires.fill('2020-01-31');
    await laptop.getByTestId('token-submit').click();
    assert.match((await laptop.getByTestId('error').textContent()) ?? '', /after today/);
    await expires.fill('01/31/2099');
    await laptop.getByTestId('token-submit').click();
    assert.match((await laptop.getByTestId('error').textContent()) ?? '', /YYYY-MM-DD/);
    await expires.fill('2099-01-31');
    await laptop.getByTestId('token-submit').click();
    await laptop.getByTestId('new-key-value').waitFor();
    const key = ((await laptop.getByTestId('new-key-value').textContent()) ?? '').trim();
    await laptop.getByTestId('new-key-done').click();
    const rows = laptop.locator('[data-testid="table-keys"] [data-testid="row"]');
    await until('the one key', async () => ((await rows.count()) === 1 ? true : undefined), { timeoutMs: 5_000, intervalMs: 25 });
    assert.equal((await rows.first().locator('[data-col="expires"]').textContent())?.trim(), '2099-01-31 00:00');
    for (const model of ['gpt-4o', 'gpt-4o-mini', 'gpt-flaky']) await postChat(gw.url, { model, messages: [{ role: 'user', content: 'hi' }] }, { key });
    await gw.usage();
  });

  it('a failed load shows a Retry and no empty-state text; the Retry loads the page', async () => {
    await open(laptop, 'dashboard');
    await laptop.route('**/console/api/keys', (route) => route.fulfill({ status: 502, contentType: 'text/html', body: '<h1>Bad gateway</h1>' }));
    await open(laptop, 'tokens');
    await laptop.getByTestId('retry').waitFor();
    assert.match((await laptop.getByTestId('error').textContent()) ?? '', /502/);
    assert.equal(await laptop.getByTestId('empty').count(), 0, 'no "No tokens yet." under the error');
    await laptop.screenshot({ path: join(shots, 'load-failed.png'), fullPage: true });
    await laptop.unroute('**/console/api/keys');
    await laptop.getByTestId('retry').click();
    await laptop.locator('[data-testid="table-keys"] [data-testid="row"]').first().waitFor();
    assert.equal(await laptop.getByTestId('retry').count(), 0);
  });

  it('the usage log filters by a model prefix and by a status code', async () => {
    await open(laptop, 'usage');
    const models = (): Promise<string[]> => laptop.locator('[data-testid="table-usage"] [data-testid="row"] [data-col="model"]').evaluateAll((cells) => cells.map((c) => c.textContent?.trim() ?? '').sort());
    await until('the three requests', async () => {
      await laptop.getByTestId('apply').click();
      await laptop.locator('[data-testid="page-usage"][data-ready="true"]').waitFor();
      return (await models()).length === 3 ? true : undefined;
    }, { timeoutMs: 10_000, intervalMs: 100 });
    await laptop.getByTestId('filter-model').fill('gpt-4o');
    await laptop.getByTestId('apply').click();
    await until('the prefix filter', async () => ((await models()).join() === 'gpt-4o,gpt-4o-mini' ? true : undefined), { timeoutMs: 5_000, intervalMs: 25 });
    await laptop.getByTestId('filter-model').fill('');
    await laptop.getByTestId('filter-status-code').fill('503');
    await laptop.getByTestId('apply').click();
    await until('the status filter', async () => ((await models()).join() === 'gpt-flaky' ? true : undefined), { timeoutMs: 5_000, intervalMs: 25 });
    assert.match((await laptop.locator('[data-testid="table-usage"] [data-testid="row"] [data-col="status"]').textContent()) ?? '', /503/);
    assert.match((await laptop.getByTestId('export-csv').getAttribute('href')) ?? '', /status=503/);
    assert.deepEqual(problems, []);
  });
});
