// The console in real Chromium (issue 25), driven through playwright-core, against a gateway over loopback and a fake
// OpenAI upstream: the operator signs in, creates an account, credits it and makes a password link; the user sets a
// password, signs in and creates a token (shown once, copied); the official openai SDK calls the gateway with it;
// the request shows in the usage log, in the dashboard's totals and chart; the CSV downloaded equals the filtered
// records; a max_spend once spent gives the SDK 402; a revoked token gives it 401; a key named as markup renders as
// text; the operator's channel view shows a channel cooling down after its upstream failed. Every page is saved as
// a screenshot under test-output/console-browser/.

import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import OpenAI from 'openai';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { browserSkip, consolePagesBuilt, launchChromium, outputDir } from '../helpers/browser.js';
import { FakeOpenAI } from '../helpers/fake-openai.js';
import { startGatewayUnderTest, type GatewayUnderTest } from '../helpers/gateway-under-test.js';

const ADMIN = 'console-browser-admin-token-0123456789';
const XSS_NAME = '<img src=x onerror=alert(1)>';

describe('the console in Chromium', { skip: browserSkip() }, () => {
  const upstream = new FakeOpenAI('up');
  const flaky = new FakeOpenAI('flaky');
  let gw: GatewayUnderTest;
  let browser: Browser;
  let operator: BrowserContext;
  let user: BrowserContext;
  let op: Page;
  let ada: Page;
  const shots = outputDir('console-browser');
  const dialogs: string[] = [];
  let secret = '';
  let link = '';

  async function shot(page: Page, name: string): Promise<void> {
    await page.screenshot({ path: join(shots, `${name}.png`), fullPage: true });
  }

  /** Opens a page from the navigation and waits until its data is loaded. */
  async function open(page: Page, name: string): Promise<void> {
    await page.getByTestId(`nav-${name}`).click();
    await page.locator(`[data-testid="page-${name}"][data-ready="true"]`).waitFor();
  }

  async function contextFor(b: Browser): Promise<BrowserContext> {
    const context = await b.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: gw.url });
    return context;
  }

  function watch(page: Page): void {
    // An alert() would mean markup ran; a CSP violation shows in the console as an error; a script error as a page error.
    page.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    page.on('console', (m) => {
      if (m.type() === 'error' && /Content Security Policy|Refused to/i.test(m.text())) dialogs.push(`CSP: ${m.text()}`);
    });
    page.on('pageerror', (err) => dialogs.push(`page error: ${err.message}`));
  }

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
channels:
  - { name: up, type: openai, base_url: "${upstream.url}", keys: [sk-up-secret-0000000000], models: ["gpt-4o"], models_refresh_ms: 0 }
  - { name: flaky, type: openai, base_url: "${flaky.url}", keys: [sk-flaky-secret-00000000], models: ["gpt-flaky"], models_refresh_ms: 0, cooldown_ms: 60000 }
`);
    browser = await launchChromium();
    operator = await contextFor(browser);
    user = await contextFor(browser);
    op = await operator.newPage();
    ada = await user.newPage();
    watch(op);
    watch(ada);
  });
  after(async () => {
    await browser?.close();
    await gw?.stop();
    await upstream.close();
    await flaky.close();
  });

  it('serves the page with a CSP and no framing; the operator signs in with the admin token', async () => {
    const res = await op.goto(`${gw.url}/console/`);
    assert.equal(res?.status(), 200);
    const headers = res?.headers() ?? {};
    assert.match(headers['content-security-policy'] ?? '', /script-src 'self'/);
    assert.match(headers['content-security-policy'] ?? '', /frame-ancestors 'none'/);
    assert.equal(headers['x-frame-options'], 'DENY');
    assert.ok(!(await res?.text())?.includes(ADMIN));
    await op.locator('[data-testid="page-sign-in"]').waitFor();
    await shot(op, 'sign-in');
    await op.getByTestId('sign-in-admin-toggle').check();
    await op.getByTestId('sign-in-admin-token').fill(ADMIN);
    await op.getByTestId('sign-in-submit').click();
    await op.locator('[data-testid="page-dashboard"][data-ready="true"]').waitFor();
  });

  it('the operator creates an account with a group, credits it and makes a password link', async () => {
    await open(op, 'accounts');
    await op.getByTestId('create-account').click();
    await op.getByTestId('account-name').fill('acme');
    await op.getByTestId('account-description').fill('Acme Corp');
    await op.locator('[data-testid="account-group"][value="pro"]').check();
    await op.getByTestId('account-submit').click();
    const row = op.locator('[data-testid="table-accounts"] [data-testid="row"][data-id="acme"]');
    await row.waitFor();
    await row.getByTestId('credit').click();
    await op.getByTestId('credit-amount').fill('5');
    await op.getByTestId('credit-note').fill('welcome');
    await op.getByTestId('credit-submit').click();
    await op.getByTestId('notice').waitFor();
    assert.match((await row.locator('[data-col="balance"]').textContent()) ?? '', /5/);
    await row.getByTestId('password-link').click();
    await op.getByTestId('user-name').fill('ada');
    await op.getByTestId('user-submit').click();
    link = ((await op.getByTestId('user-link-value').textContent()) ?? '').trim();
    assert.match(link, /^http:\/\/127\.0\.0\.1:\d+\/console\/#\/password\/[A-Za-z0-9_-]+$/);
    await shot(op, 'accounts');
  });

  it('the user sets a password through the link, signs in, and creates a token shown once', async () => {
    await ada.goto(link);
    await ada.locator('[data-testid="page-password"]').waitFor();
    await shot(ada, 'password');
    await ada.getByTestId('password-new').fill('ada has a long password');
    await ada.getByTestId('password-repeat').fill('ada has a long password');
    await ada.getByTestId('password-submit').click();
    await ada.locator('[data-testid="page-sign-in"]').waitFor();
    await ada.getByTestId('sign-in-name').fill('ada');
    await ada.getByTestId('sign-in-password').fill('ada has a long password');
    await ada.getByTestId('sign-in-submit').click();
    await ada.locator('[data-testid="page-dashboard"][data-ready="true"]').waitFor();
    assert.equal(await ada.getByTestId('nav-accounts').count(), 0, 'no operator pages for a user');
    await open(ada, 'tokens');
    await ada.getByTestId('create-token').click();
    await ada.getByTestId('token-name').fill('ada-laptop');
    await ada.getByTestId('token-group').selectOption('pro');
    await ada.getByTestId('token-submit').click();
    secret = ((await ada.getByTestId('new-key-value').textContent()) ?? '').trim();
    assert.match(secret, /^sk-[A-Za-z0-9_-]{20,}$/);
    await ada.getByTestId('copy').click();
    assert.equal(await ada.evaluate('navigator.clipboard.readText()'), secret);
    await shot(ada, 'token-created');
    await ada.getByTestId('new-key-done').click();
    await ada.reload();
    await ada.locator('[data-testid="page-tokens"][data-ready="true"]').waitFor();
    assert.ok(!(await ada.content()).includes(secret), 'the key is never shown again');
    await ada.locator('[data-testid="table-keys"] [data-testid="row"]').first().waitFor();
  });

  it('a call through the openai SDK shows in the usage log, its totals, the dashboard and its chart; the CSV equals the records', async () => {
    const client = new OpenAI({ apiKey: secret, baseURL: `${gw.url}/v1`, maxRetries: 0 });
    const answer = await client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hello from the browser test' }] });
    assert.equal(answer.choices[0]?.message.content, 'reply from up');
    await open(ada, 'usage');
    const rows = ada.locator('[data-testid="table-usage"] [data-testid="row"]');
    // Records are written in batches: the page shows the request within a few seconds.
    for (let i = 0; i < 50 && (await rows.count()) === 0; i++) {
      await ada.waitForTimeout(100);
      await ada.getByTestId('apply').click();
      await ada.locator('[data-testid="page-usage"][data-ready="true"]').waitFor();
    }
    assert.equal(await rows.count(), 1);
    assert.equal((await rows.first().locator('[data-col="model"]').textContent())?.trim(), 'gpt-4o');
    const totals = ada.getByTestId('totals-row');
    assert.equal((await totals.locator('[data-col="input"]').textContent())?.trim(), '31');
    assert.equal((await totals.locator('[data-col="output"]').textContent())?.trim(), '7');
    assert.match((await totals.locator('[data-col="requests"]').textContent()) ?? '', /^1 requests?, 0 errors$/);
    await shot(ada, 'usage');

    const download = ada.waitForEvent('download');
    await ada.getByTestId('export-csv').click();
    const csv = await readFile((await (await download).path()) ?? '', 'utf8');
    const api = (await (await ada.request.get(`${gw.url}/console/api/usage`)).json()) as { data: Record<string, unknown>[] };
    const lines = csv.trimEnd().split('\r\n');
    const header = (lines[0] ?? '').split(',');
    assert.equal(lines.length - 1, api.data.length);
    for (const [i, line] of lines.slice(1).entries()) {
      const cells = line.split(',');
      for (const [c, name] of header.entries()) assert.equal(cells[c], api.data[i]?.[name] === null ? '' : String(api.data[i]?.[name]), name);
    }

    await open(ada, 'dashboard');
    assert.equal((await ada.getByTestId('card-requests-value').textContent())?.trim(), '1');
    const chart = ada.getByTestId('chart-tokens');
    assert.equal(await chart.getAttribute('data-sums'), 'Input=31;Output=7');
    assert.equal(await chart.locator('canvas').count(), 1, 'uPlot drew it');
    await shot(ada, 'dashboard');
    await open(ada, 'ledger');
    await ada.locator('[data-testid="table-ledger"] [data-testid="row"]').nth(1).waitFor();
    await shot(ada, 'ledger');
  });

  it('a max_spend once spent gives the SDK 402; a revoked token gives it 401', async () => {
    await open(ada, 'tokens');
    const row = ada.locator('[data-testid="table-keys"] [data-testid="row"]').first();
    // The exact spend (the page rounds what it shows): a max_spend of exactly that leaves nothing.
    const listed = (await (await ada.request.get(`${gw.url}/console/api/keys`)).json()) as { data: { spend: string }[] };
    const spent = listed.data[0]?.spend ?? '0';
    assert.ok(Number(spent) > 0, `spend ${spent}`);
    await row.getByTestId('edit').click();
    await ada.getByTestId('token-max-spend').fill(spent);
    await ada.getByTestId('token-submit').click();
    await ada.getByTestId('notice').waitFor();
    const client = new OpenAI({ apiKey: secret, baseURL: `${gw.url}/v1`, maxRetries: 2 });
    const refused = await client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'one more' }] }).catch((e: unknown) => e);
    assert.ok(refused instanceof OpenAI.APIError, String(refused));
    assert.equal(refused.status, 402);
    assert.equal(upstream.requests.length, 1, 'the SDK did not retry a 402, and nothing reached the upstream');
    await row.getByTestId('revoke').click();
    await row.getByTestId('confirm-revoke').click();
    await ada.getByTestId('notice').waitFor();
    const revoked = await client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'after revoke' }] }).catch((e: unknown) => e);
    assert.ok(revoked instanceof OpenAI.AuthenticationError, String(revoked));
    assert.equal(revoked.status, 401);
    await shot(ada, 'tokens');
  });

  it('a key named as markup renders as text, and runs nothing', async () => {
    await ada.getByTestId('create-token').click();
    await ada.getByTestId('token-name').fill(XSS_NAME);
    await ada.getByTestId('token-group').selectOption('pro');
    await ada.getByTestId('token-submit').click();
    await ada.getByTestId('new-key-value').waitFor();
    await ada.getByTestId('new-key-done').click();
    const named = ada.locator('[data-testid="table-keys"] [data-testid="row"] [data-col="name"]', { hasText: XSS_NAME });
    await named.waitFor();
    assert.equal((await named.textContent())?.trim(), XSS_NAME);
    assert.equal(await ada.locator('img[src="x"]').count(), 0);
    assert.deepEqual(dialogs, []);
  });

  it('the operator sees the failing channel cooling down, the instances and the redacted config', async () => {
    const made = (await (
      await op.request.post(`${gw.url}/admin/keys`, { headers: { authorization: `Bearer ${ADMIN}` }, data: { name: 'probe', group: 'pro' } })
    ).json()) as { key: string };
    const client = new OpenAI({ apiKey: made.key, baseURL: `${gw.url}/v1`, maxRetries: 0 });
    const failed = await client.chat.completions.create({ model: 'gpt-flaky', messages: [{ role: 'user', content: 'x' }] }).catch((e: unknown) => e);
    assert.ok(failed instanceof OpenAI.APIError && failed.status === 503, String(failed));
    await open(op, 'channels');
    const flakyRow = op.locator('[data-testid="table-channels"] [data-testid="row"][data-id="flaky"]');
    assert.match((await flakyRow.textContent()) ?? '', /cool/i);
    const upRow = op.locator('[data-testid="table-channels"] [data-testid="row"][data-id="up"]');
    assert.doesNotMatch((await upRow.textContent()) ?? '', /cooling/i);
    await shot(op, 'channels');
    await open(op, 'instances');
    await op.getByTestId('self').waitFor();
    await shot(op, 'instances');
    await open(op, 'config');
    const yaml = (await op.getByTestId('config-yaml').textContent()) ?? '';
    assert.match(yaml, /name: flaky/);
    assert.ok(!yaml.includes('sk-up-secret') && !yaml.includes(ADMIN), 'secrets are redacted');
    await op.getByTestId('config-reload').click();
    await op.getByTestId('notice').waitFor();
    await shot(op, 'config');
    await open(op, 'dashboard');
    await shot(op, 'dashboard-operator');
  });

  it('fits a phone\'s width, and signing out ends the session', async () => {
    await ada.setViewportSize({ width: 375, height: 800 });
    await open(ada, 'usage');
    const width = Number(await ada.evaluate('document.documentElement.scrollWidth'));
    assert.ok(width <= 375, `the page is ${width}px wide: only tables scroll sideways`);
    await shot(ada, 'usage-phone');
    const cookies = await user.cookies();
    await ada.getByTestId('sign-out').click();
    await ada.locator('[data-testid="page-sign-in"]').waitFor();
    const cookie = cookies.find((c) => c.name === 'gw_console');
    assert.ok(cookie !== undefined && cookie.httpOnly && cookie.sameSite === 'Strict');
    const after = await fetch(`${gw.url}/console/api/session`, { headers: { cookie: `gw_console=${cookie.value}` } });
    assert.equal(after.status, 401, 'the old cookie no longer works');
  });
});
