// Secrets never leak (issue 28): recognizable client, upstream, admin, Ark and AK/SK secrets go through every error
// path there is (a wrong key, in a header or in the query string; an upstream that echoes its key in 400, 401 and
// 500 answers; a wrong admin token; an asset library and a video upstream whose refusals name the operator's
// credentials; a webhook's secret and its URL's token in the config), then the logs, /metrics, every answer (bodies and headers), the console's pages and the usage records
// are scanned for them: none is found.

import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, test } from 'node:test';
import pino from 'pino';
import { FakeOpenAI } from '../helpers/fake-openai.js';
import { consoleSignIn } from '../helpers/console-session.js';
import { AK, SK } from '../helpers/asset-gateway.js';
import { ADMIN, ALICE, SEEDANCE, startVideoGateway, startVideoPlanes, type VideoGateway, type VideoPlanes } from '../helpers/video-gateway.js';

const UPSTREAM_KEY = 'sk-upstreamsecret-Qz7w0123456789abcdef';
const WRONG_CLIENT_KEY = 'sk-wrongclientsecret-0123456789abcd';
const WRONG_ADMIN = 'wrong-admin-secret-token-0123456789';
/** A webhook's signing secret, and a token its receiver takes in its URL. */
const WEBHOOK_SECRET = 'webhook-signing-secret-0123456789';
const WEBHOOK_URL_TOKEN = 'webhook-url-token-0123456789abcd';
/** A token in a hook URL's path, as Slack's and Discord's hooks carry theirs. */
const WEBHOOK_PATH_TOKEN = 'T0123456789ABCDEFGHIJ';

let openai: FakeOpenAI;
let planes: VideoPlanes;
let v: VideoGateway;
let logs = '';
const seen: string[] = [];

before(async () => {
  openai = await new FakeOpenAI('echo').start();
  openai.reply = (req) => {
    const echo = `key ${UPSTREAM_KEY} (Authorization: Bearer ${UPSTREAM_KEY})`;
    const status = req.body['model'] === 'gpt-401' ? 401 : req.body['model'] === 'gpt-500' ? 500 : 400;
    return { kind: 'status', status, body: { error: { message: `Refused ${echo}`, type: 'invalid_request_error', param: null, code: 'refused' } } };
  };
  planes = await startVideoPlanes();
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logs += chunk.toString();
      done();
    },
  });
  v = await startVideoGateway(planes, {
    logger: pino({ level: 'debug' }, sink),
    extra: `  - name: echo
    type: openai
    base_url: ${openai.url}
    keys: ["${UPSTREAM_KEY}"]
    models: ["gpt-*"]
    cooldown_ms: 0
log:
  access: true
webhooks:
  - { url: "http://127.0.0.1:9/hooks/${WEBHOOK_PATH_TOKEN}?token=${WEBHOOK_URL_TOKEN}", events: [video_failed, balance_low], secret: "${WEBHOOK_SECRET}", allow_private: true }
`,
  });
});

after(async () => {
  await v.stop();
  await planes.close();
  await openai.close();
});

/** Every answer kept whole, headers included, for the scan. */
async function call(url: string, init: RequestInit): Promise<number> {
  const response = await fetch(url, init);
  seen.push(`${response.status} ${JSON.stringify([...response.headers])} ${await response.text()}`);
  return response.status;
}

test('every error path with a secret in play, then no secret anywhere', async () => {
  const url = v.gw.url;
  const json = (key: string, body: unknown): RequestInit => ({ method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  // A wrong client key, on every kind of route.
  assert.equal(await call(`${url}/v1/chat/completions`, json(WRONG_CLIENT_KEY, { model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] })), 401);
  assert.equal(await call(`${url}/v1/videos`, json(WRONG_CLIENT_KEY, { model: SEEDANCE, prompt: 'x' })), 401);
  assert.equal(await call(`${url}/v1/videogen/asset/ListAssetGroups`, json(WRONG_CLIENT_KEY, {})), 401);
  // An upstream that echoes its key in a 400, a 401 and a 500.
  for (const model of ['gpt-400', 'gpt-401', 'gpt-500']) assert.ok((await call(`${url}/v1/chat/completions`, json(ALICE, { model, messages: [{ role: 'user', content: 'hi' }] }))) >= 400);
  assert.ok((await call(`${url}/v1/messages`, { method: 'POST', headers: { 'x-api-key': ALICE, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' }, body: JSON.stringify({ model: 'gpt-400', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] }) })) >= 400);
  // A key in the query string (Google's `?key=`): the wrong one, and the right one on a model whose upstream refuses.
  const gemini = (key: string, model: string): Promise<number> =>
    call(`${url}/v1beta/models/${model}:generateContent?key=${key}&alt=json`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ contents: [{ parts: [{ text: 'hi' }] }] }) });
  assert.equal(await gemini(WRONG_CLIENT_KEY, 'gpt-400'), 401);
  assert.ok((await gemini(ALICE, 'gpt-400')) >= 400);
  // The admin API with a wrong token, then the right one (its answers carry no secrets either).
  assert.equal(await call(`${url}/admin/keys`, { headers: { authorization: `Bearer ${WRONG_ADMIN}` } }), 401);
  assert.equal(await call(`${url}/admin/keys`, { headers: { authorization: `Bearer ${ADMIN}` } }), 200);
  // The asset library refusing with the operator's AK and project in its words.
  planes.control.failNext('CreateAssetGroup', 403, 'AccessDenied', `User ${AK} of project proj-ark may not; SK ${SK}`);
  assert.ok((await call(`${url}/v1/videogen/asset/CreateAssetGroup`, json(ALICE, { Name: 'g' }))) >= 400);
  // Ark refusing a task with its key in the message.
  planes.ark.failNext(400, { error: { code: 'InvalidParameter', message: `bad request with key ${planes.ark.keys[0]}`, param: 'content', type: 'BadRequest' } });
  assert.equal(await call(`${url}/v1/videos`, json(ALICE, { model: SEEDANCE, prompt: 'x' })), 400);
  // A 401 is the channel's key refused: the next channel is tried, and refuses too.
  for (const ark of [planes.ark, planes.arkTwo]) ark.failNext(401, { error: { code: 'AuthenticationError', message: `the API key ${ark.keys[0]} is invalid`, type: 'Unauthorized' } });
  assert.equal(await call(`${url}/v1/video/generations`, json(ALICE, { model: SEEDANCE, prompt: 'x' })), 502);

  // The console, signed in as the operator: the config, the channels, the usage log.
  const session = await consoleSignIn(url, { admin_token: ADMIN });
  for (const page of ['/console/api/config', '/console/api/channels', '/console/api/usage', '/console/api/keys', '/console/api/asset-groups?account=acme', '/console/api/videos?account=acme']) {
    assert.equal(await call(`${url}${page}`, { headers: { cookie: session.cookie } }), 200, page);
  }
  const metrics = await fetch(`${url}/metrics`);
  const metricsText = await metrics.text();
  const records = JSON.stringify(await v.gw.usage(), (_key, value: unknown) => (typeof value === 'bigint' ? value.toString() : value));

  const secrets = { UPSTREAM_KEY, WRONG_CLIENT_KEY, ALICE, WRONG_ADMIN, ADMIN, AK, SK, ARK_KEY: planes.ark.keys[0] as string, ARK_KEY_TWO: planes.arkTwo.keys[0] as string, WEBHOOK_SECRET, WEBHOOK_URL_TOKEN, WEBHOOK_PATH_TOKEN };
  const places = { logs, metrics: metricsText, answers: seen.join('\n'), records };
  const found: string[] = [];
  for (const [secretName, secret] of Object.entries(secrets)) {
    for (const [placeName, text] of Object.entries(places)) if (text.includes(secret)) found.push(`${secretName} in ${placeName}`);
  }
  assert.deepEqual(found, []);
  // The scan looked at something: the logs hold the failed requests, the records their codes.
  assert.equal(seen.length, 20);
  assert.match(logs, /GW_ERR_AUTH_INVALID_KEY/);
  assert.match(logs, /GW_ERR_UPSTREAM/);
  assert.match(records, /GW_ERR_UPSTREAM/);
  assert.match(metricsText, /gateway_requests_total/);
  // The config page showed the webhook, its secret and its URL's token replaced.
  assert.match(seen.join('\n'), /webhooks.*http:\/\/127\.0\.0\.1:9\/\*\*\*/s);
});
