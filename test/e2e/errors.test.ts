// Every refusal the gateway answers itself: the exact OpenAI error shape, no upstream call, and no usage record
// for requests refused before routing (bad input, bad key, forbidden model).

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { parseOpenAIError, type OpenAIError } from '../helpers/chat-requests.js';
import { FakeOpenAI } from '../helpers/fake-openai.js';
import { LIMITED_KEY, TEST_KEY, channel, configWith, startGatewayUnderTest, type GatewayUnderTest } from '../helpers/gateway-under-test.js';

const ADMIN = 'Bearer test-admin-token-0123456789';
const CHAT = '/v1/chat/completions';
const GOOD_BODY = JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] });

let upstream: FakeOpenAI;
let gw: GatewayUnderTest;

before(async () => {
  upstream = await new FakeOpenAI('upstream-a').start();
  gw = await startGatewayUnderTest(configWith(channel('a', upstream.url)));
});

after(async () => {
  await gw.stop();
  await upstream.close();
});

function post(path: string, body: string, headers: Record<string, string> = { authorization: `Bearer ${TEST_KEY}` }): Promise<Response> {
  return fetch(`${gw.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
}

/** Reads the body and checks it has exactly the four keys of an OpenAI error, with the right types. */
async function openAIError(res: Response, status: number): Promise<OpenAIError> {
  const text = await res.text();
  assert.equal(res.status, status, `expected HTTP ${status}, got ${res.status}: ${text}`);
  assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
  const error = parseOpenAIError(text);
  assert.ok(error.message.length > 0);
  assert.equal(typeof error.type, 'string');
  assert.ok(error.param === null || typeof error.param === 'string');
  assert.ok(error.code === null || typeof error.code === 'string');
  return error;
}

/** Runs `fn` and checks that it reached no upstream and (unless `recordsAllowed`) wrote no usage record. */
async function untouched(fn: () => Promise<void>, options: { recordsAllowed?: boolean } = {}): Promise<void> {
  const requests = upstream.requests.length;
  const records = (await gw.usage()).length;
  await fn();
  assert.equal(upstream.requests.length, requests, 'the upstream received no request');
  if (options.recordsAllowed !== true) assert.equal((await gw.usage()).length, records, 'no usage record was written');
}

/** The 401 of a bad key: exactly what api.openai.com answers, apart from the message. */
async function assertInvalidKey(res: Response, message?: RegExp): Promise<void> {
  const error = await openAIError(res, 401);
  assert.equal(error.type, 'invalid_request_error');
  assert.equal(error.param, null);
  assert.equal(error.code, 'invalid_api_key');
  if (message !== undefined) assert.match(error.message, message);
}

// ---- 401 ----

test('401 invalid_api_key for a request without any key', async () => {
  await untouched(async () => {
    await assertInvalidKey(await post(CHAT, GOOD_BODY, {}), /API key/);
  });
});

test('401 invalid_api_key for an unknown key, as Bearer and as x-api-key', async () => {
  await untouched(async () => {
    await assertInvalidKey(await post(CHAT, GOOD_BODY, { authorization: 'Bearer sk-nobody-0123456789abcdefghij' }), /Incorrect API key/);
    await assertInvalidKey(await post(CHAT, GOOD_BODY, { 'x-api-key': 'sk-nobody-0123456789abcdefghij' }), /Incorrect API key/);
    await assertInvalidKey(await post(CHAT, GOOD_BODY, { authorization: 'Bearer ' }));
    await assertInvalidKey(await post(CHAT, GOOD_BODY, { authorization: 'Basic dXNlcjpwYXNz' }));
  });
});

test('401 when Authorization and x-api-key name different keys, even if one is valid', async () => {
  await untouched(async () => {
    await assertInvalidKey(await post(CHAT, GOOD_BODY, { authorization: `Bearer ${TEST_KEY}`, 'x-api-key': 'sk-other-0123456789abcdefghij' }));
  });
});

test('a valid key in x-api-key is accepted', async () => {
  const res = await post(CHAT, GOOD_BODY, { 'x-api-key': TEST_KEY });
  assert.equal(res.status, 200);
  const json = (await res.json()) as { choices: { message: { content: string } }[] };
  assert.equal(json.choices[0]?.message.content, 'reply from upstream-a');
});

test('a key created through the admin API works, and once revoked answers 401 "revoked"', async () => {
  const created = await fetch(`${gw.url}/admin/keys`, {
    method: 'POST',
    headers: { authorization: ADMIN, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'x', group: 'pro' }),
  });
  assert.equal(created.status, 201);
  const info = (await created.json()) as { id: string; name: string; group: string; key: string; revoked_at: string | null };
  assert.equal(info.name, 'x');
  assert.equal(info.group, 'pro');
  assert.equal(info.revoked_at, null);
  assert.equal(typeof info.key, 'string');
  assert.equal(typeof info.id, 'string');

  const requests = upstream.requests.length;
  const ok = await post(CHAT, GOOD_BODY, { authorization: `Bearer ${info.key}` });
  assert.equal(ok.status, 200);
  await ok.arrayBuffer();
  assert.equal(upstream.requests.length, requests + 1);
  const record = (await gw.usage()).find((r) => r.keyName === 'x');
  assert.equal(record?.keyId, info.id);
  assert.equal(record?.status, 200);

  const revoked = await fetch(`${gw.url}/admin/keys/${info.id}`, { method: 'DELETE', headers: { authorization: ADMIN } });
  assert.equal(revoked.status, 200);
  const revokedInfo = (await revoked.json()) as { id: string; revoked_at: string | null };
  assert.equal(revokedInfo.id, info.id);
  assert.equal(typeof revokedInfo.revoked_at, 'string');

  await untouched(async () => {
    await assertInvalidKey(await post(CHAT, GOOD_BODY, { authorization: `Bearer ${info.key}` }), /revoked/);
    await assertInvalidKey(await post(CHAT, GOOD_BODY, { 'x-api-key': info.key }), /revoked/);
  });
});

test('the admin API refuses a wrong admin token with 401 and creates nothing', async () => {
  const res = await fetch(`${gw.url}/admin/keys`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'y', group: 'pro' }),
  });
  const error = await openAIError(res, 401);
  assert.equal(error.code, 'invalid_admin_token');
  const list = await fetch(`${gw.url}/admin/keys`, { headers: { authorization: ADMIN } });
  const keys = (await list.json()) as { data: { name: string }[] };
  assert.ok(!keys.data.some((k) => k.name === 'y'));
});

// ---- 403 / 404 ----

test('403 model_not_allowed when the key group may not call the model', async () => {
  await untouched(async () => {
    const error = await openAIError(await post(CHAT, GOOD_BODY, { authorization: `Bearer ${LIMITED_KEY}` }), 403);
    assert.equal(error.type, 'invalid_request_error');
    assert.equal(error.code, 'model_not_allowed');
    assert.equal(error.param, 'model');
    assert.match(error.message, /gpt-4o/);
    assert.match(error.message, /limited/);
  });
});

test('404 for a doubled /v1 names the fix: remove /v1 from the base URL', async () => {
  await untouched(async () => {
    const error = await openAIError(await post('/v1/v1/chat/completions', GOOD_BODY), 404);
    assert.equal(error.type, 'invalid_request_error');
    assert.equal(error.code, 'unknown_url');
    assert.match(error.message, /\/v1\/v1\/chat\/completions/);
    assert.match(error.message, /\/v1 twice/);
    assert.match(error.message, /Remove the trailing \/v1 from the base URL/);
  });
});

test('404 for a missing /v1 names the fix: add /v1 to the base URL', async () => {
  await untouched(async () => {
    const error = await openAIError(await post('/chat/completions', GOOD_BODY), 404);
    assert.equal(error.code, 'unknown_url');
    assert.match(error.message, /Did you mean \/v1\/chat\/completions\?/);
    assert.match(error.message, /Add \/v1 to the end of your base URL/);
  });
});

test('404 for an unrelated path lists what the gateway serves, with no base-URL hint', async () => {
  await untouched(async () => {
    const error = await openAIError(await post('/v1/nothing-here', GOOD_BODY), 404);
    assert.equal(error.code, 'unknown_url');
    assert.equal(error.param, null);
    assert.match(error.message, /Unknown request URL: POST \/v1\/nothing-here/);
    assert.match(error.message, /\/v1\/chat\/completions/);
    assert.doesNotMatch(error.message, /base URL/);
  });
});

test('404 model_not_found for a model no channel serves; the request is recorded, the upstream untouched', async () => {
  const records = (await gw.usage()).length;
  await untouched(
    async () => {
      const error = await openAIError(await post(CHAT, JSON.stringify({ model: 'claude-nothing', messages: [{ role: 'user', content: 'x' }] })), 404);
      assert.equal(error.type, 'invalid_request_error');
      assert.equal(error.code, 'model_not_found');
      assert.equal(error.param, 'model');
      assert.match(error.message, /claude-nothing/);
    },
    { recordsAllowed: true },
  );
  const after = await gw.usage();
  assert.equal(after.length, records + 1);
  const record = after.find((r) => r.model === 'claude-nothing');
  assert.equal(record?.status, 404);
  assert.equal(record?.errorCode, 'GW_ERR_MODEL_NOT_FOUND');
  assert.equal(record?.channel, null);
});

// ---- 400 ----

test('400 invalid_json for a body that is not JSON', async () => {
  await untouched(async () => {
    const error = await openAIError(await post(CHAT, '{"model":"gpt-4o","messages":[{'), 400);
    assert.equal(error.type, 'invalid_request_error');
    assert.equal(error.code, 'invalid_json');
    assert.equal(error.param, null);
    assert.match(error.message, /JSON/);
  });
});

test('400 for an empty body and for a JSON value that is not an object', async () => {
  await untouched(async () => {
    await openAIError(await post(CHAT, ''), 400);
    const error = await openAIError(await post(CHAT, '[1,2]'), 400);
    assert.match(error.message, /JSON object/);
  });
});

test('400 missing_required_parameter names model when it is missing', async () => {
  await untouched(async () => {
    const error = await openAIError(await post(CHAT, JSON.stringify({ messages: [{ role: 'user', content: 'x' }] })), 400);
    assert.equal(error.type, 'invalid_request_error');
    assert.equal(error.code, 'missing_required_parameter');
    assert.equal(error.param, 'model');
    assert.match(error.message, /'model'/);
  });
});

test('400 missing_required_parameter names messages when it is missing', async () => {
  await untouched(async () => {
    const error = await openAIError(await post(CHAT, JSON.stringify({ model: 'gpt-4o' })), 400);
    assert.equal(error.code, 'missing_required_parameter');
    assert.equal(error.param, 'messages');
    assert.match(error.message, /'messages'/);
  });
});

test('400 invalid_value names the field of the wrong type', async () => {
  const cases: { body: Record<string, unknown>; param: string }[] = [
    { body: { model: 'gpt-4o', messages: 'hello' }, param: 'messages' },
    { body: { model: 'gpt-4o', messages: [{ role: 'user', content: 'x' }], stream: 'true' }, param: 'stream' },
    { body: { model: 42, messages: [{ role: 'user', content: 'x' }] }, param: 'model' },
    { body: { model: 'gpt-4o', messages: [] }, param: 'messages' },
    { body: { model: 'gpt-4o', messages: [{ role: 'robot', content: 'x' }] }, param: 'messages[0].role' },
  ];
  await untouched(async () => {
    for (const { body, param } of cases) {
      const error = await openAIError(await post(CHAT, JSON.stringify(body)), 400);
      assert.equal(error.type, 'invalid_request_error', JSON.stringify(body));
      assert.equal(error.code, 'invalid_value', JSON.stringify(body));
      assert.equal(error.param, param, JSON.stringify(body));
      assert.ok(error.message.includes(`'${param}'`), `${error.message} names ${param}`);
    }
  });
});

// ---- 413 ----

test('413 request_too_large for a body over body_limit (65536 bytes)', async () => {
  const body = JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'x'.repeat(70_000) }] });
  assert.ok(Buffer.byteLength(body) > 65_536);
  await untouched(async () => {
    const error = await openAIError(await post(CHAT, body), 413);
    assert.equal(error.type, 'invalid_request_error');
    assert.equal(error.code, 'request_too_large');
    assert.equal(error.param, null);
  });
});

test('413 also for a chunked body (no content-length) that grows past body_limit', async () => {
  const piece = new TextEncoder().encode('x'.repeat(16_384));
  let sent = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent === 0) controller.enqueue(new TextEncoder().encode('{"model":"gpt-4o","messages":[{"role":"user","content":"'));
      if (sent >= 6) {
        controller.enqueue(new TextEncoder().encode('"}]}'));
        controller.close();
        return;
      }
      sent++;
      controller.enqueue(piece);
    },
  });
  await untouched(async () => {
    const init = { method: 'POST', headers: { authorization: `Bearer ${TEST_KEY}` }, body: stream, duplex: 'half' } as RequestInit;
    const error = await openAIError(await fetch(`${gw.url}${CHAT}`, init), 413);
    assert.equal(error.code, 'request_too_large');
  });
});

test('a body of exactly body_limit bytes is accepted and reaches the upstream whole', async () => {
  const base = JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: '' }] });
  const body = JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'y'.repeat(65_536 - Buffer.byteLength(base)) }] });
  assert.equal(Buffer.byteLength(body), 65_536);
  const requests = upstream.requests.length;
  const res = await post(CHAT, body);
  assert.equal(res.status, 200);
  await res.arrayBuffer();
  assert.equal(upstream.requests.length, requests + 1);
  assert.equal(upstream.requests[requests]?.raw.length, 65_536);
});

test('a body sent in pieces reaches the upstream byte for byte, with its length (not chunked)', async () => {
  // Sent chunked in 12 pieces with pauses, so the gateway gets it in several reads (held as
  // core/formats/body-bytes.ts says; a body this small is joined once, to be sent).
  const text = JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'é"\\ '.repeat(6_000) }] });
  const bytes = Buffer.from(text, 'utf8');
  const pieces = Array.from({ length: 12 }, (_, i) => bytes.subarray(Math.floor((i * bytes.length) / 12), Math.floor(((i + 1) * bytes.length) / 12)));
  let next = 0;
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (next === pieces.length) return controller.close();
      await new Promise((resolve) => setTimeout(resolve, 5));
      controller.enqueue(pieces[next++] as Uint8Array);
    },
  });
  const requests = upstream.requests.length;
  const init = { method: 'POST', headers: { authorization: `Bearer ${TEST_KEY}` }, body: stream, duplex: 'half' } as RequestInit;
  const res = await fetch(`${gw.url}${CHAT}`, init);
  assert.equal(res.status, 200);
  await res.arrayBuffer();
  const got = upstream.requests[requests];
  assert.ok(got !== undefined);
  assert.ok(got.raw.equals(bytes), 'the upstream got the client\'s bytes');
  assert.equal(got.headers['content-length'], String(bytes.length));
  assert.equal(got.headers['transfer-encoding'], undefined);
});

test('the key is checked before the body: a bad key with a bad body gets 401, a good key gets the 400', async () => {
  const before = upstream.requests.length;
  const bad = await fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: { authorization: 'Bearer sk-nope-0000000000000000' }, body: '{not json' });
  assert.equal(bad.status, 401);
  assert.equal(((await bad.json()) as { error: { code: string } }).error.code, 'invalid_api_key');
  const none = await fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', body: '{"messages":"x"}' });
  assert.equal(none.status, 401);
  const good = await fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${TEST_KEY}` }, body: '{not json' });
  assert.equal(good.status, 400);
  assert.equal(((await good.json()) as { error: { code: string } }).error.code, 'invalid_json');
  assert.equal(upstream.requests.length, before);
});
