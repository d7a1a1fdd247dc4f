// Ark's data plane and the video file's host answering 3xx (issue 40): never followed, the call fails as the
// upstream's `unavailable` (502) saying it redirected, without the Location; one request, nothing sent after it.

import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { createArkVideoUpstream } from './data-plane.js';
import { ARK_MODEL, arkCall, assertUpstreamFails } from '../../test/helpers/ark-calls.js';
import { VideoUpstreamError, type VideoUpstream } from './upstream.js';

const MODEL = ARK_MODEL;
const KEY = 'ark-redirect-key-0123456789';
const LOCATION = 'https://elsewhere.example/tasks?token=SECRET-TOKEN';


describe('a data plane that redirects', () => {
  let server: Server;
  let url = '';
  let calls = 0;
  const ark: VideoUpstream = createArkVideoUpstream();

  before(async () => {
    server = createServer((req, res) => {
      calls++;
      req.resume();
      res.writeHead(302, { location: LOCATION, 'content-type': 'application/json' });
      res.end('{}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    await ark.close();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  async function refusal(promise: Promise<unknown>): Promise<VideoUpstreamError> {
    let caught: unknown;
    await assert.rejects(promise, (err: unknown) => {
      caught = err;
      return true;
    });
    assert.ok(caught instanceof VideoUpstreamError, String(caught));
    assert.deepEqual({ kind: caught.kind, status: caught.status }, { kind: 'unavailable', status: 502 });
    assert.match(caught.message, /answered HTTP 302, a redirect, which the gateway does not follow/);
    assert.ok(!caught.message.includes('elsewhere') && !caught.message.includes('SECRET'), caught.message);
    return caught;
  }

  it('a task created, read or cancelled: 502 unavailable saying Ark redirected', async () => {
    const before = calls;
    const call = arkCall(`${url}/api/v3`, KEY);
    await refusal(ark.create(call, { model: MODEL, content: [{ type: 'text', text: 'a cat' }] }));
    await refusal(ark.get(call, 'cgt-1'));
    await refusal(ark.cancel(call, 'cgt-1'));
    assert.equal(calls - before, 3, 'one request each: nothing followed');
  });

  it("the video file's download: 502 saying its host redirected", async () => {
    const error = await refusal(ark.download(arkCall(`${url}/api/v3`, KEY), `${url}/video.mp4?sig=abc`));
    assert.match(error.message, /^the video file's host answered/);
  });
});
