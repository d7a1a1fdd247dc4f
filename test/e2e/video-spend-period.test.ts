// A video task counts in the period of a daily max_spend that the gateway's calendar clock says (services.clock, a
// test's here, far from the real date), as a relayed request does: its charge goes to that day's spend row, a task
// past the day's cap is a 402 saying when that day ends (retry-after counted on the same clock), and the next day of
// that clock serves the key again.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { until } from '../helpers/poll.js';
import { SEEDANCE, startVideoGateway, startVideoPlanes, type VideoGateway, type VideoPlanes } from '../helpers/video-gateway.js';
import { VIDEO_TASKS } from '../../features/video/store-part.js';

const WAIT = { timeoutMs: 10_000, intervalMs: 25 };
/** A key of acme's with a daily max_spend of 0.40: one task's reservation (0.2835) fits, a second does not. */
const DAILY = 'sk-video-daily-clock-0123456789abcd';
/** 108,900 tokens at 2.00 per 1M. */
const TASK_COST = 217_800_000n;
/** Noon UTC on a day years from the real one: a task charged by the process clock lands in another row. */
const NOON = Date.parse('2030-01-01T12:00:00Z');
const NEXT_DAY = Date.parse('2030-01-02T00:00:00Z');

describe('a video task counts in the period of the calendar clock', () => {
  let planes: VideoPlanes;
  let v: VideoGateway;
  let now = NOON;
  const store = () => v.gw.gateway.runtime.deps.store;
  const lastUpstream = (): string => [...planes.ark.tasks.keys()].pop() as string;
  const settled = (id: string) => until(`settled ${id}`, async () => ((await store().part(VIDEO_TASKS).task(id))?.recordedAt != null ? true : undefined), WAIT);
  const submit = (prompt: string) => v.request(DAILY, 'POST', '/v1/videos', { model: SEEDANCE, prompt, seconds: '5' });

  before(async () => {
    planes = await startVideoPlanes();
    v = await startVideoGateway(planes, {
      taskTimeoutMs: 60_000,
      keys: `  - { name: daily, key: ${DAILY}, group: pro, account: acme, max_spend: { amount: "0.40", period: day } }\n`,
      clock: () => now,
    });
  });
  after(async () => {
    await v.stop();
    await planes.close();
  });

  test("charged to the clock's day, refused past its cap until that day ends, served the next day", async () => {
    const created = await submit('the first of the day');
    assert.equal(created.status, 200, created.text);
    const id = created.body['id'] as string;
    planes.ark.finish(lastUpstream(), { totalTokens: 108_900 });
    await settled(id);
    const spends = await store().ledger.keySpends(['config:daily', 'config:daily@2030-01-01T00:00:00.000Z']);
    assert.equal(spends.get('config:daily@2030-01-01T00:00:00.000Z'), TASK_COST, "the task's charge is in the clock's day row");
    assert.equal(spends.get('config:daily'), TASK_COST);
    const me = await v.request(DAILY, 'GET', '/v1/me');
    assert.equal((me.body['max_spend_period'] as Record<string, unknown> | null)?.['spend'], '0.2178');

    const calls = planes.ark.calls.filter((c) => c.method === 'POST').length;
    const response = await fetch(`${v.gw.url}/v1/videos`, {
      method: 'POST',
      headers: { authorization: `Bearer ${DAILY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: SEEDANCE, prompt: 'one too many', seconds: '5' }),
    });
    const text = await response.text();
    assert.equal(response.status, 402, text);
    assert.equal(response.headers.get('x-gateway-budget-reset'), '2030-01-02T00:00:00.000Z');
    assert.equal(response.headers.get('retry-after'), '43200', 'twelve hours to the end of the clock day');
    assert.match(text, /resets at 2030-01-02T00:00:00\.000Z/);
    assert.equal(planes.ark.calls.filter((c) => c.method === 'POST').length, calls, 'no upstream call');

    now = NEXT_DAY;
    const nextDay = await submit('the first of the next day');
    assert.equal(nextDay.status, 200, nextDay.text);
    planes.ark.finish(lastUpstream(), { totalTokens: 108_900 });
    await settled(nextDay.body['id'] as string);
    const after = await store().ledger.keySpends(['config:daily@2030-01-01T00:00:00.000Z', 'config:daily@2030-01-02T00:00:00.000Z']);
    assert.equal(after.get('config:daily@2030-01-01T00:00:00.000Z'), TASK_COST, 'the first day keeps its spend');
    assert.equal(after.get('config:daily@2030-01-02T00:00:00.000Z'), TASK_COST);
  });
});
