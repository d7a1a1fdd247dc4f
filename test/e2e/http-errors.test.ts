// What Node's HTTP parser refuses (headers too large, malformed chunked bodies, Content-Length with
// Transfer-Encoding, headers that never end) is answered in the API's own error shape: OpenAI's on
// /v1/chat/completions and by default, Anthropic's on /v1/messages. Answers outside the chains carry a request id,
// and 404 hints point only at paths that exist.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { TEST_KEY, configWith, startGatewayUnderTest, type GatewayUnderTest } from '../helpers/gateway-under-test.js';
import { series } from '../helpers/metric-series.js';
import { withDeadline } from '../helpers/poll.js';
import { openRaw, parseAnswer } from '../helpers/raw-http.js';

const HEADER_TIMEOUT_MS = 500;
let gw: GatewayUnderTest;

before(async () => {
  gw = await startGatewayUnderTest(
    configWith(`  - name: demo
    type: mock
    models: ["demo-*"]
`).replace('shutdown_grace_ms: 5000', `shutdown_grace_ms: 5000\n  header_timeout_ms: ${HEADER_TIMEOUT_MS}`),
  );
});

after(() => gw.stop());

const ROUTES = [
  {
    path: '/v1/chat/completions',
    headers: `Authorization: Bearer ${TEST_KEY}\r\n`,
    shape: (body: Record<string, unknown>): boolean => typeof (body['error'] as Record<string, unknown> | undefined)?.['message'] === 'string' && 'code' in (body['error'] as object),
  },
  {
    path: '/v1/messages',
    headers: `x-api-key: ${TEST_KEY}\r\nanthropic-version: 2023-06-01\r\n`,
    shape: (body: Record<string, unknown>): boolean => body['type'] === 'error' && typeof (body['error'] as Record<string, unknown> | undefined)?.['type'] === 'string',
  },
];

async function exchange(bytes: string): Promise<{ status: number; headers: string; body: Record<string, unknown> }> {
  const raw = await openRaw(gw.url, bytes);
  return parseAnswer(await withDeadline(raw.closed, 5_000, 'the gateway answers and closes'));
}

describe('parser errors in the route\'s shape', () => {
  for (const route of ROUTES) {
    test(`431 on ${route.path}`, async () => {
      const answer = await exchange(`POST ${route.path} HTTP/1.1\r\nHost: x\r\n${route.headers}X-Big: ${'a'.repeat(20_000)}\r\nContent-Length: 2\r\n\r\n{}`);
      assert.equal(answer.status, 431);
      assert.ok(route.shape(answer.body), JSON.stringify(answer.body));
      assert.match(answer.headers, /x-request-id: req_[0-9a-f]{32}/);
    });

    test(`a malformed chunked body on ${route.path}: 400 in its shape, counted as the route's`, async () => {
      const counted = async (): Promise<number> =>
        series(await (await fetch(`${gw.url}/metrics`)).text(), 'gateway_requests_total')[`{route="${route.path}",model="unrouted",channel="none",status="400"}`] ?? 0;
      const before = await counted();
      const answer = await exchange(
        `POST ${route.path} HTTP/1.1\r\nHost: x\r\n${route.headers}Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{"mod\r\nzz-not-a-size\r\n`,
      );
      assert.equal(answer.status, 400);
      assert.ok(route.shape(answer.body), JSON.stringify(answer.body));
      assert.match(JSON.stringify(answer.body), /not valid HTTP/);
      assert.equal(await counted(), before + 1, 'the chain answered it (not the parser handler)');
    });

    test(`Content-Length together with Transfer-Encoding on ${route.path}: 400 in its shape`, async () => {
      const answer = await exchange(
        `POST ${route.path} HTTP/1.1\r\nHost: x\r\n${route.headers}Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`,
      );
      assert.equal(answer.status, 400);
      assert.ok(route.shape(answer.body), JSON.stringify(answer.body));
    });
  }

  test('headers that never end are answered 408 (OpenAI shape) after server.header_timeout_ms', async () => {
    const startedAt = Date.now();
    const answer = await exchange('POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nX-Slow: 1\r\n');
    assert.equal(answer.status, 408);
    assert.equal((answer.body['error'] as Record<string, unknown>)['code'], 'request_timeout');
    assert.ok(Date.now() - startedAt >= HEADER_TIMEOUT_MS - 50);
  });
});

describe('answers outside the chains', () => {
  test('/v1/models, 404s and /healthz carry x-request-id and request-id', async () => {
    for (const [path, status] of [
      ['/v1/models', 200],
      ['/v1/nope', 404],
      ['/healthz', 200],
    ] as const) {
      const res = await fetch(`${gw.url}${path}`, { headers: { authorization: `Bearer ${TEST_KEY}` } });
      assert.equal(res.status, status, path);
      assert.match(res.headers.get('x-request-id') ?? '', /^req_[0-9a-f]{32}$/, path);
      assert.equal(res.headers.get('request-id'), res.headers.get('x-request-id'), path);
    }
  });

  test('a base URL without /v1 is hinted at only when the /v1 path exists', async () => {
    const hinted = await fetch(`${gw.url}/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${TEST_KEY}` }, body: '{}' });
    assert.equal(hinted.status, 404);
    assert.match(((await hinted.json()) as { error: { message: string } }).error.message, /Did you mean \/v1\/chat\/completions\?/);
    const plain = await fetch(`${gw.url}/audio/speech`, { method: 'POST', headers: { authorization: `Bearer ${TEST_KEY}` }, body: '{}' });
    assert.equal(plain.status, 404);
    const message = ((await plain.json()) as { error: { message: string } }).error.message;
    assert.doesNotMatch(message, /Did you mean/, message);
    // /v1/models/{id} takes one segment: /models/a/b has no /v1 twin to hint at; /models/gpt-4o has.
    const nested = await fetch(`${gw.url}/models/a/b`, { headers: { authorization: `Bearer ${TEST_KEY}` } });
    assert.doesNotMatch(((await nested.json()) as { error: { message: string } }).error.message, /Did you mean/);
    const one = await fetch(`${gw.url}/models/gpt-4o`, { headers: { authorization: `Bearer ${TEST_KEY}` } });
    assert.match(((await one.json()) as { error: { message: string } }).error.message, /Did you mean \/v1\/models\/gpt-4o\?/);
  });
});
