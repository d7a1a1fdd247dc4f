// Video tasks end to end against a fake Ark data plane: both client shapes (new-api's /v1/video/generations and
// OpenAI's /v1/videos, the official SDK included) create, poll to completion and download; the Ark body built from
// each; the upstream's states in each shape; listing and cancelling.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { until } from '../helpers/poll.js';
import { ALICE, SEEDANCE, TEST_KEY, startVideoGateway, startVideoPlanes, type VideoGateway, type VideoPlanes } from '../helpers/video-gateway.js';

const WAIT = { timeoutMs: 10_000, intervalMs: 25 };

describe('video tasks', () => {
  let planes: VideoPlanes;
  let v: VideoGateway;
  before(async () => {
    planes = await startVideoPlanes();
    v = await startVideoGateway(planes);
  });
  after(async () => {
    await v.stop();
    await planes.close();
  });

  /** The fake's task behind the newest create call. */
  const lastUpstreamTask = (): string => {
    const ids = [...planes.ark.tasks.keys()];
    return ids[ids.length - 1] as string;
  };

  test("new-api's shape: create, poll to completion, download the fake's bytes", async () => {
    const created = await v.request(ALICE, 'POST', '/v1/video/generations', {
      model: SEEDANCE,
      prompt: 'a fox waves at the camera',
      seconds: 5,
      images: ['https://93.184.215.14/fox.png', { url: 'https://93.184.215.14/last.png', role: 'last_frame' }],
      metadata: {
        resolution: '720p',
        ratio: '16:9',
        watermark: false,
        seed: 7,
        model: 'doubao-seedance-cheap',
        callback_url: 'https://example.com/cb',
        content: [{ type: 'audio_url', audio_url: { url: 'https://93.184.215.14/voice.mp3' }, role: 'reference_audio' }],
      },
    });
    assert.equal(created.status, 200, created.text);
    const id = created.body['id'] as string;
    assert.match(id, /^task_[A-Za-z0-9_-]{22}$/);
    assert.equal(created.body['task_id'], id);
    assert.equal(created.body['status'], 'queued');
    const upstreamId = lastUpstreamTask();
    assert.ok(!created.text.includes(upstreamId), 'the upstream id never reaches the caller');
    // The Ark body: the channel's model (metadata.model dropped), text first, the images with their roles, then
    // metadata.content as given, metadata's own fields at the top, and no callback_url.
    const sent = planes.ark.tasks.get(upstreamId)?.request as Record<string, unknown>;
    assert.deepEqual(sent, {
      model: SEEDANCE,
      resolution: '720p',
      ratio: '16:9',
      watermark: false,
      seed: 7,
      duration: 5,
      // At most the gateway's deadline (48 h by default): Ark never finishes a task the gateway gave up on.
      execution_expires_after: 172_800,
      content: [
        { type: 'text', text: 'a fox waves at the camera' },
        { type: 'image_url', image_url: { url: 'https://93.184.215.14/fox.png' }, role: 'reference_image' },
        { type: 'image_url', image_url: { url: 'https://93.184.215.14/last.png' }, role: 'last_frame' },
        { type: 'audio_url', audio_url: { url: 'https://93.184.215.14/voice.mp3' }, role: 'reference_audio' },
      ],
    });
    const create = planes.ark.calls.find((c) => c.method === 'POST');
    assert.equal(create?.authorization, `Bearer ${planes.ark.keys[0]}`);

    planes.ark.setStatus(upstreamId, 'running');
    const running = await until('running', async () => {
      const read = await v.request(ALICE, 'GET', `/v1/video/generations/${id}`);
      return read.body['status'] === 'in_progress' ? read : undefined;
    }, WAIT);
    assert.equal(running.body['progress'], 50);
    planes.ark.finish(upstreamId, { totalTokens: 108_900, duration: 5 });
    const done = await until('completed', async () => {
      const read = await v.request(ALICE, 'GET', `/v1/video/generations/${id}`);
      return read.body['status'] === 'completed' ? read : undefined;
    }, WAIT);
    assert.equal(done.body['progress'], 100);
    assert.equal(done.body['video_url'], `/v1/videos/${id}/content`);
    assert.equal(typeof done.body['completed_at'], 'number');
    assert.ok(!done.text.includes(planes.ark.origin), 'the upstream file URL is not shown');

    const file = await fetch(`${v.gw.url}/v1/videos/${id}/content`, { headers: { authorization: `Bearer ${ALICE}` } });
    assert.equal(file.status, 200);
    assert.equal(file.headers.get('content-type'), 'video/mp4');
    assert.deepEqual(Buffer.from(await file.arrayBuffer()), planes.ark.video);
  });

  test("OpenAI's SDK: videos.create, retrieve and downloadContent", async () => {
    const client = new OpenAI({ apiKey: ALICE, baseURL: `${v.gw.url}/v1`, maxRetries: 0 });
    const video = await client.videos.create({ model: SEEDANCE, prompt: 'a lighthouse at dusk', seconds: '8', size: '1280x720', input_reference: { image_url: 'https://93.184.215.14/sea.png' } });
    assert.match(video.id, /^video_/);
    assert.equal(video.object, 'video');
    assert.equal(video.status, 'queued');
    assert.equal(video.seconds, '8');
    assert.equal(video.size, '1280x720');
    const upstreamId = lastUpstreamTask();
    const sent = planes.ark.tasks.get(upstreamId)?.request as Record<string, unknown>;
    assert.deepEqual(sent['content'], [
      { type: 'text', text: 'a lighthouse at dusk' },
      { type: 'image_url', image_url: { url: 'https://93.184.215.14/sea.png' }, role: 'first_frame' },
    ]);
    assert.equal(sent['resolution'], '720p');
    assert.equal(sent['ratio'], '16:9');
    assert.equal(sent['duration'], 8);

    planes.ark.finish(upstreamId, { totalTokens: 174_240, duration: 8 });
    const done = await until('completed', async () => {
      const read = await client.videos.retrieve(video.id);
      return read.status === 'completed' ? read : undefined;
    }, WAIT);
    assert.equal(done.progress, 100);
    assert.equal(done.error, null);
    const content = await client.videos.downloadContent(video.id);
    assert.deepEqual(Buffer.from(await content.arrayBuffer()), planes.ark.video);
  });

  test('a download streams: the first bytes arrive before the upstream has sent the last', async () => {
    const created = await v.request(ALICE, 'POST', '/v1/videos', { model: SEEDANCE, prompt: 'slow file' });
    const id = created.body['id'] as string;
    planes.ark.finish(lastUpstreamTask());
    await until('completed', async () => ((await v.request(ALICE, 'GET', `/v1/videos/${id}`)).body['status'] === 'completed' ? true : undefined), WAIT);
    planes.ark.pace({ chunkBytes: 8192, delayMs: 40 });
    try {
      const response = await fetch(`${v.gw.url}/v1/videos/${id}/content`, { headers: { authorization: `Bearer ${ALICE}` } });
      const reader = (response.body as ReadableStream<Uint8Array>).getReader();
      const started = Date.now();
      const first = await reader.read();
      const firstAt = Date.now() - started;
      const chunks: Uint8Array[] = [first.value as Uint8Array];
      for (let r = await reader.read(); !r.done; r = await reader.read()) chunks.push(r.value);
      const total = Date.now() - started;
      assert.deepEqual(Buffer.concat(chunks), planes.ark.video);
      // 64 KiB in 8 KiB chunks 40 ms apart: the whole takes >= 280 ms; the first bytes come long before.
      assert.ok(total >= 250, `whole file in ${total} ms`);
      assert.ok(firstAt < total - 150, `first bytes after ${firstAt} ms of ${total}`);
    } finally {
      planes.ark.pace(null);
    }
  });

  test("the upstream's failure, and a content read before completion", async () => {
    const created = await v.request(ALICE, 'POST', '/v1/videos', { model: SEEDANCE, prompt: 'forbidden scene' });
    const id = created.body['id'] as string;
    const early = await v.request(ALICE, 'GET', `/v1/videos/${id}/content`);
    assert.equal(early.status, 409);
    assert.equal((early.body['error'] as Record<string, unknown>)['code'], 'video_not_ready');
    planes.ark.fail(lastUpstreamTask(), 'OutputVideoSensitiveContentDetected', 'The output video may contain sensitive content.');
    const failed = await until('failed', async () => {
      const read = await v.request(ALICE, 'GET', `/v1/videos/${id}`);
      return read.body['status'] === 'failed' ? read : undefined;
    }, WAIT);
    assert.deepEqual(failed.body['error'], { code: 'OutputVideoSensitiveContentDetected', message: 'The output video may contain sensitive content.' });
  });

  test('an upstream refusal at submission is the caller\'s 400 with its code, and no task is kept', async () => {
    planes.ark.failNext(400, { error: { code: 'InvalidParameter', message: 'The parameter `ratio` specified in the request is not valid', param: 'ratio', type: 'BadRequest' } });
    const refused = await v.request(ALICE, 'POST', '/v1/videos', { model: SEEDANCE, prompt: 'bad ratio' });
    assert.equal(refused.status, 400);
    const error = refused.body['error'] as Record<string, unknown>;
    assert.equal(error['code'], 'InvalidParameter');
    assert.match(String(error['message']), /ratio/);
  });

  test('cancel: a queued task is cancelled upstream and ends cancelled; a running one is a 409', async () => {
    const queued = await v.request(ALICE, 'POST', '/v1/videos', { model: SEEDANCE, prompt: 'never mind' });
    const id = queued.body['id'] as string;
    const upstreamId = lastUpstreamTask();
    const cancelled = await v.request(ALICE, 'DELETE', `/v1/videos/${id}`);
    assert.equal(cancelled.status, 200, cancelled.text);
    assert.deepEqual(cancelled.body, { id, object: 'video.deleted', deleted: true });
    assert.equal(planes.ark.tasks.get(upstreamId)?.status, 'cancelled');
    const read = await v.request(ALICE, 'GET', `/v1/videos/${id}`);
    assert.equal(read.body['status'], 'failed');
    assert.equal((read.body['error'] as Record<string, unknown>)['code'], 'cancelled');

    const started = await v.request(ALICE, 'POST', '/v1/videos', { model: SEEDANCE, prompt: 'already going' });
    planes.ark.setStatus(lastUpstreamTask(), 'running');
    const refused = await v.request(ALICE, 'DELETE', `/v1/videos/${started.body['id'] as string}`);
    assert.equal(refused.status, 409);
    assert.equal((refused.body['error'] as Record<string, unknown>)['code'], 'video_not_cancellable');
    assert.equal(planes.ark.calls.filter((c) => c.method === 'DELETE').length, 1, 'no DELETE for a running task (Ark would refuse it, or delete a finished one)');
  });

  test("GET /v1/videos lists the caller's tasks a page at a time", async () => {
    const page1 = await v.request(ALICE, 'GET', '/v1/videos?limit=2');
    assert.equal(page1.status, 200);
    assert.equal(page1.body['object'], 'list');
    const data1 = page1.body['data'] as Record<string, unknown>[];
    assert.equal(data1.length, 2);
    assert.equal(page1.body['has_more'], true);
    const all: string[] = data1.map((d) => d['id'] as string);
    let cursor = page1.body['last_id'] as string;
    for (;;) {
      const page = await v.request(ALICE, 'GET', `/v1/videos?limit=2&after=${cursor}`);
      all.push(...(page.body['data'] as Record<string, unknown>[]).map((d) => d['id'] as string));
      if (page.body['has_more'] !== true) break;
      cursor = page.body['last_id'] as string;
    }
    assert.equal(new Set(all).size, all.length);
    assert.ok(all.length >= 7, `${all.length} tasks listed`);
    const ascending = await v.request(ALICE, 'GET', '/v1/videos?order=asc&limit=100');
    assert.deepEqual((ascending.body['data'] as Record<string, unknown>[]).map((d) => d['id']), [...all].reverse());
    const bad = await v.request(ALICE, 'GET', '/v1/videos?limit=0');
    assert.equal(bad.status, 400);
  });

  test("the Ark body always says the resolution and length the reservation assumed", async () => {
    const created = await v.request(ALICE, 'POST', '/v1/videos', { model: SEEDANCE, prompt: 'defaults' });
    assert.equal(created.status, 200, created.text);
    const sent = planes.ark.tasks.get(lastUpstreamTask())?.request as Record<string, unknown>;
    assert.equal(sent['resolution'], '720p');
    assert.equal(sent['duration'], 5);
    const auto = await v.request(ALICE, 'POST', '/v1/video/generations', { model: SEEDANCE, prompt: 'auto length', seconds: -1, metadata: { execution_expires_after: 259_200 } });
    assert.equal(auto.status, 200, auto.text);
    const autoSent = planes.ark.tasks.get(lastUpstreamTask())?.request as Record<string, unknown>;
    assert.equal(autoSent['duration'], -1);
    assert.equal(autoSent['execution_expires_after'], 172_800, 'a longer window than the gateway waits is cut to it');
  });

  test("a result URL on an internal address or plain http elsewhere is not fetched: 502, the fake's file never asked", async () => {
    for (const url of ['https://10.0.0.1/video.mp4', 'http://127.0.0.2:9/video.mp4', 'https://169.254.169.254/latest/meta-data']) {
      const created = await v.request(ALICE, 'POST', '/v1/videos', { model: SEEDANCE, prompt: 'where does it go' });
      const id = created.body['id'] as string;
      const upstreamId = lastUpstreamTask();
      planes.ark.finish(upstreamId);
      (planes.ark.tasks.get(upstreamId) as { videoUrl: string | null }).videoUrl = url;
      await until('completed', async () => ((await v.request(ALICE, 'GET', `/v1/videos/${id}`)).body['status'] === 'completed' ? true : undefined), WAIT);
      const file = await v.request(ALICE, 'GET', `/v1/videos/${id}/content`);
      assert.equal(file.status, 502, `${url}: ${file.text}`);
      assert.ok(!file.text.includes(url), 'the URL is not shown');
    }
  });

  test('bad input is a 400 naming the field, and nothing is sent', async () => {
    // Creations only: the poller may read earlier tests' tasks meanwhile.
    const creations = (): number => planes.ark.calls.filter((c) => c.method === 'POST').length;
    const before = creations();
    const cases: [unknown, string][] = [
      [{ prompt: 'no model' }, 'model'],
      [{ model: SEEDANCE, prompt: 'x', seconds: 'ten' }, 'seconds'],
      [{ model: SEEDANCE, prompt: 'x', size: 'huge' }, 'size'],
      [{ model: SEEDANCE, prompt: 'x', images: 'https://93.184.215.14/a.png' }, 'images'],
      [{ model: SEEDANCE, prompt: 'x', images: [{ url: 'https://93.184.215.14/a.png', role: 'hero' }] }, 'images[0].role'],
      [{ model: SEEDANCE, prompt: 'x', metadata: { content: [{ type: 'image_url', image_url: 'https://93.184.215.14/a.png' }] } }, 'metadata.content[0].image_url'],
      [{ model: SEEDANCE }, 'prompt'],
    ];
    for (const [body, param] of cases) {
      const answer = await v.request(ALICE, 'POST', '/v1/video/generations', body);
      assert.equal(answer.status, 400, `${JSON.stringify(body)}: ${answer.text}`);
      assert.equal((answer.body['error'] as Record<string, unknown>)['param'], param, answer.text);
    }
    // What the reservation could not account for is refused rather than forwarded.
    for (const [metadata, param] of [
      [{ frames: 289 }, 'metadata.frames'],
      [{ resolution: '4k' }, 'metadata.resolution'],
      [{ fps: 60 }, 'metadata.fps'],
    ] as const) {
      const answer = await v.request(ALICE, 'POST', '/v1/video/generations', { model: SEEDANCE, prompt: 'x', metadata });
      assert.equal(answer.status, 400, answer.text);
      assert.equal((answer.body['error'] as Record<string, unknown>)['param'], param, answer.text);
    }
    const proto = await v.request(ALICE, 'POST', '/v1/video/generations', `{"model":"${SEEDANCE}","prompt":"x","metadata":{"__proto__":{"resolution":"480p"}}}`);
    assert.equal(proto.status, 400, proto.text);
    assert.equal((proto.body['error'] as Record<string, unknown>)['param'], 'metadata.__proto__');
    const unpriced = await v.request(ALICE, 'POST', '/v1/videos', { model: 'gpt-4o', prompt: 'x' });
    assert.equal(unpriced.status, 403);
    assert.equal((unpriced.body['error'] as Record<string, unknown>)['code'], 'model_not_priced');
    const unknownModel = await v.request(TEST_KEY, 'POST', '/v1/videos', { model: 'gpt-4o', prompt: 'x' });
    assert.equal(unknownModel.status, 404);
    assert.equal(creations(), before);
  });
});
