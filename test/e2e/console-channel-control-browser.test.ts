// Channel control in real Chromium (issue 44): the operator disables a channel on instance A's console page; instance
// B (another gateway on the same store) stops sending it requests within a second, told through Redis in one run and
// by polling the store in the other; enabling brings it back; a weight set on the page shifts B's traffic; B restarted
// on the same store keeps the override; a channel out of rotation is put back with the button beside its state.
// Traffic is counted at the fake upstreams. Screenshots under
// test-output/console-channel-control/.

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { browserSkip, consolePagesBuilt, launchChromium, outputDir } from '../helpers/browser.js';
import { postChat } from '../helpers/chat-requests.js';
import { consoleSignIn } from '../helpers/console-session.js';
import { FakeOpenAI } from '../helpers/fake-openai.js';
import { configWith, startGatewayUnderTest, type GatewayUnderTest } from '../helpers/gateway-under-test.js';
import { until } from '../helpers/poll.js';

const ADMIN = 'test-admin-token-0123456789';
const REDIS_URL = process.env['GATEWAY_TEST_REDIS_URL'];
/** The promise: an override is in force on every instance within a second of the operator's change. */
const FLEET_MS = 1_000;

const NO_REDIS = 'GATEWAY_TEST_REDIS_URL is not set (no Redis server to test against)';
/** `lostNotices`: A and B on Redis under different prefixes, so B never hears A's notice: its polling must do. */
const variants = [
  { name: 'store polling', redis: null, lostNotices: false, skip: false as string | false },
  { name: 'Redis pub/sub', redis: REDIS_URL ?? null, lostNotices: false, skip: REDIS_URL === undefined ? NO_REDIS : (false as string | false) },
  { name: 'Redis, its notices lost', redis: REDIS_URL ?? null, lostNotices: true, skip: REDIS_URL === undefined ? NO_REDIS : (false as string | false) },
];

for (const variant of variants) {
  describe(`channel control in Chromium, two instances (${variant.name})`, { skip: browserSkip() || variant.skip }, () => {
    const one = new FakeOpenAI('one');
    const two = new FakeOpenAI('two');
    const shots = outputDir('console-channel-control');
    const storeDir = mkdtempSync(join(tmpdir(), 'gw-channel-control-browser-'));
    const problems: string[] = [];
    let a: GatewayUnderTest;
    let b: GatewayUnderTest;
    let browser: Browser;
    let page: Page;
    let yaml = '';

    /** Sends `n` chats to B; how many reached each upstream meanwhile. */
    async function traffic(n: number): Promise<{ one: number; two: number }> {
      const before = { one: one.requests.length, two: two.requests.length };
      for (let i = 0; i < n; i++) {
        const res = await postChat(b.url, { model: 'gpt-4o', messages: [{ role: 'user', content: `hello ${i}` }] });
        assert.equal(res.status, 200, await res.text());
      }
      return { one: one.requests.length - before.one, two: two.requests.length - before.two };
    }

    async function rowOf(name: string) {
      return page.locator(`[data-testid="table-channel-control"] [data-id="${name}"]`).first();
    }

    async function pageReloaded(): Promise<void> {
      await page.reload();
      await page.locator('[data-testid="page-channel-control"][data-ready="true"]').waitFor();
    }

    before(async () => {
      await Promise.all([one.start(), two.start(), consolePagesBuilt()]);
      const prefix = `cc-${process.pid}-${Date.now()}:`;
      yaml = configWith(
        `  - { name: one, type: openai, base_url: "${one.url}", keys: [sk-one-secret-000000000], models: ["gpt-4o"], models_refresh_ms: 0 }
  - { name: two, type: openai, base_url: "${two.url}", keys: [sk-two-secret-000000000], models: ["gpt-4o"], models_refresh_ms: 0 }
`,
        variant.redis === null ? '' : `redis: { url: "${variant.redis}", prefix: "${prefix}", timeout_ms: 1000 }\n`,
      ).replace('sqlite:./gateway.db', `sqlite:${join(storeDir, 'gateway.db')}`);
      a = await startGatewayUnderTest(yaml);
      b = await startGatewayUnderTest(variant.lostNotices ? yaml.replace(prefix, `${prefix}other:`) : yaml);
      browser = await launchChromium();
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      const session = await consoleSignIn(a.url, { admin_token: ADMIN });
      const [name, value] = session.cookie.split('=') as [string, string];
      await context.addCookies([{ name, value, url: a.url }]);
      page = await context.newPage();
      page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
      await page.goto(`${a.url}/console/#/channel-control`);
      await page.locator('[data-testid="page-channel-control"][data-ready="true"]').waitFor();
    });
    after(async () => {
      await browser?.close();
      await b?.stop();
      await a?.stop();
      await Promise.all([one.close(), two.close()]);
      rmSync(storeDir, { recursive: true, force: true });
    });

    it('both channels serve B at first', async () => {
      const seen = await traffic(30);
      assert.ok(seen.one > 0 && seen.two > 0, JSON.stringify(seen));
    });

    it('disabled on A in the page: B sends the channel nothing within a second; enabled: it is back', async () => {
      const row = await rowOf('one');
      await row.getByTestId('channel-disable').click();
      const clicked = Date.now();
      await (await rowOf('one')).getByTestId('channel-enable').waitFor();
      assert.equal(await (await rowOf('one')).getByTestId('channel-state').textContent(), 'disabled at run time');
      await page.screenshot({ path: join(shots, `${variant.name.replace(/\W+/g, '-')}-disabled.png`), fullPage: true });
      // Each probe is a burst of 10 with weights 1:1: a channel still routed to would get some of them.
      await until('B to stop sending to "one"', async () => ((await traffic(10)).one === 0 ? true : undefined), { timeoutMs: FLEET_MS, intervalMs: 20 });
      assert.ok(Date.now() - clicked <= FLEET_MS + 500, `took ${Date.now() - clicked} ms`);
      const after = await traffic(30);
      assert.deepEqual(after, { one: 0, two: 30 });

      await (await rowOf('one')).getByTestId('channel-enable').click();
      await (await rowOf('one')).getByTestId('channel-disable').waitFor();
      await until('B to send to "one" again', async () => ((await traffic(10)).one > 0 ? true : undefined), { timeoutMs: FLEET_MS * 2, intervalMs: 20 });
    });

    it('a weight set on the page shifts B\'s traffic, shown beside the YAML value', async () => {
      const row = await rowOf('two');
      await row.getByTestId('channel-weight-input').fill('19');
      await row.getByTestId('channel-weight-set').click();
      await until('the page to show the override', async () => ((await (await rowOf('two')).getByTestId('channel-weight').textContent()) === 'weight 19 (yaml 1)' ? true : undefined), { timeoutMs: 5_000, intervalMs: 50 });
      await page.screenshot({ path: join(shots, `${variant.name.replace(/\W+/g, '-')}-weight.png`), fullPage: true });
      await until('B to apply the weight', () => (b.gateway.runtime.current.services.router.overrides.snapshot.get('two')?.weight === 19 ? true : undefined), { timeoutMs: FLEET_MS, intervalMs: 20 });
      // 1:19 gives "one" 5% in expectation: 200 requests see it under 25% with overwhelming probability (1:1 is 50%).
      const seen = await traffic(200);
      assert.ok(seen.one < 50 && seen.two > 150, JSON.stringify(seen));
      await (await rowOf('two')).getByTestId('channel-clear').click();
      await until('the page to show the YAML value', async () => ((await (await rowOf('two')).getByTestId('channel-weight').textContent()) === 'weight 1' ? true : undefined), { timeoutMs: 5_000, intervalMs: 50 });
    });

    it('a channel out of rotation has a button beside its state that puts it back (on B too through Redis)', async () => {
      const strict = { errors: 1, window: 1, probeAfterMs: 600_000, probeMaxMs: 600_000 };
      const rotationOf = (gw: GatewayUnderTest) => gw.gateway.runtime.current.services.router.rotation;
      rotationOf(a).record('one', strict, 'failed', false);
      const fleet = variant.redis !== null && !variant.lostNotices;
      await until('one out on A', () => (rotationOf(a).check('one') === 'out' ? true : undefined), { timeoutMs: 5_000, intervalMs: 20 });
      if (fleet) await until('one out on B', () => (rotationOf(b).check('one') === 'out' ? true : undefined), { timeoutMs: 5_000, intervalMs: 20 });
      await pageReloaded();
      assert.equal(await (await rowOf('one')).getByTestId('channel-rotation').textContent(), 'out of rotation');
      assert.equal(await (await rowOf('two')).getByTestId('channel-rotation-reset').count(), 0, 'no button for a channel in rotation');
      await page.screenshot({ path: join(shots, `${variant.name.replace(/\W+/g, '-')}-out-of-rotation.png`), fullPage: true });
      await (await rowOf('one')).getByTestId('channel-rotation-reset').click();
      await until('the page to show it in rotation', async () => ((await (await rowOf('one')).getByTestId('channel-rotation-reset').count()) === 0 ? true : undefined), { timeoutMs: 5_000, intervalMs: 50 });
      assert.equal(rotationOf(a).check('one'), 'in');
      if (fleet) await until('one back on B', () => (rotationOf(b).check('one') === 'in' ? true : undefined), { timeoutMs: FLEET_MS, intervalMs: 20 });
      // Without Redis (or its notices lost) B keeps its own rotation: put back there by its own word.
      if (!fleet) rotationOf(b).taken('one', 0);
    });

    it('B restarted on the same store keeps the override', async () => {
      await (await rowOf('one')).getByTestId('channel-disable').click();
      await (await rowOf('one')).getByTestId('channel-enable').waitFor();
      await b.stop();
      b = await startGatewayUnderTest(yaml);
      assert.deepEqual(await traffic(20), { one: 0, two: 20 });
      await pageReloaded();
      assert.equal(await (await rowOf('one')).getByTestId('channel-state').textContent(), 'disabled at run time');
      assert.deepEqual(problems, []);
    });
  });
}
