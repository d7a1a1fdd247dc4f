// The console's layout in real Chromium (issue 44), over real HTTP with a real store: every page of the nav (the page
// registry as the operator sees it, the features' pages and the user's own settings included, so a page added later
// is checked too) at 1280 and 390 px, light and dark: no page-level horizontal scroll, the first three cells of each
// table's first row on screen and not covered (at 390 px rows are cards, their actions in view), the user's name on
// the header's first row at 1280 px; each saved under test-output/console-layout/. The dark theme follows
// prefers-color-scheme until the toggle picks one, which the browser keeps; a table's column choice is kept too.

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

const ADMIN = 'console-layout-browser-admin-0123456789';
const WIDTHS = [1280, 390] as const;
const THEMES = ['light', 'dark'] as const;

interface Geometry {
  readonly scrollWidth: number;
  readonly innerWidth: number;
  readonly problems: string[];
  readonly rows: number;
}

/**
 * In the page: the page-level scroll width, and what is wrong with the first row of each table in view (a string:
 * this code runs in the browser, whose types the tests' tsconfig does not hold).
 */
const MEASURE = `(() => {
  const problems = [];
  let rows = 0;
  for (const table of document.querySelectorAll('main table')) {
    if (table.parentElement.closest('table') !== null) continue;
    const row = table.querySelector('tbody tr[data-testid="row"]');
    if (row === null) continue;
    rows++;
    const name = table.getAttribute('data-testid') || 'table';
    row.scrollIntoView({ block: 'center', inline: 'nearest' });
    for (const cell of Array.from(row.children).slice(0, 3)) {
      const box = cell.getBoundingClientRect();
      const col = cell.getAttribute('data-col') || cell.tagName;
      if (box.width < 1 || box.height < 1 || getComputedStyle(cell).visibility === 'hidden') problems.push(name + ' ' + col + ': hidden');
      else if (box.left < 0 || box.right > innerWidth + 0.5) problems.push(name + ' ' + col + ': off screen (' + Math.round(box.left) + '..' + Math.round(box.right) + ')');
      else {
        const hit = document.elementFromPoint(box.left + Math.min(box.width / 2, 12), box.top + box.height / 2);
        if (hit === null || !cell.contains(hit)) problems.push(name + ' ' + col + ': covered by ' + (hit ? hit.tagName + '.' + hit.className : 'nothing'));
      }
    }
    for (const button of row.querySelectorAll('[data-col="actions"] button')) {
      const box = button.getBoundingClientRect();
      if (box.right > innerWidth + 0.5 || box.left < 0) problems.push(name + ': an action is off screen');
    }
  }
  return { scrollWidth: document.scrollingElement.scrollWidth, innerWidth, problems, rows };
})()`;

/** The mean of the page's background colour's channels (0 black, 255 white). */
const BACKGROUND = `(() => {
  const [r, g, b] = getComputedStyle(document.documentElement).backgroundColor.match(/\\d+/g).map(Number);
  return (r + g + b) / 3;
})()`;

/** Goes to a hash route in the page (the app routes it as a click on a link would). */
const goTo = (p: Page, path: string): Promise<unknown> => p.evaluate(`void (location.hash = ${JSON.stringify(path)})`);

describe('the console\'s layout at 1280 and 390 px, light and dark, in Chromium', { skip: browserSkip() }, () => {
  const upstream = new FakeOpenAI('up');
  const flaky = new FakeOpenAI('flaky');
  let gw: GatewayUnderTest;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const shots = outputDir('console-layout');
  const problems: string[] = [];

  /** Opens a hash route and waits for its page to be drawn with its data. */
  async function visit(p: Page, path: string, title: string): Promise<void> {
    await goTo(p, path);
    await until(`the ${path} page`, async () => ((await p.title()).startsWith(`${title} ·`) ? true : undefined), { timeoutMs: 10_000, intervalMs: 25 });
    await p.locator('section.page[data-ready="true"]').waitFor();
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
  pro: { models: ["*"], limits: { rpm: 600, tpm: 1000000, concurrency: 8 } }
accounts: [{ name: acme, groups: [pro] }]
keys:
  - { name: daily-ci, key: sk-layout-daily-cap-0123456789abcdef, group: pro, account: acme, max_spend: { amount: "5.00", period: day } }
channels:
  - { name: up, type: openai, base_url: "${upstream.url}", keys: [sk-up-secret-0000000000], models: ["gpt-4o", "gpt-4o-mini"], models_refresh_ms: 0 }
  - { name: flaky, type: openai, base_url: "${flaky.url}", keys: [sk-flaky-secret-00000000], models: ["gpt-flaky"], models_refresh_ms: 0, cooldown_ms: 60000 }
`);
    await creditAccount(gw.url, ADMIN, 'acme', '20.00');
    const operator = await consoleSignIn(gw.url, { admin_token: ADMIN });
    const ada = await consoleAccountUser(gw.url, operator, 'acme', 'ada', 'ada has a long password');
    // A key with every column filled (expiry, max spend, limits), and requests served and failed.
    const made = await fetch(`${gw.url}/console/api/keys`, {
      method: 'POST',
      headers: { cookie: ada.cookie, 'x-csrf-token': ada.csrf, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'ada-laptop-with-a-long-name', group: 'pro', expires_at: '2099-12-31', max_spend: '10', limits: { rpm: 60, tpm: 100000, concurrency: 4 } }),
    });
    const key = String(((await made.json()) as { key: string }).key);
    for (const model of ['gpt-4o', 'gpt-4o-mini', 'gpt-flaky']) await postChat(gw.url, { model, messages: [{ role: 'user', content: 'hi' }] }, { key });
    await gw.usage();

    browser = await launchChromium();
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    page = await context.newPage();
    page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
    await page.goto(`${gw.url}/console/`);
    await page.getByTestId('sign-in-admin-toggle').check();
    await page.getByTestId('sign-in-admin-token').fill(ADMIN);
    await page.getByTestId('sign-in-submit').click();
    await page.locator('[data-testid="page-dashboard"][data-ready="true"]').waitFor();
    // The account the operator's pages show (the ledger and videos need one), kept from page to page.
    await page.getByTestId('account-select').selectOption('acme');
    await page.locator('[data-testid="page-dashboard"][data-ready="true"]').waitFor();
  });
  after(async () => {
    await browser?.close();
    await gw?.stop();
    await upstream.close();
    await flaky.close();
  });

  it('the header: the user\'s pages and name on one row at 1280 px, the operator\'s pages on the row below', async () => {
    const brand = await page.locator('.brand').boundingBox();
    const who = await page.getByTestId('who').boundingBox();
    const signOut = await page.getByTestId('sign-out').boundingBox();
    assert.ok(brand !== null && who !== null && signOut !== null);
    const middle = (b: { y: number; height: number }): number => b.y + b.height / 2;
    assert.ok(Math.abs(middle(who) - middle(brand)) < 8, `the name is on the brand's row (${middle(who)} vs ${middle(brand)})`);
    assert.ok(signOut.x + signOut.width <= 1280, 'sign out in view');
    const operatorRow = await page.getByTestId('nav-operator').boundingBox();
    assert.ok(operatorRow !== null && operatorRow.y > middle(brand), 'the operator row under the first');
    assert.equal(await page.getByTestId('nav-operator').getByTestId('nav-accounts').count(), 1);
  });

  it('every page of the nav, at 1280 and 390 px, light and dark: no page-level sideways scroll, the first three cells of each table in view and uncovered', async () => {
    const links = await page.locator('header a[data-testid^="nav-"]').evaluateAll((as) =>
      as.map((a) => ({ path: (a.getAttribute('href') ?? '').replace(/^#/, ''), title: (a.getAttribute('data-testid') ?? '').slice(4) })),
    );
    // The titles as the registry has them (document.title): read from each page once it is open.
    assert.ok(links.length >= 10, `the nav lists the pages: ${links.map((l) => l.path).join(' ')}`);
    let tables = 0;
    for (const theme of THEMES) {
      await page.emulateMedia({ colorScheme: theme });
      await until(`the ${theme} theme shown`, async () => ((await page.evaluate('document.documentElement.dataset.theme')) === theme ? true : undefined), { timeoutMs: 5_000, intervalMs: 25 });
      for (const width of WIDTHS) {
        await page.setViewportSize({ width, height: 900 });
        for (const link of links) {
          await goTo(page, link.path);
          await until(`${link.path} open`, async () => ((await page.evaluate('location.hash')) === `#${link.path}` && (await page.locator('section.page').count()) === 1 ? true : undefined), { timeoutMs: 10_000, intervalMs: 25 });
          await page.locator('section.page[data-ready="true"]').waitFor();
          const geometry = (await page.evaluate(MEASURE)) as Geometry;
          tables += geometry.rows;
          assert.ok(geometry.scrollWidth <= geometry.innerWidth, `${link.path} at ${width} px (${theme}) scrolls sideways: ${geometry.scrollWidth} > ${geometry.innerWidth}`);
          assert.deepEqual(geometry.problems, [], `${link.path} at ${width} px (${theme})`);
          await page.evaluate('window.scrollTo(0, 0)');
          await page.screenshot({ path: join(shots, `${link.title}-${width}-${theme}.png`), fullPage: true });
        }
      }
    }
    assert.ok(tables >= 4 * 6, `tables with rows were measured (${tables})`);
    assert.deepEqual(problems, []);
  });

  it('dark follows prefers-color-scheme; the toggle picks a theme that this browser keeps', async () => {
    await page.setViewportSize({ width: 1280, height: 900 });
    const background = async (): Promise<number> => Number(await page.evaluate(BACKGROUND));
    // The system's switch reaches the page as an event (theme.ts sets data-theme): waited for, not read at once.
    const becomes = (what: string, dark: boolean): Promise<true> =>
      until(what, async () => ((dark ? (await background()) < 60 : (await background()) > 200) ? true : undefined), { timeoutMs: 5_000, intervalMs: 25 });
    await page.emulateMedia({ colorScheme: 'dark' });
    await becomes('dark by the system', true);
    const toggleShows = (theme: string): Promise<true> =>
      until(`the toggle showing ${theme}`, async () => ((await page.getByTestId('theme-toggle').getAttribute('data-theme-shown')) === theme ? true : undefined), { timeoutMs: 5_000, intervalMs: 25 });
    await toggleShows('dark');
    await page.emulateMedia({ colorScheme: 'light' });
    await becomes('light by the system', false);
    await toggleShows('light');
    await page.getByTestId('theme-toggle').click();
    assert.ok((await background()) < 60, 'dark by the toggle, the system still light');
    await page.reload();
    await page.locator('section.page[data-ready="true"]').waitFor();
    assert.ok((await background()) < 60, 'kept across a reload');
    assert.equal(await page.getByTestId('theme-toggle').getAttribute('aria-pressed'), 'true');
    await page.getByTestId('theme-toggle').click();
    await page.emulateMedia({ colorScheme: 'dark' });
    // A chosen theme ignores the system: still light once the page has had the event.
    await toggleShows('light');
    assert.ok((await background()) > 200, 'light by the toggle, the system dark');
  });

  it('a table\'s columns: the rest chosen in its Columns menu, kept in this browser', async () => {
    await visit(page, '/usage', 'Usage');
    const heads = (): Promise<string[]> => page.locator('[data-testid="table-usage"] thead th').evaluateAll((ths) => ths.map((th) => th.getAttribute('data-col') ?? ''));
    const first = await heads();
    assert.deepEqual(first.slice(0, 3), ['time', 'status', 'model'], 'what tells a request apart and how it ended first');
    assert.ok(!first.includes('ttft'));
    await page.getByTestId('columns-table-usage').locator('summary').click();
    await page.getByTestId('column-ttft').check();
    await page.getByTestId('column-channel').uncheck();
    await until('the TTFT column', async () => ((await heads()).includes('ttft') ? true : undefined), { timeoutMs: 5_000, intervalMs: 25 });
    await page.reload();
    await page.locator('[data-testid="page-usage"][data-ready="true"]').waitFor();
    const kept = await heads();
    assert.ok(kept.includes('ttft') && !kept.includes('channel'), kept.join(' '));
    const tokens = await (async () => {
      await visit(page, '/tokens', 'Tokens');
      return page.locator('[data-testid="table-keys"] thead th').evaluateAll((ths) => ths.map((th) => th.getAttribute('data-col') ?? ''));
    })();
    assert.deepEqual(tokens.slice(0, 3), ['name', 'status', 'expires']);
    // A max_spend that resets says its period and when it turns, beside what is left of it.
    const period = (await page.getByTestId('max-spend-period').first().textContent()) ?? '';
    assert.match(period, /^per day, resets \d{4}-\d{2}-\d{2} \d{2}:\d{2}/);
  });
});
