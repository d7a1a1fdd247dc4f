// Request detail in real Chromium (issue 44), against a gateway over loopback with a real store and fake OpenAI
// upstreams (one answering 503, tried first): a failover's detail, with its two attempts and its charge, opened from
// the usage log's row, from the ledger's charge and from the request search box; a charge's requests; another
// account's request id finds nothing; the price page as a user of each of two groups (one at half price). Screenshots
// under test-output/console-request-detail/.

import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { browserSkip, consolePagesBuilt, launchChromium, outputDir } from '../helpers/browser.js';
import { consoleAccountUser, consoleSignIn, creditAccount } from '../helpers/console-session.js';
import { FakeOpenAI } from '../helpers/fake-openai.js';
import { startGatewayUnderTest, type GatewayUnderTest } from '../helpers/gateway-under-test.js';
import { until } from '../helpers/poll.js';

const ADMIN = 'request-detail-browser-admin-0123456789';
const ACME_KEY = 'sk-acme-detail-browser-0123456789';

describe('request detail in Chromium', { skip: browserSkip() }, () => {
  const up = new FakeOpenAI('up');
  const flaky = new FakeOpenAI('flaky');
  const shots = outputDir('console-request-detail');
  const problems: string[] = [];
  let gw: GatewayUnderTest;
  let browser: Browser;
  let ada: Page;
  let ivan: Page;
  let failover = '';

  async function shot(page: Page, name: string): Promise<void> {
    await page.screenshot({ path: join(shots, `${name}.png`), fullPage: true });
  }

  async function signedIn(name: string, password: string): Promise<Page> {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
    page.on('console', (m) => {
      if (m.type() === 'error' && /Content Security Policy|Refused to/i.test(m.text())) problems.push(`CSP: ${m.text()}`);
    });
    await page.goto(`${gw.url}/console/`);
    await page.getByTestId('sign-in-name').fill(name);
    await page.getByTestId('sign-in-password').fill(password);
    await page.getByTestId('sign-in-submit').click();
    await page.locator('[data-testid="page-dashboard"][data-ready="true"]').waitFor();
    return page;
  }

  async function open(page: Page, name: string): Promise<void> {
    await page.getByTestId(`nav-${name}`).click();
    await page.locator(`[data-testid="page-${name}"][data-ready="true"]`).waitFor();
  }

  /** The drawer shows the failover: its two attempts in order, the model served, the price, the cost and its charge. */
  async function showsFailover(page: Page): Promise<void> {
    const detail = page.locator(`[data-testid="request-drawer"] [data-testid="request-detail"][data-id="${failover}"]`);
    await detail.waitFor();
    const attempts = detail.getByTestId('attempt');
    assert.equal(await attempts.count(), 2);
    const cells = async (i: number): Promise<string[]> =>
      Promise.all(['channel', 'status', 'error'].map(async (c) => ((await attempts.nth(i).locator(`[data-col="${c}"]`).textContent()) ?? '').trim()));
    assert.deepEqual(await cells(0), ['flaky', '503', 'status_503']);
    assert.deepEqual(await cells(1), ['up', '200', '']);
    assert.equal((await detail.getByTestId('detail-model').textContent())?.trim(), 'gpt-4o');
    assert.equal((await detail.getByTestId('detail-channel').textContent())?.trim(), 'up');
    assert.equal((await detail.getByTestId('detail-key').textContent())?.trim(), 'acme-bot');
    assert.match((await detail.getByTestId('price-input').textContent()) ?? '', /2\.5/);
    assert.match((await detail.getByTestId('multiplier').textContent()) ?? '', /×1$/);
    assert.match((await detail.getByTestId('detail-cost').textContent()) ?? '', /[0-9]/);
    assert.match((await detail.getByTestId('detail-charge').textContent()) ?? '', /#[0-9]+: .*1 request/);
    assert.ok(!(await page.content()).includes(ACME_KEY), 'never the secret');
  }

  before(async () => {
    await consolePagesBuilt();
    await up.start();
    await flaky.start();
    flaky.reply = () => ({ kind: 'status', status: 503 });
    gw = await startGatewayUnderTest(`server: { port: 0, host: 127.0.0.1, admin_token: ${ADMIN} }
store: { url: "sqlite:./gateway.db" }
pricing:
  models:
    "gpt-*": { input: 2.50, output: 10.00, cache_read: 1.25 }
  calls: { CreateAsset: 0.01 }
groups:
  pro: { models: ["*"] }
  cheap: { models: ["gpt-4o"], price_multiplier: 0.5 }
accounts: [{ name: acme, groups: [pro] }, { name: initech, groups: [cheap] }]
keys:
  - { name: acme-bot, key: ${ACME_KEY}, group: pro, account: acme }
channels:
  - { name: flaky, type: openai, base_url: "${flaky.url}", keys: [sk-flaky-secret-00000000], models: ["gpt-4o"], models_refresh_ms: 0, priority: 10, cooldown_ms: 1 }
  - { name: up, type: openai, base_url: "${up.url}", keys: [sk-up-secret-0000000000], models: ["gpt-4o"], models_refresh_ms: 0 }
`);
    await creditAccount(gw.url, ADMIN, 'acme', '10');
    const operator = await consoleSignIn(gw.url, { admin_token: ADMIN });
    const adaApi = await consoleAccountUser(gw.url, operator, 'acme', 'ada', 'ada has a long password');
    await consoleAccountUser(gw.url, operator, 'initech', 'ivan', 'ivan has a long password');
    const res = await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ACME_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'fail me over' }] }),
    });
    assert.equal(res.status, 200);
    await res.arrayBuffer();
    failover = res.headers.get('x-request-id') ?? '';
    // Records are written in batches: wait until this one is (and its charge with it).
    await until('the failover record', async () => ((await fetch(`${gw.url}/console/api/requests/${failover}`, { headers: { cookie: adaApi.cookie } })).status === 200 ? true : undefined), { timeoutMs: 10_000, intervalMs: 20 });
    browser = await launchChromium();
    ada = await signedIn('ada', 'ada has a long password');
    ivan = await signedIn('ivan', 'ivan has a long password');
  });
  after(async () => {
    await browser?.close();
    await gw?.stop();
    await up.close();
    await flaky.close();
  });

  it('opens from a usage log row: both attempts and the charge', async () => {
    await open(ada, 'usage');
    await ada.locator(`[data-testid="table-usage"] [data-testid="row"][data-id="${failover}"] [data-col="model"]`).click();
    await showsFailover(ada);
    await shot(ada, 'usage-drawer');
    await ada.getByTestId('drawer-close').click();
    await ada.getByTestId('request-drawer').waitFor({ state: 'detached' });
  });

  it("opens from the ledger's charge, and the charge lists the requests it covers", async () => {
    await open(ada, 'ledger');
    const charge = ada.locator('[data-testid="table-ledger"] [data-testid="row"].kind-charge');
    assert.equal(await charge.count(), 1);
    assert.equal((await charge.getByTestId('open-request').textContent())?.trim(), failover);
    await charge.getByTestId('open-request').click();
    await showsFailover(ada);
    await shot(ada, 'ledger-drawer');
    // The request's charge, and back to its request.
    await ada.locator('[data-testid="request-drawer"] [data-testid="open-charge"]').click();
    const listed = ada.locator('[data-testid="charge-requests"] [data-testid="charge-request"]');
    await listed.first().waitFor();
    assert.deepEqual(await listed.evaluateAll((items) => items.map((i) => i.getAttribute('data-id'))), [failover]);
    await listed.first().locator('button').click();
    await showsFailover(ada);
    await ada.keyboard.press('Escape');
    await ada.getByTestId('request-drawer').waitFor({ state: 'detached' });
  });

  it('opens from the search box with the x-request-id the client saw; another account finds nothing there', async () => {
    await open(ada, 'requests');
    await ada.getByTestId('request-search-id').fill(` ${failover} `);
    await ada.getByTestId('request-search-submit').click();
    await showsFailover(ada);
    await shot(ada, 'search-drawer');
    await ada.getByTestId('drawer-close').click();
    await ada.getByTestId('request-drawer').waitFor({ state: 'detached' });

    await open(ivan, 'requests');
    await ivan.getByTestId('request-search-id').fill(failover);
    await ivan.getByTestId('request-search-submit').click();
    await ivan.getByTestId('error').waitFor();
    assert.match((await ivan.getByTestId('error').textContent()) ?? '', /No request with id/);
    assert.equal(await ivan.getByTestId('request-detail').count(), 0);
    assert.equal((await ivan.getByTestId('drawer-loading').textContent())?.trim(), 'No such request.');
    await ivan.getByTestId('drawer-close').click();
  });

  it('the price page, as a user of each of two groups', async () => {
    await open(ada, 'prices');
    const pro = ada.locator('[data-testid="price-group"][data-id="pro"]');
    assert.match((await pro.getByTestId('group-multiplier').textContent()) ?? '', /×1$/);
    const adaRow = pro.locator('[data-testid="row"][data-id="gpt-4o"]');
    assert.match((await adaRow.locator('[data-col="input"]').textContent()) ?? '', /2\.5/);
    assert.match((await adaRow.locator('[data-col="output"]').textContent()) ?? '', /10/);
    assert.match((await adaRow.locator('[data-col="cache-read"]').textContent()) ?? '', /1\.25/);
    assert.equal(await ada.locator('[data-testid="price-group"]').count(), 1);
    await shot(ada, 'prices-pro');

    await open(ivan, 'prices');
    const cheap = ivan.locator('[data-testid="price-group"][data-id="cheap"]');
    assert.match((await cheap.getByTestId('group-multiplier').textContent()) ?? '', /×0\.5$/);
    const ivanRow = cheap.locator('[data-testid="row"][data-id="gpt-4o"]');
    assert.match((await ivanRow.locator('[data-col="input"]').textContent()) ?? '', /1\.25/);
    assert.match((await ivanRow.locator('[data-col="output"]').textContent()) ?? '', /5/);
    assert.match((await cheap.locator('[data-testid="price-call"][data-id="CreateAsset"]').textContent()) ?? '', /0\.005/);
    assert.equal(await ivan.locator('[data-testid="price-group"]').count(), 1);
    await shot(ivan, 'prices-cheap');
  });

  it('no script error or CSP violation on any page', () => {
    assert.deepEqual(problems, []);
  });
});
