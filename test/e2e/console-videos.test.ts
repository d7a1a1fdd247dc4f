// /console/api/videos over HTTP (issue 27), against fake Ark data planes: an account's user lists their account's
// tasks (every key's, newest first, with status, money and a download path once succeeded; never the upstream's id
// nor its file URL) and downloads a succeeded one's bytes; another account's task never shows in their list, and its
// content URL is the 404 of a task that does not exist, as is an unmetered key's; the operator names an account and
// sees its tasks, and downloads any.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { consoleAccountUser, consoleSignIn, type ConsoleSession } from '../helpers/console-session.js';
import { until } from '../helpers/poll.js';
import { ADMIN, ALICE, ALICE_TWO, BOB, SEEDANCE, TEST_KEY, startVideoGateway, startVideoPlanes, type VideoGateway, type VideoPlanes } from '../helpers/video-gateway.js';
import { VIDEO_TASKS } from '../../features/video/store-part.js';

const WAIT = { timeoutMs: 10_000, intervalMs: 25 };
const LONG_PROMPT = `A slow pan over a harbour at dawn, ${'gulls wheeling over the boats, '.repeat(12)}and the sun rising.`;

interface ShownTask {
  readonly id: string;
  readonly account: string | null;
  readonly key: { readonly id: string; readonly name: string };
  readonly model: string;
  readonly channel: string;
  readonly status: string;
  readonly progress: number;
  readonly prompt: string | null;
  readonly created_at: string;
  readonly completed_at: string | null;
  readonly seconds: number | null;
  readonly size: string | null;
  readonly reserved: string;
  readonly cost: string | null;
  readonly error: { readonly code: string; readonly message: string } | null;
  readonly download: string | null;
}

interface TaskList {
  readonly account: string;
  readonly currency: string;
  readonly data: ShownTask[];
  readonly total: number;
  readonly offset: number;
}

interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly bytes: Buffer;
  readonly json: Record<string, unknown>;
}

describe('console video tasks', () => {
  let planes: VideoPlanes;
  let v: VideoGateway;
  const sessions: Record<string, ConsoleSession> = {};
  /** The gateway's task ids by name; their upstream ids. */
  const tasks: Record<string, string> = {};
  const upstreamIds: string[] = [];

  async function call(who: string | null, path: string): Promise<Answer> {
    const headers: Record<string, string> = who === null ? {} : { cookie: (sessions[who] as ConsoleSession).cookie };
    const res = await fetch(`${v.gw.url}${path}`, { headers });
    const bytes = Buffer.from(await res.arrayBuffer());
    const json = res.headers.get('content-type')?.startsWith('application/json') === true ? (JSON.parse(bytes.toString('utf8')) as Record<string, unknown>) : {};
    return { status: res.status, headers: res.headers, bytes, json };
  }

  async function list(who: string, query = ''): Promise<TaskList & { readonly text: string }> {
    const answer = await call(who, `/console/api/videos${query}`);
    assert.equal(answer.status, 200, answer.bytes.toString('utf8'));
    return Object.assign({ text: answer.bytes.toString('utf8') }, answer.json as unknown as TaskList);
  }

  const errorOf = (a: Answer): { code: string; message: string; param: string | null } => a.json['error'] as { code: string; message: string; param: string | null };

  /** Makes a task through `key`; `end` moves it on the fake at once. */
  async function makeTask(name: string, key: string, prompt: string, end?: 'finish' | 'fail'): Promise<void> {
    const made = await v.request(key, 'POST', '/v1/videos', { model: SEEDANCE, prompt, seconds: '5', size: '1280x720' });
    assert.equal(made.status, 200, made.text);
    const id = String(made.body['id']);
    tasks[name] = id;
    const row = await v.gw.gateway.runtime.deps.store.part(VIDEO_TASKS).task(id);
    const upstreamId = row?.upstreamId ?? '';
    assert.notEqual(upstreamId, '');
    upstreamIds.push(upstreamId);
    const fake = row?.channel === 'ark-two' ? planes.arkTwo : planes.ark;
    if (end === 'finish') fake.finish(upstreamId, { totalTokens: 108_900, duration: 5 });
    if (end === 'fail') fake.fail(upstreamId, 'OutputVideoSensitiveContentDetected', 'The output video may contain sensitive information.');
    if (end !== undefined) {
      // The poller settles it within a few ticks; the store is where the console reads it from.
      await until(`${name} settled`, async () => (await v.gw.gateway.runtime.deps.store.part(VIDEO_TASKS).task(id))?.settledAt ?? undefined, WAIT);
    }
  }

  before(async () => {
    planes = await startVideoPlanes();
    v = await startVideoGateway(planes);
    sessions['operator'] = await consoleSignIn(v.gw.url, { admin_token: ADMIN });
    sessions['ada'] = await consoleAccountUser(v.gw.url, sessions['operator'], 'acme', 'ada', 'ada has a long password');
    sessions['gus'] = await consoleAccountUser(v.gw.url, sessions['operator'], 'other', 'gus', 'gus has a long password');
    // One at a time: newest first is by creation time.
    await makeTask('done', ALICE, 'a fox waves at the camera', 'finish');
    await makeTask('failed', ALICE, 'a fox in a storm', 'fail');
    await makeTask('queued', ALICE_TWO, LONG_PROMPT);
    await makeTask('bob', BOB, 'bob\'s own secret video', 'finish');
    await makeTask('free', TEST_KEY, 'an unmetered key\'s video', 'finish');
  });
  after(async () => {
    await v?.stop();
    await planes?.close();
  });

  it('a user sees every key of their account\'s tasks, newest first, with status and money, and nothing of the upstream', async () => {
    const mine = await list('ada');
    assert.deepEqual(mine.data.map((t) => t.id), [tasks['queued'], tasks['failed'], tasks['done']]);
    assert.deepEqual([mine.account, mine.currency, mine.total, mine.offset], ['acme', 'USD', 3, 0]);
    const [queued, failed, done] = mine.data as [ShownTask, ShownTask, ShownTask];

    assert.deepEqual([done.account, done.key, done.model, done.status, done.progress, done.seconds, done.size], ['acme', { id: 'config:alice', name: 'alice' }, SEEDANCE, 'succeeded', 100, 5, '1280x720']);
    assert.equal(done.cost, '0.2178', '108,900 tokens at 2.00 per 1M');
    assert.ok(Number(done.reserved) > 0, 'what was set aside at submission');
    assert.equal(done.error, null);
    assert.equal(done.download, `/console/api/videos/${tasks['done'] ?? ''}/content`);
    assert.ok(done.completed_at !== null && Date.parse(done.completed_at) >= Date.parse(done.created_at));
    assert.equal(done.prompt, 'a fox waves at the camera');

    assert.deepEqual([failed.status, failed.cost, failed.download], ['failed', '0', null]);
    assert.deepEqual(failed.error, { code: 'OutputVideoSensitiveContentDetected', message: 'The output video may contain sensitive information.' });

    assert.deepEqual([queued.key, queued.status, queued.cost, queued.completed_at, queued.download, queued.error], [{ id: 'config:alice-two', name: 'alice-two' }, 'queued', null, null, null, null]);
    assert.ok(Number(queued.reserved) > 0, 'an unsettled task shows what is set aside for it');
    assert.equal([...(queued.prompt ?? '')].length, 200, 'a long prompt is cut');
    assert.ok(queued.prompt?.endsWith('…') === true && LONG_PROMPT.startsWith(queued.prompt.slice(0, -1)));

    for (const upstreamId of upstreamIds) assert.ok(!mine.text.includes(upstreamId), 'never an upstream task id');
    for (const fake of [planes.ark, planes.arkTwo]) assert.ok(!mine.text.includes(fake.origin), 'never the upstream\'s file URL');
  });

  it('a user never sees another account\'s task, whatever they ask', async () => {
    for (const query of ['?account=other', '?account=nobody', '?account=', `?key=config:bob`]) {
      const shown = await list('ada', query);
      assert.equal(shown.account, 'acme', `their own account whatever ${query} says`);
      assert.ok(!shown.text.includes(tasks['bob'] ?? '-') && !shown.text.includes(tasks['free'] ?? '-'), query);
    }
    assert.deepEqual((await list('ada', '?key=config:bob')).data, [], 'another account\'s key finds nothing');
    assert.deepEqual((await list('ada', '?key=config:alice-two')).data.map((t) => t.id), [tasks['queued']], 'one key of theirs');
    const theirs = await list('gus');
    assert.deepEqual([theirs.data.map((t) => t.id), theirs.total], [[tasks['bob']], 1]);
    assert.ok(!theirs.text.includes(tasks['done'] ?? '-'));
  });

  it('a user downloads their account\'s succeeded task: the upstream\'s bytes, relayed', async () => {
    const file = await call('ada', `/console/api/videos/${tasks['done'] ?? ''}/content`);
    assert.equal(file.status, 200);
    assert.equal(file.headers.get('content-type'), 'video/mp4');
    assert.equal(file.headers.get('content-disposition'), `attachment; filename="${tasks['done'] ?? ''}.mp4"`);
    assert.equal(file.headers.get('cache-control'), 'no-store');
    assert.ok(file.bytes.equals(planes.ark.video) || file.bytes.equals(planes.arkTwo.video), 'the fake\'s file, byte for byte');
    assert.equal(file.bytes.subarray(4, 8).toString('latin1'), 'ftyp');
  });

  it('another account\'s task, an unmetered key\'s and a missing one are the same 404; an unfinished one is a 409', async () => {
    const missing = await call('ada', '/console/api/videos/video_doesnotexist0000000000/content');
    assert.equal(missing.status, 404);
    const shape = (a: Answer, id: string): unknown => Object.assign({}, errorOf(a), { message: errorOf(a).message.replace(id, '<id>') });
    for (const name of ['bob', 'free']) {
      const id = tasks[name] ?? '';
      const answer = await call('ada', `/console/api/videos/${id}/content`);
      assert.equal(answer.status, 404, name);
      assert.deepEqual(shape(answer, id), shape(missing, 'video_doesnotexist0000000000'), `${name}: answered as a task that does not exist`);
    }
    assert.equal((await call('gus', `/console/api/videos/${tasks['done'] ?? ''}/content`)).status, 404);
    const queued = await call('ada', `/console/api/videos/${tasks['queued'] ?? ''}/content`);
    assert.deepEqual([queued.status, errorOf(queued).code], [409, 'video_not_ready']);
    assert.deepEqual([(await call('ada', `/console/api/videos/${tasks['failed'] ?? ''}/content`)).status], [409]);
    const signedOut = await call(null, `/console/api/videos/${tasks['done'] ?? ''}/content`);
    assert.deepEqual([signedOut.status, errorOf(signedOut).code], [401, 'not_signed_in']);
    assert.equal((await call(null, '/console/api/videos')).status, 401);
  });

  it('the operator names an account and sees its tasks, paged, and downloads any account\'s', async () => {
    const acme = await list('operator', '?account=acme');
    assert.deepEqual(acme.data.map((t) => t.id), [tasks['queued'], tasks['failed'], tasks['done']]);
    const other = await list('operator', '?account=other');
    assert.deepEqual(other.data.map((t) => [t.id, t.status, t.cost]), [[tasks['bob'], 'succeeded', '0.2178']]);
    const second = await list('operator', '?account=acme&offset=2');
    assert.deepEqual([second.data.map((t) => t.id), second.total, second.offset], [[tasks['done']], 3, 2]);
    for (const name of ['done', 'bob', 'free']) {
      const file = await call('operator', `/console/api/videos/${tasks[name] ?? ''}/content`);
      assert.deepEqual([file.status, file.bytes.subarray(4, 8).toString('latin1')], [200, 'ftyp'], name);
    }

    const unnamed = await call('operator', '/console/api/videos');
    assert.deepEqual([unnamed.status, errorOf(unnamed).param], [400, 'account'], 'one account at a time');
    assert.equal((await call('operator', '/console/api/videos?account=nobody')).status, 404);
    const bad = await call('operator', '/console/api/videos?account=acme&offset=-1');
    assert.deepEqual([bad.status, errorOf(bad).param], [400, 'offset']);
    const typo = await call('ada', '/console/api/videos?ofset=1');
    assert.deepEqual([typo.status, errorOf(typo).param], [400, 'ofset']);
    assert.equal((await call('ada', `/console/api/videos/${tasks['done'] ?? ''}/content?variant=thumbnail`)).status, 400, 'the download takes no query');
  });
});
