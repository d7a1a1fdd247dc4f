// Reading an upstream's model list: the OpenAI list and Anthropic pages, the bounds (body size, id count and
// length, pages), and failures as short reasons that never hold the upstream's body.

import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { Pool } from 'undici';
import {
  DiscoveryFailure,
  getJson,
  MAX_MODEL_IDS,
  readAnthropicModelPages,
  readOpenAIModelList,
  type UpstreamGet,
} from '../../../core/providers/model-discovery.js';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

let server: Server;
let pool: Pool;
let handler: Handler = (_req, res) => res.end('{}');
const seen: IncomingMessage[] = [];

before(async () => {
  server = createServer((req, res) => {
    seen.push(req);
    req.resume();
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  pool = new Pool(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
});

after(async () => {
  await pool.close();
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const get: UpstreamGet = (path, headers) => getJson(pool, path, headers, 5_000, new AbortController().signal);

function answer(status: number, body: string | Buffer): Handler {
  return (_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(body);
  };
}

function openAIList(ids: readonly unknown[]): string {
  return JSON.stringify({ object: 'list', data: ids.map((id) => ({ id, object: 'model', created: 1, owned_by: 'system' })) });
}

/** Runs `read` and returns the DiscoveryFailure's reason. */
async function reasonOf(read: Promise<unknown>): Promise<string> {
  try {
    await read;
  } catch (err) {
    assert.ok(err instanceof DiscoveryFailure, String(err));
    return err.message;
  }
  assert.fail('expected a DiscoveryFailure');
}

describe('readOpenAIModelList', () => {
  it('reads the ids of the list, sending the given headers, JSON and no compression', async () => {
    handler = answer(200, openAIList(['gpt-4o', 'o3-mini']));
    seen.length = 0;
    assert.deepEqual(await readOpenAIModelList(get, { authorization: 'Bearer sk-up' }), ['gpt-4o', 'o3-mini']);
    assert.equal(seen[0]?.method, 'GET');
    assert.equal(seen[0]?.url, '/v1/models');
    assert.equal(seen[0]?.headers['authorization'], 'Bearer sk-up');
    assert.equal(seen[0]?.headers['accept-encoding'], 'identity');
  });

  it('skips entries without a usable id (not a string, empty, over 256 bytes), not the whole list', async () => {
    handler = answer(200, openAIList(['ok-1', 42, '', 'x'.repeat(257), 'é'.repeat(128), 'ok-2']));
    assert.deepEqual(await readOpenAIModelList(get, {}), ['ok-1', 'é'.repeat(128), 'ok-2']);
  });

  it('fails on a status, a body that is not JSON or not a list, and never quotes the body', async () => {
    handler = answer(401, '{"error":{"message":"secret-bearing body"}}');
    assert.equal(await reasonOf(readOpenAIModelList(get, {})), 'HTTP 401');
    handler = answer(200, '{"object":"list","data":[secret-bearing');
    assert.equal(await reasonOf(readOpenAIModelList(get, {})), 'the answer is not JSON');
    handler = answer(200, '{"object":"list"}');
    assert.match(await reasonOf(readOpenAIModelList(get, {})), /not a model list/);
    handler = answer(200, '[1,2]');
    assert.match(await reasonOf(readOpenAIModelList(get, {})), /not a model list/);
  });

  it('fails on more than MAX_MODEL_IDS ids and on a body over 4 MB', async () => {
    handler = answer(200, openAIList(Array.from({ length: MAX_MODEL_IDS + 1 }, (_, i) => `m-${i}`)));
    assert.equal(await reasonOf(readOpenAIModelList(get, {})), `more than ${MAX_MODEL_IDS} models`);
    handler = answer(200, Buffer.alloc(4 * 1024 * 1024 + 1, 0x20));
    assert.match(await reasonOf(readOpenAIModelList(get, {})), /over 4194304 bytes/);
    // The pool still works after a body was given up.
    handler = answer(200, openAIList(['after']));
    assert.deepEqual(await readOpenAIModelList(get, {}), ['after']);
  });

  it('names a refused connection by its code', async () => {
    const closed = new Pool('http://127.0.0.1:1');
    try {
      const read = getJson(closed, '/v1/models', {}, 5_000, new AbortController().signal);
      assert.match(await reasonOf(read), /ECONNREFUSED/);
    } finally {
      await closed.close();
    }
  });
});

describe('readAnthropicModelPages', () => {
  /** Pages of `size` over `ids`, as the fake would; records each query. */
  function paged(ids: readonly string[], size: number, queries: string[], lastId?: (page: readonly string[]) => unknown): Handler {
    return (req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      queries.push(url.search);
      const after = url.searchParams.get('after_id');
      const start = after === null ? 0 : ids.indexOf(after) + 1;
      const page = ids.slice(start, start + size);
      const body = { data: page.map((id) => ({ type: 'model', id })), has_more: start + size < ids.length, first_id: page[0], last_id: lastId ? lastId(page) : page[page.length - 1] };
      answer(200, JSON.stringify(body))(req, res);
    };
  }

  it('follows has_more with after_id = last_id until the last page', async () => {
    const ids = Array.from({ length: 25 }, (_, i) => `claude-${i}`);
    const queries: string[] = [];
    handler = paged(ids, 10, queries);
    assert.deepEqual(await readAnthropicModelPages(get, { 'x-api-key': 'k', 'anthropic-version': '2023-06-01' }), ids);
    assert.deepEqual(queries, ['?limit=1000', '?limit=1000&after_id=claude-9', '?limit=1000&after_id=claude-19']);
  });

  it('fails when has_more comes without a new last_id, and after ten pages', async () => {
    handler = paged(['a', 'b', 'c'], 1, [], () => null);
    assert.equal(await reasonOf(readAnthropicModelPages(get, {})), 'has_more without a new last_id');
    handler = paged(['a', 'b', 'c'], 1, [], () => 'a');
    assert.equal(await reasonOf(readAnthropicModelPages(get, {})), 'has_more without a new last_id', 'a cursor that does not move');
    const queries: string[] = [];
    handler = paged(Array.from({ length: 50 }, (_, i) => `m-${i}`), 1, queries);
    assert.equal(await reasonOf(readAnthropicModelPages(get, {})), 'more than 10 pages');
    assert.equal(queries.length, 10);
  });
});

describe('a redirect', () => {
  it('is not followed: the reason says the upstream redirected, never where to', async () => {
    const before = seen.length;
    handler = (_req, res) => {
      res.writeHead(302, { location: 'https://elsewhere.example/v1/models?token=SECRET', 'content-type': 'application/json' });
      res.end('{}');
    };
    const reason = await reasonOf(readOpenAIModelList(get, {}));
    assert.match(reason, /answered HTTP 302, a redirect, which the gateway does not follow/);
    assert.ok(!reason.includes('elsewhere') && !reason.includes('SECRET'), reason);
    assert.equal(seen.length - before, 1, 'one call, nothing followed');
  });
});
