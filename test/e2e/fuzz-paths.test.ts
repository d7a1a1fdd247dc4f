// Fuzzing what comes before a body (issue 28): arbitrary paths (the registry's patterns with odd segments: percent
// escapes, dots, long ones, unicode), methods and header values (keys, content types, versions). Never a 5xx; every
// answer with a body is JSON with an `error` (or a 2xx of the route); the gateway is healthy afterwards. Runs:
// GATEWAY_FUZZ_RUNS (default 300 per property).

import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, test } from 'node:test';
import fc from 'fast-check';
import { configWith, startGatewayUnderTest, TEST_KEY, type GatewayUnderTest } from '../helpers/gateway-under-test.js';

const RUNS = Number(process.env['GATEWAY_FUZZ_RUNS'] ?? 300);
let gw: GatewayUnderTest;

before(async () => {
  gw = await startGatewayUnderTest(configWith(`  - name: demo
    type: mock
    models: ["demo-*"]
    assets: true
`));
});

after(async () => {
  await gw.stop();
});

/** One raw request (node:http sends the path and headers as given, which fetch would normalise). */
function send(method: string, path: string, headers: Record<string, string>, body: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const url = new URL(gw.url);
    const req = request({ host: url.hostname, port: url.port, method, path, headers: Object.assign({ 'content-length': String(Buffer.byteLength(body)) }, headers) }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

const PATTERNS = ['/v1/chat/completions', '/v1/videos/{}', '/v1/videos/{}/content', '/v1/video/generations/{}', '/v1/videogen/asset/{}', '/v1/models/{}', '/admin/keys/{}', '/console/api/videos/{}/content', '/{}', '/v1/{}/{}'];
const SEGMENT = fc.oneof(
  fc.stringMatching(/^[A-Za-z0-9_.~-]{0,20}$/),
  fc.constantFrom('.', '..', '%2e%2e', '%2F', '%00', '%ZZ', '%', 'a%2Fb', '%E2%82%AC', '~', 'x'.repeat(300), '%2e', '?', '#'),
);
const PATH = fc.tuple(fc.constantFrom(...PATTERNS), fc.array(SEGMENT, { minLength: 3, maxLength: 3 }), fc.constantFrom('', '?', '?a=1&a=2', '?limit=-1', '?variant=thumbnail', '?after=%00')).map(([pattern, segments, query]) => {
  let i = 0;
  return pattern.replace(/\{\}/g, () => encodeURI(segments[i++] ?? '')) + query;
});
const HEADER_VALUE = fc.oneof(fc.stringMatching(/^[\x20-\x7e]{0,60}$/), fc.constantFrom('', 'Bearer', 'Bearer ', `Bearer ${TEST_KEY}`, `Bearer ${TEST_KEY} ${TEST_KEY}`, 'Basic Zm9vOmJhcg==', 'sk-'.padEnd(600, 'x')));
const HEADERS = fc.record(
  {
    authorization: HEADER_VALUE,
    'x-api-key': HEADER_VALUE,
    'content-type': fc.constantFrom('application/json', 'multipart/form-data', 'multipart/form-data; boundary=', 'text/plain', 'application/json; charset=latin1', ''),
    'anthropic-version': HEADER_VALUE,
    'x-forwarded-for': HEADER_VALUE,
    cookie: HEADER_VALUE,
  },
  { requiredKeys: [] },
);

test(`arbitrary paths, methods and headers: never a 5xx, answers in JSON (${RUNS} runs)`, async (t) => {
  const seen = new Map<number, number>();
  await fc.assert(
    fc.asyncProperty(fc.constantFrom('GET', 'POST', 'DELETE', 'PATCH', 'PUT', 'OPTIONS'), PATH, HEADERS, fc.constantFrom('', '{}', '{"model":"demo-chat","messages":[]}', 'not json'), async (method, path, headers, body) => {
      const answer = await send(method, path, headers, body);
      seen.set(Math.floor(answer.status / 100), (seen.get(Math.floor(answer.status / 100)) ?? 0) + 1);
      try {
        assert.ok(answer.status >= 200 && answer.status < 500, `status ${answer.status}`);
        if (answer.status >= 400 && answer.text !== '') {
          const json = JSON.parse(answer.text) as Record<string, unknown>;
          assert.ok(json['error'] !== undefined || json['ResponseMetadata'] !== undefined, 'an error body of no known shape');
        }
      } catch (err) {
        throw new Error(`${(err as Error).message}: ${method} ${path} ${JSON.stringify(headers).slice(0, 300)} -> ${answer.status} ${answer.text.slice(0, 300)}`, { cause: err });
      }
    }),
    { numRuns: RUNS, includeErrorInReport: true },
  );
  t.diagnostic(`fuzz paths, methods and headers: ${[...seen.values()].reduce((a, b) => a + b, 0)} cases, ${seen.get(2) ?? 0} answered 2xx, ${seen.get(4) ?? 0} refused 4xx, ${seen.get(5) ?? 0} 5xx`);
  assert.equal((await fetch(`${gw.url}/healthz`)).status, 200);
  assert.equal((await fetch(`${gw.url}/readyz`)).status, 200);
});
