// Ark's data plane for Seedance video tasks against the fake Ark (test/helpers/fake-ark.ts): create, read, cancel,
// status and usage mapping, Ark's errors as refused/unavailable, the file downloaded as a stream without the key;
// and against servers that answer something Ark never would, hang, or are not there.

import assert from 'node:assert/strict';
import { arrival, pulledBody, type Chunks } from '../../core/sse/pulled-body.js';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { createArkVideoUpstream } from './data-plane.js';
import { ARK_MODEL, arkCall, assertUpstreamFails } from '../../test/helpers/ark-calls.js';
import { VideoUpstreamError, type TaskCall, type VideoUpstream } from './upstream.js';
import { CANCEL_REFUSED_CODE, CANCEL_REFUSED_STATUS, NOT_FOUND_CODE, startFakeArk, type FakeArk } from '../../test/helpers/fake-ark.js';
import { until } from '../../test/helpers/poll.js';

const MODEL = ARK_MODEL;
const BODY = {
  model: MODEL,
  content: [{ type: 'text', text: 'a cat waves at the camera' }],
  resolution: '720p',
  ratio: '16:9',
  duration: 5,
};


async function collect(body: Chunks): Promise<{ bytes: Buffer; chunks: number; firstAt: number; lastAt: number }> {
  const parts: Buffer[] = [];
  let firstAt = 0;
  let lastAt = 0;
  const pulled = pulledBody(body);
  for (;;) {
    await arrival(pulled);
    const next = pulled.take();
    if (next.done === true) break;
    const chunk = next.value;
    if (parts.length === 0) firstAt = Date.now();
    lastAt = Date.now();
    parts.push(Buffer.from(chunk));
  }
  return { bytes: Buffer.concat(parts), chunks: parts.length, firstAt, lastAt };
}

/** A loopback server answering each request with `handler`. */
async function serve(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<{ url: string; server: Server; close: () => Promise<void> }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v3`;
  return {
    url,
    server,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe('Ark data plane against the fake', () => {
  let fake: FakeArk;
  let upstream: VideoUpstream;
  let key: string;
  let call: TaskCall;

  before(async () => {
    fake = await startFakeArk();
    upstream = createArkVideoUpstream();
    key = fake.keys[0] as string;
    call = arkCall(fake.url, key);
  });
  after(async () => {
    await upstream.close();
    await fake.close();
  });

  it('creates a task with the Bearer key and the body as given, and reads it queued', async () => {
    const before = fake.calls.length;
    const id = await upstream.create(call, BODY);
    assert.match(id, /^cgt-\d{14}-[a-z0-9]{5}$/);
    const sent = fake.calls[before];
    assert.deepEqual({ method: sent?.method, path: sent?.path, authorization: sent?.authorization }, {
      method: 'POST',
      path: '/api/v3/contents/generations/tasks',
      authorization: `Bearer ${key}`,
    });
    assert.deepEqual(sent?.body, BODY);
    assert.equal(fake.tasks.get(id)?.status, 'queued');

    const task = await upstream.get(call, id);
    assert.deepEqual(task, { status: 'queued', videoUrl: null, totalTokens: null, duration: 5, error: null });
    assert.equal(fake.calls.at(-1)?.path, `/api/v3/contents/generations/tasks/${id}`);
  });

  it('maps each status: running, succeeded with usage and URL, failed with its error, expired', async () => {
    const id = await upstream.create(call, BODY);
    fake.setStatus(id, 'running');
    assert.equal((await upstream.get(call, id)).status, 'running');

    fake.finish(id, { totalTokens: 108_900, duration: 5 });
    const done = await upstream.get(call, id);
    assert.equal(done.status, 'succeeded');
    assert.equal(done.totalTokens, 108_900);
    assert.equal(done.duration, 5);
    assert.equal(done.error, null);
    assert.ok(done.videoUrl?.startsWith(`${fake.origin}/files/${id}.mp4?`), String(done.videoUrl));

    const failed = await upstream.create(call, BODY);
    fake.fail(failed, 'OutputVideoSensitiveContentDetected', 'The request failed because the output video may contain sensitive information.');
    assert.deepEqual(await upstream.get(call, failed), {
      status: 'failed',
      videoUrl: null,
      totalTokens: null,
      duration: 5,
      error: { code: 'OutputVideoSensitiveContentDetected', message: 'The request failed because the output video may contain sensitive information.' },
    });

    const expired = await upstream.create(call, BODY);
    fake.setStatus(expired, 'expired');
    assert.equal((await upstream.get(call, expired)).status, 'expired');
  });

  it('cancels a queued task; a running one is refused; a finished one is deleted (Ark DELETE semantics)', async () => {
    const queued = await upstream.create(call, BODY);
    await upstream.cancel(call, queued);
    assert.equal(fake.calls.at(-1)?.method, 'DELETE');
    assert.equal((await upstream.get(call, queued)).status, 'cancelled');
    await assertUpstreamFails(upstream.cancel(call, queued), 'refused', CANCEL_REFUSED_STATUS, CANCEL_REFUSED_CODE, key);

    const running = await upstream.create(call, BODY);
    fake.setStatus(running, 'running');
    await assertUpstreamFails(upstream.cancel(call, running), 'refused', CANCEL_REFUSED_STATUS, CANCEL_REFUSED_CODE, key);
    assert.equal(fake.tasks.get(running)?.status, 'running');

    const finished = await upstream.create(call, BODY);
    fake.finish(finished);
    await upstream.cancel(call, finished);
    assert.equal(fake.tasks.has(finished), false);
    await assertUpstreamFails(upstream.get(call, finished), 'refused', 404, NOT_FOUND_CODE, key);
  });

  it('percent-encodes the id; an unknown one is refused with 404', async () => {
    const err = await assertUpstreamFails(upstream.get(call, 'cgt-x/../y?z=1'), 'refused', 404, NOT_FOUND_CODE, key);
    assert.match(err.message, /is not found/);
    assert.equal(fake.calls.at(-1)?.path, '/api/v3/contents/generations/tasks/cgt-x%2F..%2Fy%3Fz%3D1');
  });

  it('advances tasks by time with autoAdvance', async () => {
    const timed = await startFakeArk({ autoAdvance: { runningAfterMs: 30, succeededAfterMs: 90, totalTokens: 4_242 } });
    try {
      const timedCall = arkCall(timed.url, timed.keys[0] as string);
      const id = await upstream.create(timedCall, BODY);
      const seen = new Set<string>();
      const done = await until(
        'the task to succeed',
        async () => {
          const task = await upstream.get(timedCall, id);
          seen.add(task.status);
          return task.status === 'succeeded' ? task : undefined;
        },
        { timeoutMs: 3_000, intervalMs: 10 },
      );
      assert.ok(seen.has('running'), [...seen].join());
      assert.equal(done.totalTokens, 4_242);
    } finally {
      await timed.close();
    }
  });

  it('refuses what Ark refuses: a bad body (400 with code and message), a bad key (401)', async () => {
    const err = await assertUpstreamFails(upstream.create(call, { model: MODEL, content: [] }), 'refused', 400, 'InvalidParameter', key);
    assert.match(err.message, /`content`/);
    const noModel = await assertUpstreamFails(upstream.create(call, { content: BODY.content }), 'refused', 400, 'InvalidParameter', key);
    assert.match(noModel.message, /`model`/);

    const wrongKey = 'ark-wrong-key-0000000000000000';
    const unauthorized = await assertUpstreamFails(upstream.create(arkCall(fake.url, wrongKey), BODY), 'refused', 401, 'AuthenticationError', wrongKey);
    assert.match(unauthorized.message, /API key/);
    assert.equal(fake.calls.at(-1)?.authorization, `Bearer ${wrongKey}`);
  });

  it('408, 429 and 5xx are unavailable with the upstream status; a 4xx body that is not JSON is refused generically', async () => {
    const rateLimited = { error: { code: 'RateLimitExceeded.EndpointRPMExceeded', message: 'The Requests Per Minute (RPM) limit has been exceeded.', type: 'TooManyRequests' } };
    fake.failNext(429, rateLimited);
    await assertUpstreamFails(upstream.create(call, BODY), 'unavailable', 429, 'RateLimitExceeded.EndpointRPMExceeded', key);
    fake.failNext(408, 'request timeout');
    await assertUpstreamFails(upstream.create(call, BODY), 'unavailable', 408, 'UpstreamError', key);
    fake.failNext(500, { error: { code: 'InternalServiceError', message: 'The service encountered an unexpected internal error.', type: 'InternalServerError' } }, 'get');
    await assertUpstreamFails(upstream.get(call, 'cgt-20260410120000-abcde'), 'unavailable', 500, 'InternalServiceError', key);
    fake.failNext(503, '<html>bad gateway</html>', 'cancel');
    await assertUpstreamFails(upstream.cancel(call, 'cgt-20260410120000-abcde'), 'unavailable', 503, 'UpstreamError', key);

    fake.failNext(400, '<html>nope</html>');
    const generic = await assertUpstreamFails(upstream.create(call, BODY), 'refused', 400, 'UpstreamError', key);
    assert.equal(generic.message, 'Ark answered HTTP 400');
  });

  it("bounds Ark's message and removes the key from it", async () => {
    fake.failNext(400, { error: { code: 'InvalidParameter', message: `bad key ${key} ${'x'.repeat(10_000)}`, param: 'content', type: 'BadRequest' } });
    const err = await assertUpstreamFails(upstream.create(call, BODY), 'refused', 400, 'InvalidParameter', key);
    assert.ok(err.message.length <= 500, String(err.message.length));
    assert.match(err.message, /^bad key \[redacted\] x+…$/);
  });

  it('downloads the file as a stream, without the Authorization header, from its own origin', async () => {
    const id = await upstream.create(call, BODY);
    fake.finish(id);
    const { videoUrl } = await upstream.get(call, id);
    assert.ok(videoUrl !== null);
    const before = fake.calls.length;
    const file = await upstream.download(call, videoUrl);
    assert.equal(file.contentType, 'video/mp4');
    assert.equal(file.contentLength, fake.video.length);
    const got = await collect(file.body);
    assert.ok(got.bytes.equals(fake.video));
    const fetched = fake.calls.slice(before);
    assert.equal(fetched.length, 1);
    assert.equal(fetched[0]?.authorization, null);
    assert.ok(fetched[0]?.path.startsWith(`/files/${id}.mp4?`));
  });

  it('relays the file as it arrives, not once it is whole', async () => {
    const id = await upstream.create(call, BODY);
    fake.finish(id);
    const { videoUrl } = await upstream.get(call, id);
    fake.pace({ chunkBytes: 8 * 1024, delayMs: 40 });
    try {
      const started = Date.now();
      const file = await upstream.download(call, videoUrl as string);
      const got = await collect(file.body);
      assert.ok(got.bytes.equals(fake.video));
      // Nine chunks 40 ms apart: the first arrives long before the last was sent.
      assert.ok(got.chunks >= 4, `${got.chunks} chunks`);
      assert.ok(got.lastAt - got.firstAt >= 200, `first at ${got.firstAt - started} ms, last at ${got.lastAt - started} ms`);
    } finally {
      fake.pace(null);
    }
  });

  it('a download answered other than 2xx, or a URL that is not http(s), is unavailable', async () => {
    const id = await upstream.create(call, BODY);
    fake.finish(id);
    const { videoUrl } = await upstream.get(call, id);
    const tampered = (videoUrl as string).replace(/X-Tos-Signature=[0-9a-f]/, 'X-Tos-Signature=g');
    const err = await assertUpstreamFails(upstream.download(call, tampered), 'unavailable', 502, 'UpstreamError', key);
    assert.match(err.message, /HTTP 403/);
    assert.ok(!err.message.includes('X-Tos'), err.message);
    await assertUpstreamFails(upstream.download(call, 'file:///etc/passwd'), 'unavailable', 502, 'UpstreamError', key);
    await assertUpstreamFails(upstream.download(call, 'not a url'), 'unavailable', 502, 'UpstreamError', key);
  });

  it("a discarded file's body is dropped unread", async () => {
    const id = await upstream.create(call, BODY);
    fake.finish(id);
    const { videoUrl } = await upstream.get(call, id);
    fake.pace({ chunkBytes: 4 * 1024, delayMs: 20 });
    try {
      const file = await upstream.download(call, videoUrl as string);
      await file.discard();
      await assert.rejects(collect(file.body));
    } finally {
      fake.pace(null);
    }
  });

  it("sends the channel's headers but never lets them replace the key", async () => {
    const withHeaders = arkCall(fake.url, key, { headers: { 'x-team': 'video', Authorization: 'Bearer someone-else' } });
    await upstream.create(withHeaders, BODY);
    assert.equal(fake.calls.at(-1)?.authorization, `Bearer ${key}`);
  });
});

describe('Ark data plane against broken upstreams', () => {
  let upstream: VideoUpstream;
  const key = 'ark-broken-test-key-000000000000';

  before(() => {
    upstream = createArkVideoUpstream();
  });
  after(async () => {
    await upstream.close();
  });

  it('an unknown status, a 2xx that is not JSON, or a created task without an id is unavailable', async () => {
    const answers: string[] = ['{"id":"cgt-1","status":"paused"}', 'not json', '[1,2]', '{"status":"queued"}'];
    const server = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(answers.shift());
    });
    try {
      const call = arkCall(server.url, key);
      const paused = await assertUpstreamFails(upstream.get(call, 'cgt-1'), 'unavailable', 502, 'UpstreamError', key);
      assert.match(paused.message, /unknown status \("paused"\)/);
      await assertUpstreamFails(upstream.get(call, 'cgt-1'), 'unavailable', 502, 'UpstreamError', key);
      await assertUpstreamFails(upstream.get(call, 'cgt-1'), 'unavailable', 502, 'UpstreamError', key);
      await assertUpstreamFails(upstream.create(call, BODY), 'unavailable', 502, 'UpstreamError', key);
    } finally {
      await server.close();
    }
  });

  it('usage other than a non-negative safe integer is not reported; fields of the wrong type are null', async () => {
    const bodies = [
      { status: 'succeeded', content: { video_url: 'https://tos.example/v.mp4' }, usage: { total_tokens: -1 }, duration: '5' },
      { status: 'succeeded', content: { video_url: 42 }, usage: { total_tokens: 1.5 }, duration: 4 },
      { status: 'succeeded', content: null, usage: { total_tokens: 2 ** 53 } },
      { status: 'failed', error: { code: 7, message: 'm'.repeat(2_000) } },
    ];
    const server = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(bodies.shift()));
    });
    try {
      const call = arkCall(server.url, key);
      assert.deepEqual(await upstream.get(call, 'a'), { status: 'succeeded', videoUrl: 'https://tos.example/v.mp4', totalTokens: null, duration: null, error: null });
      assert.deepEqual(await upstream.get(call, 'a'), { status: 'succeeded', videoUrl: null, totalTokens: null, duration: 4, error: null });
      assert.equal((await upstream.get(call, 'a')).totalTokens, null);
      const failed = await upstream.get(call, 'a');
      assert.equal(failed.error?.code, 'UpstreamError');
      assert.equal(failed.error?.message.length, 500);
    } finally {
      await server.close();
    }
  });

  it('an answer over 1 MiB is unavailable', async () => {
    const server = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(`{"status":"queued","pad":"${'x'.repeat(2 * 1024 * 1024)}"}`);
    });
    try {
      await assertUpstreamFails(upstream.get(arkCall(server.url, key), 'a'), 'unavailable', 502, 'UpstreamError', key);
    } finally {
      await server.close();
    }
  });

  it('no answer in time is unavailable (UpstreamTimeout)', async () => {
    const server = await serve(() => {
      // never answers
    });
    try {
      await assertUpstreamFails(upstream.get(arkCall(server.url, key, { timeoutMs: 150 }), 'a'), 'unavailable', 502, 'UpstreamTimeout', key);
    } finally {
      await server.close();
    }
  });

  it('a refused connection is unavailable (502)', async () => {
    const server = await serve(() => undefined);
    const url = server.url;
    await server.close();
    const err = await assertUpstreamFails(upstream.create(arkCall(url, key), BODY), 'unavailable', 502, 'UpstreamUnavailable', key);
    assert.match(err.message, /ECONNREFUSED|connection failed/);
  });

  it("an aborted call rejects with the abort, not as the upstream's failure", async () => {
    const server = await serve(() => undefined);
    try {
      const controller = new AbortController();
      const pending = upstream.get(arkCall(server.url, key, {}, controller.signal), 'a');
      setTimeout(() => controller.abort(), 50);
      await assert.rejects(pending, (err: unknown) => !(err instanceof VideoUpstreamError));
    } finally {
      await server.close();
    }
  });
});

describe('Ark data plane close()', () => {
  it('closes its pools and its file agent, and refuses calls after', async () => {
    const fake = await startFakeArk();
    const upstream = createArkVideoUpstream();
    const key = fake.keys[0] as string;
    const call = arkCall(fake.url, key);
    try {
      const id = await upstream.create(call, BODY);
      fake.finish(id);
      const { videoUrl } = await upstream.get(call, id);
      await collect((await upstream.download(call, videoUrl as string)).body);
      assert.ok(fake.connections() >= 2, `${fake.connections()} connections`);
      await upstream.close();
      await until('the connections to close', () => (fake.connections() === 0 ? true : undefined), { timeoutMs: 2_000, intervalMs: 10 });
      await assertUpstreamFails(upstream.get(call, id), 'unavailable', 503, 'UpstreamUnavailable', key);
      await assertUpstreamFails(upstream.download(call, videoUrl as string), 'unavailable', 503, 'UpstreamUnavailable', key);
    } finally {
      await upstream.close();
      await fake.close();
    }
  });
});
