// schemas/console/ against the running console API: every /console/api route of the registry has a request and a
// response schema; each is called over HTTP (as the operator and as an account's user, after real chat requests so
// usage, ledger and dashboard have data) and every 2xx answer is checked against its route's response schema, every
// error against the error schema; bodies and queries with a misspelled field are refused (400 naming it) and change
// nothing, and an account's user is still refused the operator's routes (403), whatever the body.

import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { findSchemaDir } from '../../core/config/schema-dir.js';
import { routeKeyOf } from '../../core/endpoints/registry.js';
import { BUILTIN_ENDPOINTS } from '../../features/index.js';
import { consoleSchemaName } from '../../core/endpoints/route-groups.js';
import { postChat } from '../helpers/chat-requests.js';
import { creditAccount } from '../helpers/console-session.js';
import { FakeOpenAI } from '../helpers/fake-openai.js';
import { schemaFolders } from '../../core/config/schema-files.js';
import { until } from '../helpers/poll.js';
import { startGatewayUnderTest, type GatewayUnderTest } from '../helpers/gateway-under-test.js';

const ROOT = join(findSchemaDir(), '..');
/** Core's console schemas and the features' (schema-files.ts): each file by its name, with its path. */
const FILES: ReadonlyMap<string, string> = new Map(schemaFolders('console', ROOT).flatMap((dir) => readdirSync(dir).map((file) => [file, join(dir, file)] as const)));
const ID_BASE = 'https://llm-gateway.dev/';
const idOf = (file: string): string => `${ID_BASE}${relative(ROOT, FILES.get(file) ?? file).split(sep).join('/')}`;
const API_ENDPOINTS = BUILTIN_ENDPOINTS.all.filter((e) => e.path.startsWith('/console/api/'));
const ADMIN = 'console-schemas-admin-token-0123456789';
const BOT_KEY = 'sk-bot-console-schemas-0123456789';

/** Every schema of the folder in one ajv, as strict as the plugin's, with the formats the answers use. */
function loadSchemas(): Ajv {
  const ajv = new Ajv({ allErrors: true, strict: true, strictRequired: false, allowUnionTypes: true });
  addFormats.default(ajv);
  for (const path of FILES.values()) ajv.addSchema(JSON.parse(readFileSync(path, 'utf8')) as object);
  return ajv;
}

function validatorOf(ajv: Ajv, file: string): ValidateFunction {
  const validate = ajv.getSchema(idOf(file));
  assert.ok(validate !== undefined, `no schema ${file}`);
  return validate;
}

describe('schemas/console: one request and one response schema per /console/api route', () => {
  it('has both files for every /console/api entry of the registry (a new route without them fails here)', () => {
    assert.ok(API_ENDPOINTS.length >= 21, 'the registry still lists the console API');
    const missing = API_ENDPOINTS.flatMap((e) => {
      const name = consoleSchemaName(e.method, e.path);
      return [`${name}.request.schema.json`, `${name}.response.schema.json`].filter((file) => !FILES.has(file)).map((file) => `${routeKeyOf(e)}: ${file}`);
    });
    assert.deepEqual(missing, []);
  });

  it('every file compiles strictly, is named by its $id, and each route schema belongs to a route of the registry', () => {
    const ajv = loadSchemas();
    const names = new Set(API_ENDPOINTS.map((e) => consoleSchemaName(e.method, e.path)));
    assert.equal(FILES.size, [...schemaFolders('console', ROOT)].reduce((n, dir) => n + readdirSync(dir).length, 0), 'a file name is unique across the folders');
    for (const [file, path] of FILES) {
      assert.equal((JSON.parse(readFileSync(path, 'utf8')) as { $id?: string }).$id, idOf(file));
      validatorOf(ajv, file);
      const route = /^(.+)\.(request|response)\.schema\.json$/.exec(file)?.[1];
      if (route !== undefined && file !== 'error.response.schema.json') assert.ok(names.has(route), `${file} names no route`);
    }
  });
});

interface Answer {
  readonly status: number;
  readonly json: Record<string, unknown>;
  readonly text: string;
  readonly headers: Headers;
}

interface Session {
  readonly cookie: string;
  readonly csrf: string;
}

describe('console API answers match schemas/console', () => {
  const upstream = new FakeOpenAI('up');
  const flaky = new FakeOpenAI('flaky');
  const ajv = loadSchemas();
  /** The route keys that answered 2xx, each checked against its response schema. */
  const answered = new Set<string>();
  const sessions: Record<string, Session> = {};
  let gw: GatewayUnderTest;

  /** Checks the answer against its route's schema: the response's for a 2xx, else the error's. */
  function checkShape(method: string, path: string, answer: Answer): void {
    const found = BUILTIN_ENDPOINTS.match(method, path.split('?')[0] ?? path);
    assert.ok(found !== undefined, `${method} ${path} is no registry route`);
    const ok = answer.status >= 200 && answer.status < 300;
    const file = ok ? `${consoleSchemaName(found.endpoint.method, found.endpoint.path)}.response.schema.json` : 'error.response.schema.json';
    const validate = validatorOf(ajv, file);
    // A file (the usage CSV, a video) is checked as the text of its body.
    const data: unknown = ok && answer.headers.get('content-type')?.startsWith('application/json') !== true ? answer.text : answer.json;
    if (!validate(data)) assert.fail(`${method} ${path} (${answer.status}) does not match ${file}: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(validate.errors, null, 1)}\n${answer.text.slice(0, 2000)}`);
    if (ok) answered.add(found.key);
  }

  async function call(who: string | null, method: string, path: string, body?: unknown): Promise<Answer> {
    const session = who === null ? undefined : sessions[who];
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (session !== undefined) Object.assign(headers, { cookie: session.cookie, 'x-csrf-token': session.csrf });
    const res = await fetch(`${gw.url}${path}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    const text = await res.text();
    const json = res.headers.get('content-type')?.startsWith('application/json') === true ? (JSON.parse(text) as Record<string, unknown>) : {};
    const answer = { status: res.status, json, text, headers: res.headers };
    checkShape(method, path, answer);
    return answer;
  }

  async function signIn(who: string, body: Record<string, unknown>): Promise<void> {
    const signed = await call(null, 'POST', '/console/api/session', body);
    assert.equal(signed.status, 200, signed.text);
    sessions[who] = { cookie: (signed.headers.get('set-cookie') ?? '').split(';')[0] ?? '', csrf: String(signed.json['csrf']) };
  }

  const errorOf = (a: Answer): { param: string | null; code: string | null; message: string } => a.json['error'] as { param: string | null; code: string | null; message: string };
  const dataOf = (a: Answer): Record<string, unknown>[] => a.json['data'] as Record<string, unknown>[];

  before(async () => {
    await upstream.start();
    await flaky.start();
    flaky.reply = () => ({ kind: 'status', status: 503 });
    gw = await startGatewayUnderTest(
      `server: { port: 0, host: 127.0.0.1, admin_token: ${ADMIN} }
store: { url: "sqlite:./gateway.db" }
pricing:
  models:
    "gpt-*": { input: 2.50, output: 10.00, cache_read: 1.25 }
    "demo-*": { output: 2.00 }
groups:
  pro: { models: ["*"], limits: { rpm: 100, concurrency: 10 } }
  free: { models: ["gpt-4o"] }
accounts: [{ name: acme, groups: [pro] }]
keys:
  - { name: bot, key: ${BOT_KEY}, group: pro }
channels:
  - { name: up, type: openai, base_url: "${upstream.url}", keys: [sk-up-0000000000], models: ["gpt-4o"], models_refresh_ms: 0 }
  - { name: flaky, type: openai, base_url: "${flaky.url}", keys: [sk-flaky-00000000], models: ["gpt-flaky"], models_refresh_ms: 0, cooldown_ms: 60000 }
  - { name: library, type: mock, assets: true, models: ["demo-*"] }
`,
      { resolveHost: async () => ['93.184.215.14'] },
    );
  });
  after(async () => {
    await gw.stop();
    await upstream.close();
    await flaky.close();
  });

  let adaKeyId = '';
  let adaKey = '';

  it('signing in, making an account\'s user and setting its password', async () => {
    await signIn('operator', { admin_token: ADMIN });
    assert.equal((await call('operator', 'GET', '/console/api/session')).status, 200);
    const made = await call('operator', 'POST', '/console/api/accounts/acme/users', { name: 'ada' });
    assert.equal(made.status, 201, made.text);
    const token = String(made.json['link']).split('/').pop() ?? '';
    assert.equal((await call(null, 'POST', '/console/api/password', { token, password: 'ada has a long password' })).status, 200);
    await signIn('ada', { name: 'ada', password: 'ada has a long password' });
    const session = await call('ada', 'GET', '/console/api/session');
    assert.deepEqual((session.json['groups'] as { name: string }[]).map((g) => g.name), ['pro']);
  });

  it('the operator\'s accounts: create, credit (and its repeat), disable and enable, list', async () => {
    const initech = await call('operator', 'POST', '/console/api/accounts', { name: 'initech', description: 'Initech', groups: ['free'] });
    assert.deepEqual([initech.status, initech.json['groups']], [201, ['free']]);
    assert.equal((await call('operator', 'POST', '/console/api/accounts', { name: 'hooli' })).status, 201);
    const credit = { amount: '5.00', note: 'welcome', idempotency_key: 'acme-1' };
    assert.equal((await call('operator', 'POST', '/console/api/accounts/acme/credit', credit)).status, 201);
    const again = await call('operator', 'POST', '/console/api/accounts/acme/credit', credit);
    assert.deepEqual([again.status, again.json['applied']], [200, false]);
    await creditAccount(gw.url, ADMIN, 'initech', '1.5');
    assert.equal((await call('operator', 'PATCH', '/console/api/accounts/initech', { disabled: true })).json['disabled'], true);
    const enabled = await call('operator', 'PATCH', '/console/api/accounts/initech', { disabled: false, groups: ['pro', 'free'] });
    assert.deepEqual([enabled.json['disabled'], enabled.json['groups']], [false, ['pro', 'free']]);
    const listed = dataOf(await call('operator', 'GET', '/console/api/accounts'));
    assert.deepEqual(listed.map((a) => a['name']).sort(), ['acme', 'hooli', 'initech']);
  });

  it('keys with every setting and with none: created (the secret once), listed, edited', async () => {
    const made = await call('ada', 'POST', '/console/api/keys', {
      name: 'ada-laptop',
      group: 'pro',
      max_spend: '2.5',
      expires_at: '2099-01-31',
      models: ['gpt-4o', 'gpt-flaky'],
      limits: { rpm: 50, concurrency: 2 },
    });
    assert.equal(made.status, 201, made.text);
    adaKeyId = String(made.json['id']);
    adaKey = String(made.json['key']);
    const bare = await call('operator', 'POST', '/console/api/keys', { name: 'ops-ci', group: 'free', ips: ['203.0.113.0/24'] });
    assert.equal(bare.status, 201, bare.text);
    for (const absent of ['account', 'max_spend', 'limits']) assert.ok(!(absent in bare.json), `${absent} is absent from an unmetered key without it`);
    assert.equal(dataOf(await call('ada', 'GET', '/console/api/keys')).length, 1);
    // The operator's list also shows the key declared in gateway.yaml (bot), read-only.
    const all = dataOf(await call('operator', 'GET', '/console/api/keys'));
    assert.deepEqual(all.map((k) => [k['name'], k['declared']]), [['ada-laptop', false], ['ops-ci', false], ['bot', true]]);
    assert.equal(dataOf(await call('operator', 'GET', '/console/api/keys?account=acme')).length, 1);
    const edited = await call('ada', 'PATCH', `/console/api/keys/${adaKeyId}`, { name: 'ada-desk', limits: { rpm: 40, concurrency: null }, enabled: true });
    assert.deepEqual([edited.status, edited.json['limits']], [200, { rpm: 40 }]);
    const cleared = await call('operator', 'PATCH', `/console/api/keys/${String(bare.json['id'])}`, { ips: null, expires_at: '2098-01-01T00:00:00Z' });
    assert.equal(cleared.json['ips'], null);
  });

  it('usage, CSV, ledger and dashboard, as the user and the operator, after real requests', async () => {
    for (let i = 0; i < 3; i++) assert.equal((await postChat(gw.url, { model: 'gpt-4o', messages: [{ role: 'user', content: `hi ${i}` }] }, { key: adaKey })).status, 200);
    assert.equal((await postChat(gw.url, { model: 'gpt-flaky', messages: [{ role: 'user', content: 'fails' }] }, { key: adaKey })).status, 503);
    assert.equal((await postChat(gw.url, { model: 'gpt-4o', messages: [{ role: 'user', content: 'unmetered' }] }, { key: BOT_KEY })).status, 200);
    await gw.usage();
    const mine = await call('ada', 'GET', '/console/api/usage');
    assert.equal(dataOf(mine).length, 4);
    const first = await call('operator', 'GET', '/console/api/usage?limit=1&status=all');
    assert.notEqual(first.json['next_cursor'], null);
    const next = await call('operator', 'GET', `/console/api/usage?limit=200&cursor=${String(first.json['next_cursor'])}`);
    assert.equal(dataOf(next).length, 4);
    assert.ok([...dataOf(first), ...dataOf(next)].some((r) => r['account'] === null && r['cost'] !== null), 'the unmetered request is recorded');
    assert.equal((await call('ada', 'GET', '/console/api/usage?status=error&model=gpt-flaky')).json['next_cursor'], null);
    const csv = await call('ada', 'GET', '/console/api/usage.csv?status=ok');
    assert.equal(csv.text.trimEnd().split('\r\n').length, 4);
    const ledger = await call('ada', 'GET', '/console/api/ledger');
    assert.deepEqual(dataOf(ledger).map((e) => e['kind']).slice(-1), ['credit']);
    const paged = await call('operator', 'GET', '/console/api/ledger?account=acme&limit=1');
    const rest = await call('operator', 'GET', `/console/api/ledger?account=acme&cursor=${String(paged.json['next_cursor'])}`);
    assert.equal(dataOf(rest).length, dataOf(ledger).length - 1);
    assert.notEqual((await call('ada', 'GET', '/console/api/dashboard')).json['balance'], null);
    const all = await call('operator', 'GET', '/console/api/dashboard?bucket=day');
    assert.deepEqual([all.json['account'], all.json['balance']], [null, null]);
    const byKey = (all.json['by_key'] as { key_id: string }[]).map((k) => k.key_id).sort();
    assert.deepEqual(byKey, [adaKeyId, 'config:bot'].sort());
    assert.equal((await call('operator', 'GET', '/console/api/dashboard?account=acme&from=2026-01-01&to=2026-01-03')).status, 200);
    // A request's detail (features/requests), every request of the log; a charge's requests; the price list (features/prices).
    for (const row of dataOf(mine)) assert.equal((await call('ada', 'GET', `/console/api/requests/${String(row['request_id'])}`)).status, 200);
    const charge = dataOf(ledger).find((e) => e['kind'] === 'charge');
    assert.ok(charge !== undefined, 'a charge in the ledger');
    assert.ok(dataOf(await call('ada', 'GET', `/console/api/ledger/${String(charge['id'])}/requests`)).length >= 1);
    assert.equal((await call('operator', 'GET', `/console/api/ledger/${String(charge['id'])}/requests?account=acme&limit=1`)).status, 200);
    assert.equal((await call('ada', 'GET', '/console/api/prices')).status, 200);
    assert.equal((await call('operator', 'GET', '/console/api/prices')).status, 200);
  });

  it('the operator\'s channels, instances, running config and a reload', async () => {
    const channels = dataOf(await call('operator', 'GET', '/console/api/channels'));
    assert.equal(channels.find((c) => c['name'] === 'flaky')?.['cooling'], true);
    assert.equal(dataOf(await call('operator', 'GET', '/console/api/instances')).length, 1);
    assert.equal((await call('operator', 'GET', '/console/api/config')).json['path'], gw.configPath);
    assert.equal((await call('operator', 'POST', '/console/api/config/reload', {})).json['reloaded'], true);
  });

  it('errors are in the error shape: signed out, no CSRF token, the operator\'s route for a user, a handler\'s 400, a failed sign-in', async () => {
    assert.equal(errorOf(await call(null, 'GET', '/console/api/keys')).code, 'not_signed_in');
    const noCsrf = await fetch(`${gw.url}/console/api/config/reload`, { method: 'POST', headers: { cookie: sessions['operator']?.cookie ?? '', 'content-type': 'application/json' }, body: '{}' });
    const text = await noCsrf.text();
    checkShape('POST', '/console/api/config/reload', { status: noCsrf.status, text, json: JSON.parse(text) as Record<string, unknown>, headers: noCsrf.headers });
    assert.equal(noCsrf.status, 403);
    assert.equal((await call('ada', 'GET', '/console/api/channels')).status, 403);
    assert.equal(errorOf(await call('operator', 'GET', '/console/api/ledger')).param, 'account');
    assert.equal(errorOf(await call('ada', 'GET', '/console/api/usage?limit=500')).param, 'limit');
    assert.equal(errorOf(await call(null, 'POST', '/console/api/session', { name: 'ada', password: 'not the password' })).code, 'sign_in_failed');
  });

  it('a misspelled field of a body or a query is refused with a 400 naming it, and changes nothing', async () => {
    const keysBefore = dataOf(await call('operator', 'GET', '/console/api/keys'));
    const misspelled = await call('ada', 'POST', '/console/api/keys', { nmae: 'ada-typo', group: 'pro' });
    assert.deepEqual([misspelled.status, errorOf(misspelled).param, errorOf(misspelled).code], [400, 'nmae', 'invalid_value']);
    assert.match(errorOf(misspelled).message, /^Unknown field "nmae": the fields are name, group, /);
    const nested = await call('ada', 'PATCH', `/console/api/keys/${adaKeyId}`, { enabled: false, limits: { rpn: 5 } });
    assert.deepEqual([nested.status, errorOf(nested).param], [400, 'limits.rpn']);
    assert.deepEqual(dataOf(await call('operator', 'GET', '/console/api/keys')), keysBefore, 'no key made, none edited');
    const balance = (): Promise<unknown> => call('operator', 'GET', '/console/api/accounts').then((a) => dataOf(a).find((x) => x['name'] === 'acme')?.['balance']);
    const was = await balance();
    const credit = await call('operator', 'POST', '/console/api/accounts/acme/credit', { amount: '1', idempotency_key: 'typo-1', nte: 'x' });
    assert.deepEqual([credit.status, errorOf(credit).param], [400, 'nte']);
    assert.equal(await balance(), was, 'nothing credited');

    const query = await call('ada', 'GET', '/console/api/usage?limt=5');
    assert.deepEqual([query.status, errorOf(query).param], [400, 'limt']);
    assert.match(errorOf(query).message, /^Unknown query parameter "limt": the query parameters are from, to, /);
    assert.deepEqual(errorOf(await call('operator', 'GET', '/console/api/dashboard?acount=acme')).param, 'acount');
    assert.match(errorOf(await call('ada', 'GET', '/console/api/usage?model=a&model=b')).message, /^model must be given once\.$/);
    assert.equal(errorOf(await call('ada', 'GET', '/console/api/usage.csv?cursor=1-1')).param, 'cursor', 'the CSV has no pages');
    assert.equal(errorOf(await call(null, 'POST', '/console/api/session', { nmae: 'ada', password: 'ada has a long password' })).param, 'nmae');

    // Who asks is decided first: an account's user is refused the operator's routes (403), a stranger a 401.
    assert.equal((await call('ada', 'POST', '/console/api/accounts', { nmae: 'x' })).status, 403);
    assert.equal((await call('ada', 'GET', '/console/api/accounts?acount=x')).status, 403);
    assert.equal((await call(null, 'POST', '/console/api/keys', { nmae: 'x' })).status, 401);
  });

  it('asset groups: listed as the user and the operator (with their assets), and rebound by the operator', async () => {
    const asset = (key: string, action: string, body: Record<string, unknown>): Promise<Response> =>
      fetch(`${gw.url}/v1/videogen/asset/${action}`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const groupOf = async (key: string, name: string): Promise<string> => {
      const made = (await (await asset(key, 'CreateAssetGroup', { Name: name })).json()) as { Result: { Id: string } };
      const id = made.Result.Id;
      assert.equal((await asset(key, 'CreateAsset', { GroupId: id, URL: 'https://example.com/cat.png', AssetType: 'Image' })).status, 200);
      return id;
    };
    await groupOf(adaKey, 'ada-cats');
    const botGroup = await groupOf(BOT_KEY, 'bot-dogs');
    assert.deepEqual(dataOf(await call('ada', 'GET', '/console/api/asset-groups?account=')).map((g) => g['name']), ['ada-cats']);
    assert.equal((await call('operator', 'GET', '/console/api/asset-groups')).json['total'], 2);
    assert.equal(dataOf(await call('operator', 'GET', '/console/api/asset-groups?account=acme&offset=0')).length, 1);
    const bound = await call('operator', 'POST', `/console/api/asset-groups/${botGroup}/bind`, { key: 'config:bot' });
    assert.deepEqual([bound.status, bound.json['key']], [200, { id: 'config:bot', name: 'bot' }]);
    const misspelled = await call('operator', 'POST', `/console/api/asset-groups/${botGroup}/bind`, { kye: 'bot' });
    assert.deepEqual([misspelled.status, errorOf(misspelled).param], [400, 'kye']);
    assert.equal((await call('ada', 'POST', `/console/api/asset-groups/${botGroup}/bind`, { key: 'bot' })).status, 403);
  });

  it('video tasks: listed as the user and the operator, a succeeded one downloaded', async () => {
    const key = await call('ada', 'POST', '/console/api/keys', { name: 'ada-video', group: 'pro' });
    assert.equal(key.status, 201, key.text);
    const made = await fetch(`${gw.url}/v1/videos`, {
      method: 'POST',
      headers: { authorization: `Bearer ${String(key.json['key'])}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'demo-video', prompt: 'a cat on a skateboard', seconds: '5', size: '1280x720' }),
    });
    const id = String(((await made.json()) as { id: string }).id);
    // The mock's task ends 3 s after it was made; a read of it refreshes it from the mock.
    await until('the mock task completed', async () => {
      const read = await fetch(`${gw.url}/v1/videos/${id}`, { headers: { authorization: `Bearer ${String(key.json['key'])}` } });
      return ((await read.json()) as { status: string }).status === 'completed' ? true : undefined;
    }, { timeoutMs: 10_000, intervalMs: 200 });
    const mine = dataOf(await call('ada', 'GET', '/console/api/videos?account=other'));
    assert.deepEqual(mine.map((t) => [t['id'], t['status'], t['download']]), [[id, 'succeeded', `/console/api/videos/${id}/content`]]);
    assert.notEqual(mine[0]?.['cost'], '0');
    assert.equal(dataOf(await call('operator', 'GET', `/console/api/videos?account=acme&offset=0&key=${String(key.json['id'])}`)).length, 1);
    assert.equal(errorOf(await call('operator', 'GET', '/console/api/videos')).param, 'account');
    const file = await call('ada', 'GET', `/console/api/videos/${id}/content`);
    assert.deepEqual([file.status, file.headers.get('content-type')], [200, 'video/mp4']);
    assert.equal((await call('ada', 'GET', '/console/api/videos/video_nope/content')).status, 404);
  });

  it('users and sessions: the operator lists and disables an account\'s user; a user lists, ends a session and changes the password', async () => {
    assert.deepEqual(dataOf(await call('operator', 'GET', '/console/api/accounts/acme/users')).map((u) => u['name']), ['ada']);
    await signIn('ada-phone', { name: 'ada', password: 'ada has a long password' });
    const mine = dataOf(await call('ada', 'GET', '/console/api/sessions'));
    const phone = mine.find((s) => s['current'] !== true && typeof s['id'] === 'string');
    assert.equal((await call('ada', 'DELETE', `/console/api/sessions/${String(phone?.['id'])}`)).json['ended'], true);
    const changed = await call('ada', 'POST', '/console/api/password/change', { current_password: 'ada has a long password', password: 'ada has a new password' });
    assert.equal(changed.status, 200, changed.text);
    const made = await call('operator', 'POST', '/console/api/accounts/acme/users', { name: 'bea' });
    assert.equal(made.status, 201);
    const off = await call('operator', 'PATCH', '/console/api/accounts/acme/users/bea', { disabled: true });
    assert.deepEqual([off.json['disabled'], off.json['password_set']], [true, false]);
    assert.equal((await call('operator', 'PATCH', '/console/api/accounts/acme/users/bea', { disabld: true })).status, 400);
  });

  it('top-up codes made, listed, exported, disabled and redeemed; an account debited and adjusted', async () => {
    const made = await call('operator', 'POST', '/console/api/topup/batches', { amount: '1.5', count: 2, expires_at: '2099-01-01', note: 'schemas', idempotency_key: 'schemas-1' });
    assert.equal(made.status, 201, made.text);
    const batch = String((made.json['batch'] as { id: string }).id);
    const [first, second] = made.json['codes'] as { id: string; code: string }[];
    assert.equal(dataOf(await call('operator', 'GET', '/console/api/topup/batches?offset=0')).length, 1);
    assert.equal((await call('operator', 'PATCH', `/console/api/topup/batches/${batch}`, { disabled: true })).json['status'], 'disabled');
    assert.equal((await call('operator', 'PATCH', `/console/api/topup/batches/${batch}`, { disabled: false })).json['status'], 'active');
    const redeemed = await call('ada', 'POST', '/console/api/topup/redeem', { code: first?.code });
    assert.equal(redeemed.status, 200, redeemed.text);
    assert.equal(dataOf(await call('operator', 'GET', `/console/api/topup/codes?batch=${batch}&status=redeemed&account=acme&offset=0`)).length, 1);
    assert.equal((await call('operator', 'GET', `/console/api/topup/codes.csv?batch=${batch}&status=&account=`)).text.split('\r\n').length, 4);
    assert.equal((await call('operator', 'PATCH', `/console/api/topup/codes/${second?.id ?? ''}`, { disabled: true })).json['status'], 'disabled');
    assert.equal((await call('ada', 'POST', '/console/api/topup/redeem', { code: second?.code })).status, 410);
    assert.equal((await call('ada', 'GET', '/console/api/topup/codes')).status, 403);
    const debit = await call('operator', 'POST', '/console/api/accounts/acme/debit', { amount: '0.5', note: 'schemas', idempotency_key: 'schemas-debit' });
    assert.equal(debit.status, 201, debit.text);
    const adjust = await call('operator', 'POST', '/console/api/accounts/acme/adjust', { amount: '-0.25', note: 'schemas', idempotency_key: 'schemas-adjust' });
    assert.equal(adjust.status, 201, adjust.text);
  });

  it('a channel overridden and cleared, and put back in rotation (features/channel-control)', async () => {
    assert.equal((await call('operator', 'PATCH', '/console/api/channel-control/up', { disabled: false, weight: 3 })).status, 200);
    assert.ok(dataOf(await call('operator', 'GET', '/console/api/channel-control')).length >= 2);
    assert.equal((await call('operator', 'DELETE', '/console/api/channel-control/up')).status, 200);
    assert.equal((await call('operator', 'POST', '/console/api/channel-control/up/rotation/reset', {})).status, 200);
  });

  it('a key revoked and a session ended', async () => {
    const revoked = await call('ada', 'DELETE', `/console/api/keys/${adaKeyId}`);
    assert.equal(revoked.json['status'], 'revoked');
    assert.equal((await call('ada', 'DELETE', '/console/api/session')).status, 200);
    assert.equal((await call('ada', 'GET', '/console/api/session')).status, 401);
  });

  it('every /console/api route of the registry answered 2xx and matched its response schema', () => {
    assert.deepEqual(API_ENDPOINTS.map(routeKeyOf).filter((key) => !answered.has(key)), []);
  });
});
