// The console's Videos page in real Chromium (issue 27), against fake Ark data planes: an account's user signs in and
// sees their account's tasks made through the API (a succeeded one with its cost and a download link, a queued one
// with what is set aside for it, a failed one with its error, a prompt written as markup shown as text), clicks the
// link and gets the MP4's bytes, and never sees another account's task; a task that ends while the page is open turns
// succeeded there; the operator picks an account and sees its tasks. Screenshots under test-output/console-browser/.

import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { browserSkip, consolePagesBuilt, launchChromium, outputDir } from '../helpers/browser.js';
import { consoleAccountUser, consoleSignIn } from '../helpers/console-session.js';
import { until } from '../helpers/poll.js';
import { ADMIN, ALICE, ALICE_TWO, BOB, SEEDANCE, startVideoGateway, startVideoPlanes, type VideoGateway, type VideoPlanes } from '../helpers/video-gateway.js';
import { VIDEO_TASKS } from '../../features/video/store-part.js';

const WAIT = { timeoutMs: 10_000, intervalMs: 25 };
const XSS_PROMPT = '<img src=x onerror=alert(1)> a cat on a skateboard';

describe('the console\'s Videos page in Chromium', { skip: browserSkip() }, () => {
  let planes: VideoPlanes;
  let v: VideoGateway;
  let browser: Browser;
  let op: Page;
  let ada: Page;
  const shots = outputDir('console-browser');
  const problems: string[] = [];
  const tasks: Record<string, string> = {};
  const upstream: Record<string, { readonly id: string; readonly fake: VideoPlanes['ark'] }> = {};

  async function newPage(): Promise<Page> {
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true })).newPage();
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

  const settled = (id: string): Promise<number> => until(`${id} settled`, async () => (await v.gw.gateway.runtime.deps.store.part(VIDEO_TASKS).task(id))?.settledAt ?? undefined, WAIT);

  /** Makes a task through `key`, remembering the upstream task behind it (and the fake that runs it). */
  async function makeTask(name: string, key: string, prompt: string): Promise<void> {
    const made = await v.request(key, 'POST', '/v1/videos', { model: SEEDANCE, prompt, seconds: '5', size: '1280x720' });
    assert.equal(made.status, 200, made.text);
    tasks[name] = String(made.body['id']);
    const row = await v.gw.gateway.runtime.deps.store.part(VIDEO_TASKS).task(tasks[name]);
    upstream[name] = { id: row?.upstreamId ?? '', fake: row?.channel === 'ark-two' ? planes.arkTwo : planes.ark };
  }

  const row = (page: Page, name: string) => page.locator(`[data-testid="table-videos"] [data-testid="row"][data-id="${tasks[name] ?? '-'}"]`);
  const cell = async (page: Page, name: string, col: string): Promise<string> => ((await row(page, name).locator(`[data-col="${col}"]`).textContent()) ?? '').trim();

  before(async () => {
    await consolePagesBuilt();
    planes = await startVideoPlanes();
    v = await startVideoGateway(planes);
    await consoleAccountUser(v.gw.url, await consoleSignIn(v.gw.url, { admin_token: ADMIN }), 'acme', 'ada', 'ada has a long password');
    await makeTask('done', ALICE, 'a fox waves at the camera');
    upstream['done']?.fake.finish(upstream['done'].id, { totalTokens: 108_900, duration: 5 });
    await settled(tasks['done'] ?? '');
    await makeTask('failed', ALICE, XSS_PROMPT);
    upstream['failed']?.fake.fail(upstream['failed'].id, 'OutputVideoSensitiveContentDetected', 'The output video may contain sensitive information.');
    await settled(tasks['failed'] ?? '');
    await makeTask('queued', ALICE_TWO, 'a slow pan over a harbour at dawn');
    await makeTask('bob', BOB, 'bob\'s own video');
    upstream['bob']?.fake.finish(upstream['bob'].id);
    await settled(tasks['bob'] ?? '');
    browser = await launchChromium();
    op = await newPage();
    ada = await newPage();
  });
  after(async () => {
    await browser?.close();
    await v?.stop();
    await planes?.close();
  });

  it('a user sees their account\'s tasks with status and cost, and not another account\'s', async () => {
    await ada.goto(`${v.gw.url}/console/`);
    await ada.getByTestId('sign-in-name').fill('ada');
    await ada.getByTestId('sign-in-password').fill('ada has a long password');
    await ada.getByTestId('sign-in-submit').click();
    await ada.locator('[data-testid="page-dashboard"][data-ready="true"]').waitFor();
    await ada.getByTestId('nav-videos').click();
    await ada.locator('[data-testid="page-videos"][data-ready="true"]').waitFor();

    const ids = await ada.locator('[data-testid="table-videos"] [data-testid="row"]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-id')));
    assert.deepEqual(ids, [tasks['queued'], tasks['failed'], tasks['done']], 'newest first, every key of the account');
    assert.equal(await row(ada, 'bob').count(), 0, 'another account\'s task is not there');
    assert.ok(!((await ada.content()).includes(tasks['bob'] ?? '-')));

    assert.equal(await cell(ada, 'done', 'status'), 'succeeded');
    assert.equal(await cell(ada, 'done', 'cost'), '$0.2178');
    assert.equal(await cell(ada, 'done', 'progress'), '100%');
    assert.equal(await cell(ada, 'done', 'key'), 'alice');
    assert.equal(await cell(ada, 'done', 'model'), SEEDANCE);
    assert.equal(((await row(ada, 'failed').getByTestId('task-status').textContent()) ?? '').trim(), 'failed');
    assert.equal(((await row(ada, 'failed').getByTestId('task-error').textContent()) ?? '').trim(), 'OutputVideoSensitiveContentDetected');
    assert.equal(await cell(ada, 'failed', 'cost'), '$0.00');
    assert.equal(await cell(ada, 'failed', 'prompt'), XSS_PROMPT, 'a prompt written as markup is text');
    assert.equal(await ada.locator('img[src="x"]').count(), 0);
    assert.equal(await cell(ada, 'queued', 'status'), 'queued');
    assert.match(await cell(ada, 'queued', 'cost'), /^≤ \$[0-9.]+$/, 'what is set aside until it ends');
    assert.equal(await cell(ada, 'queued', 'key'), 'alice-two');
    assert.equal(await row(ada, 'queued').getByTestId('download').count(), 0, 'no link before it succeeded');
    assert.equal(await row(ada, 'failed').getByTestId('download').count(), 0);
    assert.equal(await ada.getByTestId('account-select').count(), 0, 'a user has no account selector');
    await ada.screenshot({ path: join(shots, 'videos-user.png'), fullPage: true });
  });

  it('clicking the download link saves the MP4 the upstream made', async () => {
    const link = row(ada, 'done').getByTestId('download');
    assert.equal(await link.getAttribute('href'), `/console/api/videos/${tasks['done'] ?? ''}/content`);
    const download = ada.waitForEvent('download');
    await link.click();
    const saved = await download;
    assert.equal(saved.suggestedFilename(), `${tasks['done'] ?? ''}.mp4`);
    const bytes = await readFile((await saved.path()) ?? '');
    assert.ok(bytes.equals(upstream['done']?.fake.video ?? Buffer.alloc(0)), 'the fake\'s file, byte for byte');
    // The same URL for another account's task is a 404 with this page's cookies.
    const foreign = await ada.request.get(`${v.gw.url}/console/api/videos/${tasks['bob'] ?? ''}/content`);
    assert.equal(foreign.status(), 404);
  });

  it('a task that ends while the page is open turns succeeded there, with its cost and link', async () => {
    upstream['queued']?.fake.finish(upstream['queued'].id, { totalTokens: 54_450, duration: 5 });
    // The page reads the list again every 3 s while a task on it is unfinished.
    await row(ada, 'queued').getByTestId('task-status').filter({ hasText: /^succeeded$/ }).waitFor({ timeout: 10_000 });
    assert.equal(await cell(ada, 'queued', 'cost'), '$0.1089');
    assert.equal(await row(ada, 'queued').getByTestId('download').count(), 1);
  });

  it('the operator picks an account and sees its tasks', async () => {
    await op.goto(`${v.gw.url}/console/`);
    await op.getByTestId('sign-in-admin-toggle').check();
    await op.getByTestId('sign-in-admin-token').fill(ADMIN);
    await op.getByTestId('sign-in-submit').click();
    await op.locator('[data-testid="page-dashboard"][data-ready="true"]').waitFor();
    await op.getByTestId('nav-videos').click();
    await op.getByTestId('choose-account').waitFor();
    await op.getByTestId('account-select').selectOption('other');
    await op.locator('[data-testid="page-videos"][data-ready="true"]').waitFor();
    await row(op, 'bob').waitFor();
    assert.equal(await cell(op, 'bob', 'status'), 'succeeded');
    assert.equal(await row(op, 'done').count(), 0);
    await op.getByTestId('account-select').selectOption('acme');
    await row(op, 'done').waitFor();
    assert.equal(await row(op, 'bob').count(), 0);
    await op.screenshot({ path: join(shots, 'videos.png'), fullPage: true });
    assert.deepEqual(problems, []);
  });
});
