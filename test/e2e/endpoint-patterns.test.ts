// An endpoint whose path has parameters and whose method is not POST, added with one registry entry: GET
// /v1/echo/items/{id} is matched with its parameter decoded, runs its chain (auth before anything), is relayed
// upstream as a GET of the same path with no body, is named in gateway.yaml by its method and pattern, and another
// method on its path is told which one it takes. GET /v1/echo/files/{id} relays a large file as a byte stream: with
// backpressure (a client that does not read stops the upstream), whole and unchanged, or cut when the upstream
// breaks off.

import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { BUILTIN_ENDPOINTS } from '../../features/index.js';
import { LazyRequest } from '../../core/formats/lazy-request.js';
import { createOpenAIChatFormat } from '../../core/formats/openai-chat/index.js';
import type { ClientFormat } from '../../core/formats/format.js';
import type { PluginFactory } from '../../core/pipeline/plugin.js';
import { FakeOpenAI } from '../helpers/fake-openai.js';
import { until } from '../helpers/poll.js';
import { TEST_KEY, channel, configWith, startGatewayUnderTest, type GatewayUnderTest } from '../helpers/gateway-under-test.js';

const PATTERN = '/v1/echo/items/{id}';
const KEY = `GET ${PATTERN}`;

/** The chat format's errors and answers, with a request that is its path alone (a GET has no body), for `model`. */
function pathFormat(model: string): () => ClientFormat {
  return () =>
    Object.assign({}, createOpenAIChatFormat(), {
      translatable: false,
      decodeRequest: (raw: Parameters<ClientFormat['decodeRequest']>[0]) => new LazyRequest(raw, {}, { whole: () => ({}) }, model, false, null),
    });
}

/** 24 MiB of bytes that are not all alike, and their digest. */
const FILE = Buffer.alloc(24 * 1024 * 1024);
for (let i = 0; i < FILE.length; i += 4) FILE.writeUInt32LE((i * 2654435761) >>> 0, i);
const FILE_DIGEST = createHash('sha256').update(FILE).digest('hex');

/** An upstream serving FILE at any path in 64 KiB writes that wait for drain; it counts what it wrote. */
let written = 0;
/** Set while the upstream waits for drain. */
let blocked = false;
let breakAfter: number | null = null;
/** Without a content-length (chunked), a cut body cannot be told from a whole one but by how it ends. */
let chunked = false;
const files: Server = createServer((_req, res) => {
  written = 0;
  blocked = false;
  const length: Record<string, string> = chunked ? {} : { 'content-length': String(FILE.length) };
  res.writeHead(200, Object.assign({ 'content-type': 'video/mp4', 'content-disposition': 'attachment; filename="v.mp4"' }, length));
  const next = (): void => {
    while (written < FILE.length) {
      if (breakAfter !== null && written >= breakAfter) {
        res.socket?.destroy();
        return;
      }
      const chunk = FILE.subarray(written, written + 65536);
      written += chunk.length;
      if (!res.write(chunk)) {
        blocked = true;
        res.once('drain', () => {
          blocked = false;
          next();
        });
        return;
      }
    }
    res.end();
  };
  next();
});

/** Keeps the parameters each request saw. */
const seen: Readonly<Record<string, string>>[] = [];
const probe: PluginFactory = {
  name: 'params-probe',
  uses: [],
  create: () => ({
    name: 'params-probe',
    request(ctx) {
      seen.push(ctx.params ?? {});
    },
  }),
};

let fake: FakeOpenAI;
let gw: GatewayUnderTest;

const ROUTE = `routes:
  - path: ${KEY}
    plugins: [{ use: auth }, { use: params-probe }, { use: meter }, { use: relay }]
`;

before(async () => {
  fake = await new FakeOpenAI('echo').start();
  await new Promise<void>((resolve) => files.listen(0, '127.0.0.1', resolve));
  const endpoints = BUILTIN_ENDPOINTS.with([
    { method: 'GET', path: PATTERN, wire: 'openai-chat', createFormat: pathFormat('gpt-4o'), chain: ['auth', 'meter', 'relay'] },
    { method: 'GET', path: '/v1/echo/files/{id}', wire: 'openai-chat', createFormat: pathFormat('file-store'), chain: ['auth', 'meter', 'relay'] },
  ]);
  const filesChannel = `  - name: files
    type: openai
    base_url: http://127.0.0.1:${(files.address() as AddressInfo).port}
    keys: ["sk-upstream-files-0123456789"]
    models: ["file-store"]
`;
  gw = await startGatewayUnderTest(configWith(channel('echo', fake.url) + filesChannel, ROUTE), { endpoints, extraPlugins: [probe] });
});

after(async () => {
  await gw.stop();
  await fake.close();
  files.closeAllConnections();
  await new Promise((resolve) => files.close(resolve));
});

function get(path: string, key = TEST_KEY, method = 'GET'): Promise<Response> {
  return fetch(`${gw.url}${path}`, { method, headers: { authorization: `Bearer ${key}` } });
}

test('a GET with a path parameter runs its route, written by method and pattern, and is relayed as a GET of its path', async () => {
  const res = await get('/v1/echo/items/item%201?full=true');
  assert.equal(res.status, 200, await res.text());
  assert.deepEqual(seen.at(-1), { id: 'item 1' });
  const upstream = fake.requests.at(-1);
  assert.equal(upstream?.method, 'GET');
  assert.equal(upstream?.path, '/v1/echo/items/item%201?full=true');
  assert.equal(upstream?.raw.length, 0);
  assert.equal(upstream?.headers['content-type'], undefined);
  const record = (await gw.usage()).find((r) => r.requestId === res.headers.get('x-request-id'));
  assert.equal(record?.route, KEY);
});

test('its key is checked first, and a path that only looks like it is not served', async () => {
  assert.equal((await get('/v1/echo/items/a', 'sk-not-a-key-0123456789abcdef')).status, 401);
  assert.equal((await get('/v1/echo/items/a/b')).status, 404);
  assert.equal((await get('/v1/echo/items/')).status, 404);
});

test('another method on its path is told the one it takes', async () => {
  const res = await get('/v1/echo/items/a', TEST_KEY, 'DELETE');
  assert.equal(res.status, 405);
  assert.match(((await res.json()) as { error: { message: string } }).error.message, /accepts GET only/);
});

/** GETs a file through the gateway, its answer paused until `read` is called. */
function getFile(): Promise<{ res: IncomingMessage; read: () => Promise<Buffer> }> {
  return new Promise((resolve, reject) => {
    const req = request(`${gw.url}/v1/echo/files/v1`, { headers: { authorization: `Bearer ${TEST_KEY}` } }, (res) => {
      res.pause();
      resolve({
        res,
        read: () =>
          new Promise((done, fail) => {
            const chunks: Buffer[] = [];
            res.on('data', (chunk: Buffer) => chunks.push(chunk));
            res.on('end', () => done(Buffer.concat(chunks)));
            res.on('error', fail);
            res.on('aborted', () => fail(new Error('aborted')));
            res.resume();
          }),
      });
    });
    req.on('error', reject);
    req.end();
  });
}

/**
 * Resolves with `written` once the upstream waits for drain and has written nothing since the last look (the gateway
 * stopped reading it; one that buffered would drain it again at once), or once it wrote the whole file.
 */
async function settled(): Promise<number> {
  let last = -1;
  return until('the upstream to stop writing', () => {
    const stuck = blocked && written === last;
    last = written;
    return stuck || written >= FILE.length ? written : undefined;
  }, { timeoutMs: 20_000, intervalMs: 20 });
}

test('a file is relayed as bytes: a client that does not read stops the upstream, then gets it whole', async () => {
  breakAfter = null;
  const { res, read } = await getFile();
  assert.equal(res.statusCode, 200);
  assert.equal(res.headers['content-type'], 'video/mp4');
  assert.equal(res.headers['content-length'], String(FILE.length));
  assert.equal(res.headers['content-disposition'], 'attachment; filename="v.mp4"');
  // Socket buffers on both sides and the sink's own hold a few MB at most; the rest waits at the upstream.
  const stalled = await settled();
  assert.ok(stalled < FILE.length / 2, `the upstream wrote ${stalled} of ${FILE.length} bytes to a client that read nothing`);
  const body = await read();
  assert.equal(createHash('sha256').update(body).digest('hex'), FILE_DIGEST);
});

test('a file whose upstream breaks off reaches the client cut, not whole, and the record says so', async () => {
  breakAfter = 4 * 1024 * 1024;
  for (const withoutLength of [false, true]) {
    chunked = withoutLength;
    const { res, read } = await getFile();
    await assert.rejects(read(), `chunked: ${withoutLength}`);
    const record = (await gw.usage()).find((r) => r.requestId === res.headers['x-request-id']);
    assert.equal(record?.status, 200);
    assert.equal(record?.errorCode, 'GW_ERR_UPSTREAM_STREAM_BROKEN');
  }
  chunked = false;
});

test('a HEAD of a file is relayed as a HEAD: its headers, no body fetched', async () => {
  breakAfter = null;
  const res = await fetch(`${gw.url}/v1/echo/files/v1`, { method: 'HEAD', headers: { authorization: `Bearer ${TEST_KEY}` } });
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('content-type'), 'video/mp4');
  assert.equal(res.headers.get('content-length'), String(FILE.length));
  assert.equal((await res.arrayBuffer()).byteLength, 0);
});
