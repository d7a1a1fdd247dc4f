// The mock channel's video tasks: a real MP4 fixture, and tasks whose state comes from their id and the clock alone
// (queued, running, then succeeded or failed by the prompt's hook), cancellable while queued, downloading the fixture.

import assert from 'node:assert/strict';
import { arrival, pulledBody, type Chunks } from '../../core/sse/pulled-body.js';
import { describe, it } from 'node:test';
import type { ResolvedChannel } from '../../core/config/resolved.js';
import {
  SAMPLE_VIDEO_FPS,
  SAMPLE_VIDEO_HEIGHT,
  SAMPLE_VIDEO_SECONDS,
  SAMPLE_VIDEO_WIDTH,
  sampleVideo,
} from './sample-video.js';
import { createMockVideoUpstream, MOCK_VIDEO_FAIL_HOOK, mockVideoTokens } from './mock-tasks.js';
import { type TaskCall, VideoUpstreamError } from './upstream.js';

const CALL: TaskCall = { channel: {} as ResolvedChannel, key: 'mock-key', signal: new AbortController().signal };

/** A clock the test moves by hand. */
function clock(start = Date.UTC(2026, 0, 1)): { now: () => number; advance: (ms: number) => void } {
  let at = start;
  return { now: () => at, advance: (ms) => void (at += ms) };
}

function body(text: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return Object.assign({ model: 'doubao-seedance-2-0', content: [{ type: 'text', text }] }, extra);
}

/** The top-level boxes of an MP4: type and offset. */
function boxes(mp4: Buffer): { type: string; offset: number }[] {
  const found: { type: string; offset: number }[] = [];
  for (let offset = 0; offset + 8 <= mp4.length; ) {
    const size = mp4.readUInt32BE(offset);
    found.push({ type: mp4.toString('latin1', offset + 4, offset + 8), offset });
    if (size < 8) break;
    offset += size;
  }
  return found;
}

function refusedWith(status: number, code: string | RegExp): (err: unknown) => boolean {
  return (err) => {
    assert.ok(err instanceof VideoUpstreamError, String(err));
    assert.equal(err.kind, 'refused');
    assert.equal(err.status, status);
    if (typeof code === 'string') assert.equal(err.code, code);
    else assert.match(err.message, code);
    return true;
  };
}

async function readAll(body: Chunks): Promise<{ bytes: Buffer; chunks: number }> {
  const parts: Uint8Array[] = [];
  const pulled = pulledBody(body);
  for (let next = (await arrival(pulled), pulled.take()); next.done !== true; next = (await arrival(pulled), pulled.take())) parts.push(next.value);
  return { bytes: Buffer.concat(parts), chunks: parts.length };
}

describe('the sample video', () => {
  it('is a small MP4 with its moov before its mdat, the boxes ending where the file does', () => {
    const mp4 = sampleVideo();
    assert.ok(mp4.length < 32 * 1024, `${mp4.length} bytes`);
    assert.equal(mp4.toString('latin1', 4, 8), 'ftyp');
    const found = boxes(mp4);
    const moov = found.find((b) => b.type === 'moov');
    const mdat = found.find((b) => b.type === 'mdat');
    assert.ok(moov !== undefined && mdat !== undefined, JSON.stringify(found));
    assert.ok(moov.offset < mdat.offset, 'faststart: moov first');
    assert.equal(mdat.offset + mp4.readUInt32BE(mdat.offset), mp4.length);
    assert.ok(mp4.includes('avc1'), 'H.264');
  });

  it('says its size and gives a fresh copy on each call', () => {
    assert.deepEqual([SAMPLE_VIDEO_WIDTH, SAMPLE_VIDEO_HEIGHT, SAMPLE_VIDEO_SECONDS, SAMPLE_VIDEO_FPS], [160, 90, 2, 24]);
    const a = sampleVideo();
    a.fill(0);
    assert.equal(sampleVideo().toString('latin1', 4, 8), 'ftyp');
  });
});

describe('createMockVideoUpstream', () => {
  it('runs a task queued for 1 s, running until 3 s, then succeeded, billed as Ark bills', async () => {
    const time = clock();
    const upstream = createMockVideoUpstream({ now: time.now });
    const id = await upstream.create(CALL, body('a fox in the snow', { resolution: '720p', duration: 5, ratio: '9:16' }));
    assert.match(id, /^cgt-mock-/);
    assert.deepEqual(await upstream.get(CALL, id), { status: 'queued', videoUrl: null, totalTokens: null, duration: null, error: null });
    time.advance(999);
    assert.equal((await upstream.get(CALL, id)).status, 'queued');
    time.advance(1);
    assert.equal((await upstream.get(CALL, id)).status, 'running');
    time.advance(1999);
    assert.equal((await upstream.get(CALL, id)).status, 'running');
    time.advance(1);
    assert.deepEqual(await upstream.get(CALL, id), { status: 'succeeded', videoUrl: `mock://video/${id}.mp4`, totalTokens: 108_000, duration: 5, error: null });
  });

  it('reads a task with only its id: another upstream (a restart, another instance) answers the same', async () => {
    const time = clock();
    const id = await createMockVideoUpstream({ now: time.now }).create(CALL, body('x', { resolution: '1080p', duration: 10 }));
    time.advance(60_000);
    const task = await createMockVideoUpstream({ now: time.now }).get(CALL, id);
    assert.equal(task.status, 'succeeded');
    assert.equal(task.duration, 10);
    assert.equal(task.totalTokens, mockVideoTokens('1080p', 10));
    assert.equal(task.totalTokens, 486_000);
  });

  it('takes its times from the options, and defaults to 720p for 5 s (auto, -1, too)', async () => {
    const time = clock();
    const upstream = createMockVideoUpstream({ now: time.now, queuedMs: 10, runningMs: 20 });
    const plain = await upstream.create(CALL, body('x'));
    const auto = await upstream.create(CALL, body('x', { duration: -1 }));
    time.advance(10);
    assert.equal((await upstream.get(CALL, plain)).status, 'running');
    time.advance(20);
    for (const id of [plain, auto]) assert.deepEqual(await upstream.get(CALL, id), { status: 'succeeded', videoUrl: `mock://video/${id}.mp4`, totalTokens: 108_000, duration: 5, error: null });
    assert.equal(mockVideoTokens('480p', 5), 48_038);
  });

  it('fails a task whose prompt holds the hook, once it has run', async () => {
    const time = clock();
    const upstream = createMockVideoUpstream({ now: time.now });
    const content = [{ type: 'image_url', image_url: { url: 'https://example.com/a.png' } }, { type: 'text', text: `a cat ${MOCK_VIDEO_FAIL_HOOK}` }];
    const id = await upstream.create(CALL, { model: 'm', content });
    time.advance(1500);
    assert.equal((await upstream.get(CALL, id)).status, 'running');
    time.advance(1500);
    const task = await upstream.get(CALL, id);
    assert.equal(task.status, 'failed');
    assert.equal(task.error?.code, 'OutputVideoSensitiveContentDetected');
    assert.deepEqual([task.videoUrl, task.totalTokens, task.duration], [null, null, null]);
    await assert.rejects(upstream.download(CALL, `mock://video/${id}.mp4`), refusedWith(404, 'ResourceNotFound'));
  });

  it('cancels a task while it is queued, and refuses once it runs or has ended', async () => {
    const time = clock();
    const upstream = createMockVideoUpstream({ now: time.now });
    const id = await upstream.create(CALL, body('x'));
    await upstream.cancel(CALL, id);
    time.advance(1000);
    await assert.rejects(upstream.cancel(CALL, id), refusedWith(400, /running/));
    time.advance(5000);
    await assert.rejects(upstream.cancel(CALL, id), refusedWith(400, /finished/));
    await assert.rejects(upstream.cancel(CALL, 'cgt-20250331175019-68d9t'), refusedWith(404, 'ResourceNotFound'));
  });

  it('downloads the sample video of a succeeded task in chunks, and nothing else', async () => {
    const time = clock();
    const upstream = createMockVideoUpstream({ now: time.now });
    const id = await upstream.create(CALL, body('x'));
    const url = `mock://video/${id}.mp4`;
    await assert.rejects(upstream.download(CALL, url), refusedWith(404, 'ResourceNotFound'), 'no file before it succeeded');
    time.advance(3000);
    const file = await upstream.download(CALL, (await upstream.get(CALL, id)).videoUrl ?? '');
    assert.equal(file.contentType, 'video/mp4');
    assert.equal(file.contentLength, sampleVideo().length);
    const { bytes, chunks } = await readAll(file.body);
    assert.ok(bytes.equals(sampleVideo()));
    assert.ok(chunks >= 2, `${chunks} chunk(s)`);
    await file.discard();
    await (await upstream.download(CALL, url)).discard();
    for (const bad of ['https://example.com/v.mp4', 'mock://video/nothing.mp4', `mock://video/${id}`, `mock://image/${id}.mp4`]) {
      await assert.rejects(upstream.download(CALL, bad), refusedWith(404, 'ResourceNotFound'), bad);
    }
    await upstream.close();
  });

  it('refuses ids it did not make with 404', async () => {
    const upstream = createMockVideoUpstream();
    const id = await upstream.create(CALL, body('x'));
    const bad = ['', 'cgt-20250331175019-68d9t', `${id}x`, id.replace('-720p-', '-4k-'), id.replace('-ok-', '-maybe-'), id.replace(/-5-/, '-99-'), 'cgt-mock-zzzzzzzzzzz-5-720p-ok-0123456789'];
    for (const other of bad) await assert.rejects(upstream.get(CALL, other), refusedWith(404, 'ResourceNotFound'), other);
  });

  it('refuses bodies Ark would refuse, with 400 InvalidParameter', async () => {
    const upstream = createMockVideoUpstream();
    const bodies: Record<string, unknown>[] = [
      { model: 'm' },
      { model: 'm', content: [] },
      { model: 'm', content: 'a fox' },
      { model: 'm', content: [null] },
      { model: 'm', content: [{ text: 'no type' }] },
      { model: 'm', content: [{ type: 'text', text: 7 }] },
      { content: [{ type: 'text', text: 'x' }] },
      body('x', { resolution: '4k' }),
      body('x', { duration: 0 }),
      body('x', { duration: 2.5 }),
      body('x', { duration: '5' }),
      body('x', { duration: 99 }),
    ];
    for (const b of bodies) await assert.rejects(upstream.create(CALL, b), refusedWith(400, 'InvalidParameter'), JSON.stringify(b));
    await assert.rejects(upstream.create(CALL, { model: 'm', content: [] }), refusedWith(400, /content/));
  });
});
