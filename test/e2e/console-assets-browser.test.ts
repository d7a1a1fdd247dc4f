// The console's Assets page in real Chromium (issue 26 item 9), against the mock channel's asset library: an account's
// user signs in and sees the group and the asset made through the API, the asset's status turning Active while the page
// is open, a group named as markup as text, and no rebind form; the operator narrows the page to the account, rebinds
// the group of a revoked key to the account's new key through the form, and the list shows it bound to that key
// (which then reads it through the API). Screenshots under test-output/console-browser/.

import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { browserSkip, consolePagesBuilt, launchChromium, outputDir } from '../helpers/browser.js';
import { consoleAccountUser, consoleSignIn } from '../helpers/console-session.js';
import { startGatewayUnderTest, type GatewayUnderTest } from '../helpers/gateway-under-test.js';

const ADMIN = 'console-assets-browser-admin-token-0123456789';
const ACME_BOT = 'sk-acme-bot-assets-browser-0123456789';
const XSS_NAME = '<img src=x onerror=alert(1)>';

describe('the console\'s Assets page in Chromium', { skip: browserSkip() }, () => {
  let gw: GatewayUnderTest;
  let browser: Browser;
  let op: Page;
  let ada: Page;
  const shots = outputDir('console-browser');
  const problems: string[] = [];
  const keys: Record<string, { key: string; id: string }> = {};
  let group = '';
  let asset = '';

  async function action(key: string, name: string, body: Record<string, unknown>): Promise<{ status: number; result: Record<string, unknown> }> {
    const res = await fetch(`${gw.url}/v1/videogen/asset/${name}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const json = (await res.json()) as { Result?: Record<string, unknown> };
    return { status: res.status, result: json.Result ?? {} };
  }

  async function admin(method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
    const res = await fetch(`${gw.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
      body: body === undefined ? null : JSON.stringify(body),
    });
    assert.ok(res.ok, `${method} ${path}: ${res.status}`);
    return (await res.json()) as Record<string, unknown>;
  }

  async function makeKey(name: string): Promise<void> {
    const made = await admin('POST', '/admin/keys', { name, group: 'pro', account: 'acme' });
    keys[name] = { key: String(made['key']), id: String(made['id']) };
  }

  async function newPage(): Promise<Page> {
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    // An alert() would mean markup ran; a CSP violation shows in the console as an error; a script error as a page error.
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

  async function openAssets(page: Page): Promise<void> {
    await page.getByTestId('nav-assets').click();
    await page.locator('[data-testid="page-assets"][data-ready="true"]').waitFor();
  }

  before(async () => {
    await consolePagesBuilt();
    gw = await startGatewayUnderTest(
      `server: { port: 0, host: 127.0.0.1, admin_token: ${ADMIN} }
store: { url: "sqlite:./gateway.db" }
groups:
  pro: { models: ["*"] }
accounts: [{ name: acme, groups: [pro] }, { name: globex, groups: [pro] }]
keys:
  - { name: acme-bot, key: ${ACME_BOT}, group: pro, account: acme }
channels:
  - { name: library, type: mock, assets: true, models: ["demo-*"] }
`,
      { resolveHost: async () => ['93.184.215.14'] },
    );
    await consoleAccountUser(gw.url, await consoleSignIn(gw.url, { admin_token: ADMIN }), 'acme', 'ada', 'ada has a long password');
    await makeKey('acme-old');
    const made = await action(keys['acme-old']?.key ?? '', 'CreateAssetGroup', { Name: 'cats' });
    group = String(made.result['Id']);
    asset = String((await action(keys['acme-old']?.key ?? '', 'CreateAsset', { GroupId: group, URL: 'https://example.com/cat.png', AssetType: 'Image' })).result['Id']);
    assert.equal((await action(ACME_BOT, 'CreateAssetGroup', { Name: XSS_NAME })).status, 200);
    browser = await launchChromium();
    op = await newPage();
    ada = await newPage();
  });
  after(async () => {
    await browser?.close();
    await gw?.stop();
  });

  it('a user sees the group and the asset made through the API, its status turning Active, and no rebind form', async () => {
    await ada.goto(`${gw.url}/console/`);
    await ada.getByTestId('sign-in-name').fill('ada');
    await ada.getByTestId('sign-in-password').fill('ada has a long password');
    await ada.getByTestId('sign-in-submit').click();
    await ada.locator('[data-testid="page-dashboard"][data-ready="true"]').waitFor();
    await openAssets(ada);
    const row = ada.locator(`[data-testid="group"][data-id="${group}"]`);
    assert.equal((await row.locator('[data-col="name"]').first().textContent())?.trim(), 'cats');
    assert.match((await row.locator('[data-col="key"]').textContent()) ?? '', /acme-old/);
    assert.equal((await row.getByTestId('bound').textContent())?.trim(), 'bound');
    const item = row.locator(`[data-testid="asset"][data-id="${asset}"]`);
    assert.equal((await item.locator('[data-col="type"]').textContent())?.trim(), 'Image');
    assert.match((await item.getByTestId('asset-status').textContent()) ?? '', /^(Processing|Active)$/);
    // The page reads Processing assets again every 2 s; the mock's turn Active 2 s after they were made.
    await item.getByTestId('asset-status').filter({ hasText: /^Active$/ }).waitFor({ timeout: 10_000 });
    const named = ada.locator('[data-testid="group"] [data-col="name"]', { hasText: XSS_NAME });
    assert.equal((await named.textContent())?.trim(), XSS_NAME, 'a name as markup is text');
    assert.equal(await ada.locator('img[src="x"]').count(), 0);
    assert.equal(await ada.getByTestId('rebind-form').count(), 0, 'users see no rebind form');
    assert.equal(await ada.getByTestId('account-select').count(), 0);
    await ada.screenshot({ path: join(shots, 'assets-user.png'), fullPage: true });
  });

  it('the operator rebinds a revoked key\'s group to the account\'s new key through the form', async () => {
    await admin('DELETE', `/admin/keys/${keys['acme-old']?.id ?? ''}`);
    await makeKey('acme-new');
    await op.goto(`${gw.url}/console/`);
    await op.getByTestId('sign-in-admin-toggle').check();
    await op.getByTestId('sign-in-admin-token').fill(ADMIN);
    await op.getByTestId('sign-in-submit').click();
    await op.locator('[data-testid="page-dashboard"][data-ready="true"]').waitFor();
    await openAssets(op);
    await op.getByTestId('account-select').selectOption('acme');
    await op.locator('[data-testid="page-assets"][data-ready="true"]').waitFor();
    const row = op.locator(`[data-testid="group"][data-id="${group}"]`);
    await row.getByTestId('bound').filter({ hasText: /^unbound$/ }).waitFor();
    assert.equal(await op.getByTestId('rebind-form').count(), 2, 'a form per group');
    await row.getByTestId('rebind-key').fill('acme-new');
    await row.getByTestId('rebind-submit').click();
    assert.match((await op.getByTestId('notice').textContent()) ?? '', /bound to key acme-new/);
    await row.getByTestId('bound').filter({ hasText: /^bound$/ }).waitFor();
    assert.match((await row.locator('[data-col="key"]').textContent()) ?? '', new RegExp(`acme-new\\s*${keys['acme-new']?.id ?? '-'}`));
    await op.screenshot({ path: join(shots, 'assets.png'), fullPage: true });
    const read = await action(keys['acme-new']?.key ?? '', 'GetAssetGroup', { Id: group });
    assert.deepEqual([read.status, read.result['Id']], [200, group], 'the new key reads the group');
    assert.deepEqual(problems, []);
  });
});
