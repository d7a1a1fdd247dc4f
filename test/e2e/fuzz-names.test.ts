// Fuzzing the names every route reads, driven by the endpoint registry: each entry's path parameters, the query
// parameters and body fields its `reads` declares, and the model of the APIs that name one, each given NUL, other
// control characters (C0, DEL, C1), lone surrogates and bytes that are not UTF-8. Every case is a 400 in the route's
// own error shape, and changes nothing: no upstream call (fake OpenAI, Anthropic, Ark and Volcengine planes), no row
// of the store but usage records. Run on SQLite and, when GATEWAY_TEST_POSTGRES_URL is set, on PostgreSQL, which
// answered 500 to a NUL on ~20 endpoints (issue 40). A new registry entry is fuzzed without a change here.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import pg from 'pg';
import { ASSET_ACTIONS } from '../../features/assets/library.js';
import { type Endpoint } from '../../core/endpoints/registry.js';
import { BUILTIN_ENDPOINTS } from '../../features/index.js';
import { GatewayError } from '../../core/errors.js';
import { consoleSignIn, type ConsoleSession } from '../helpers/console-session.js';
import { FakeAnthropic } from '../helpers/fake-anthropic.js';
import { FakeOpenAI } from '../helpers/fake-openai.js';
import { storeBackends, type StoreBackend } from '../helpers/test-stores.js';
import { ADMIN, ALICE, SEEDANCE, TEST_KEY, startVideoGateway, startVideoPlanes, type VideoGateway, type VideoPlanes } from '../helpers/video-gateway.js';

/** Bad text as it goes into a URL (percent-encoded) and into a JSON body (raw bytes where it is not UTF-8). */
interface Bad {
  readonly label: string;
  readonly url: string;
  readonly json: string | Buffer;
}

const BAD: readonly Bad[] = [
  { label: 'NUL', url: '%00', json: '\u0000' },
  { label: 'C0 SOH', url: '%01', json: '\u0001' },
  { label: 'line feed', url: '%0A', json: '\n' },
  { label: 'ESC', url: '%1B', json: '\u001b' },
  { label: 'DEL', url: '%7F', json: '\u007f' },
  { label: 'C1 NEL', url: '%C2%85', json: '\u0085' },
  { label: 'lone high surrogate', url: '%ED%A0%80', json: '\ud800' },
  { label: 'lone low surrogate', url: '%ED%B0%80', json: '\udc00' },
  { label: 'byte 0xFF', url: '%FF', json: Buffer.from([0xff]) },
  { label: 'truncated sequence', url: '%E2%82', json: Buffer.from([0xe2, 0x82]) },
];
/** Free text may hold line breaks and tabs: those are no bad text there. */
const BAD_TEXT = BAD.filter((b) => b.label !== 'line feed');
/** Model names that differ from a configured one only by what cannot be seen. */
const DECOYS = ['gpt-4o ', ' gpt-4o', 'gpt-4o/', 'gpt-4o\u200b', '\ufeffgpt-4o', 'gpt\u00a04o', 'gpt-4o\u2060', 'gpt-4o\u00ad'];

/** A valid-looking value for a path parameter, by its name; the asset action is each of the library's. */
const PARAM_SAMPLES: Readonly<Record<string, readonly string[]>> = { action: ASSET_ACTIONS, name: ['acme'], file: ['app.js'] };
/** A valid-looking value for a body field, by its last segment. */
const FIELD_SAMPLES: Readonly<Record<string, unknown>> = {
  amount: '1.00', group: 'pro', account: 'acme', max_spend: '1', 'max_spend.amount': '1', 'max_spend.period': 'day', 'max_spend.timezone': 'UTC', expires_at: '2031-01-31', URL: 'https://example.com/a.png', password: 'correct horse battery',
};
/** The rest of a request of each API (a model and what its schema requires). */
const WIRE_BODIES: Readonly<Record<string, Readonly<Record<string, unknown>>>> = {
  'openai-chat': { model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] },
  'anthropic-messages': { model: 'claude-sonnet-4-5-20250929', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] },
  'openai-responses': { model: 'gpt-4o', input: 'hi' },
  'openai-images': { model: 'gpt-image-1', prompt: 'a cat' },
  video: { model: SEEDANCE, prompt: 'a cat walking' },
  // Gemini's body names no model: its path does (`/v1beta/models/{model}:generateContent`).
  gemini: { contents: [{ role: 'user', parts: [{ text: 'hi' }] }] },
};

interface Case {
  readonly endpoint: Endpoint;
  readonly what: string;
  readonly path: string;
  readonly body: Buffer | null;
}

const label = (e: Endpoint): string => `${e.method} ${e.path}`;

function pathWith(e: Endpoint, values: Readonly<Record<string, string>>): string {
  return e.path.replace(/\{([^}]+)\}/g, (_m, name: string) => values[name] ?? encodeURIComponent(`${PARAM_SAMPLES[name]?.[0] ?? `x-${name}`}`));
}

function hasBody(e: Endpoint): boolean {
  return e.method === 'POST' || e.method === 'PATCH';
}

/** `value` set at `path` (dotted, `*` an array's first item) in a copy of `body`. */
function setAt(body: Record<string, unknown>, path: string, value: unknown): Record<string, unknown> {
  const out = structuredClone(body);
  const steps = path.split('.');
  let holder: Record<string, unknown> | unknown[] = out;
  steps.forEach((step, i) => {
    const last = i === steps.length - 1;
    const key = step === '*' ? 0 : step;
    const next = steps[i + 1];
    // A field read both as a value and as an object (max_spend: an amount, or {amount, period, timezone}) becomes the object.
    const existing = (holder as Record<string, unknown>)[key as string];
    const child = last ? value : typeof existing === 'object' && existing !== null ? existing : next === '*' ? [] : {};
    (holder as Record<string | number, unknown>)[key] = child;
    holder = child as Record<string, unknown>;
  });
  return out;
}

/** The body a route is fuzzed from: its API's request, and for the gateway's own APIs every field it reads. */
function baseBody(e: Endpoint): Record<string, unknown> {
  let body: Record<string, unknown> = { ...(e.wire === undefined ? {} : (WIRE_BODIES[e.wire] ?? {})) };
  if (e.wire === undefined) {
    for (const path of [...(e.reads?.names ?? []), ...(e.reads?.texts ?? [])]) body = setAt(body, path, FIELD_SAMPLES[path.split('.').at(-1) === '*' ? (path.split('.').at(-2) ?? '') : path] ?? `fz-${path.split('.')[0] ?? ''}`);
  }
  return body;
}

const TOKEN = 'BAD-BYTES-HERE';

/** `body` as JSON with `bad` after `sample` at `path` (raw bytes put in where they are not UTF-8). */
function bodyWith(body: Record<string, unknown>, path: string, sample: string, bad: Bad): Buffer {
  if (typeof bad.json === 'string') return Buffer.from(JSON.stringify(setAt(body, path, sample + bad.json)));
  const [head, tail] = JSON.stringify(setAt(body, path, sample + TOKEN)).split(TOKEN) as [string, string];
  return Buffer.concat([Buffer.from(head), bad.json, Buffer.from(tail)]);
}

function casesOf(e: Endpoint): Case[] {
  const out: Case[] = [];
  const params = [...e.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1] as string);
  const bodyOf = (b: Buffer | null): Buffer | null => (hasBody(e) ? (b ?? Buffer.from(JSON.stringify(baseBody(e)))) : null);
  for (const param of params) {
    for (const sample of PARAM_SAMPLES[param] ?? [`x-${param}`]) {
      for (const bad of BAD) out.push({ endpoint: e, what: `path {${param}} ${bad.label}`, path: pathWith(e, { [param]: encodeURIComponent(sample) + bad.url }), body: bodyOf(null) });
    }
  }
  for (const name of e.reads?.query ?? ['q']) {
    for (const bad of BAD) out.push({ endpoint: e, what: `query ${name} ${bad.label}`, path: `${pathWith(e, {})}?${name}=x${bad.url}`, body: bodyOf(null) });
  }
  if (!hasBody(e)) return out;
  const actions = e.path.includes('{action}') ? ASSET_ACTIONS : [''];
  for (const action of actions) {
    const path = pathWith(e, action === '' ? {} : { action });
    const fields: [string, readonly Bad[]][] = [...(e.reads?.names ?? []).map((f): [string, readonly Bad[]] => [f, BAD]), ...(e.reads?.texts ?? []).map((f): [string, readonly Bad[]] => [f, BAD_TEXT])];
    // The model of an API that names one: in the body, or in the path (Gemini's `{model}`, fuzzed with the path's).
    const bodyModel = e.wire !== undefined && e.wire !== 'volcengine-asset' && !params.includes('model');
    if (bodyModel) fields.push(['model', BAD]);
    for (const [field, bads] of fields) {
      // An asset action's body holds the field alone: each action refuses fields it does not know.
      const base = e.wire === 'volcengine-asset' ? {} : baseBody(e);
      for (const bad of bads) out.push({ endpoint: e, what: `body ${field} ${bad.label}${action === '' ? '' : ` (${action})`}`, path, body: bodyWith(base, field, 'fz', bad) });
    }
    if (bodyModel) {
      for (const decoy of DECOYS) out.push({ endpoint: e, what: `model ${JSON.stringify(decoy)}`, path, body: Buffer.from(JSON.stringify({ ...baseBody(e), model: decoy })) });
    } else if (params.includes('model')) {
      for (const decoy of DECOYS) out.push({ endpoint: e, what: `path model ${JSON.stringify(decoy)}`, path: pathWith(e, { model: encodeURIComponent(decoy) }), body: bodyOf(null) });
    }
  }
  return out;
}

// ---- What changed ----

/** Tables a refused request may change: its usage record (a refusal after auth is recorded), holds, sessions. */
const CHURN = new Set(['usage_records', 'usage_hourly', 'usage_pruned', 'holds', 'kysely_migration', 'kysely_migration_lock', 'console_sessions']);

/** A fingerprint of every row of every other table, read over one connection kept open for the suite. */
interface StoreRows {
  read(): Promise<string>;
  close(): Promise<void>;
}

async function openStoreRows(url: string): Promise<StoreRows> {
  if (url.startsWith('sqlite:')) {
    const db = new Database(url.slice('sqlite:'.length), { readonly: true });
    const tables = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as { name: string }[]).filter((t) => !CHURN.has(t.name));
    const reads = tables.map((t) => db.prepare(`SELECT * FROM "${t.name}" ORDER BY 1`));
    return {
      read: async () => JSON.stringify(reads.map((r) => r.all()), (_k, v: unknown) => (Buffer.isBuffer(v) ? v.toString('hex') : v)),
      close: async () => void db.close(),
    };
  }
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const tables = (await client.query<{ name: string }>('SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() ORDER BY 1')).rows.filter(
    (t) => !CHURN.has(t.name),
  );
  // One round trip: each table's rows as text, hashed.
  const sql = tables.map((t) => `SELECT '${t.name}' AS name, count(*) AS n, md5(coalesce(string_agg(t::text, '|' ORDER BY t::text), '')) AS rows FROM "${t.name}" t`).join(' UNION ALL ');
  return {
    read: async () => JSON.stringify((await client.query(sql)).rows),
    close: () => client.end(),
  };
}

/** The shape of an error answer: its top-level fields and those of its `error` (or its envelope's `Error`). */
function shapeOf(text: string): string {
  const json = JSON.parse(text) as Record<string, unknown>;
  const inner = (json['error'] ?? (json['ResponseMetadata'] as Record<string, unknown> | undefined)?.['Error']) as Record<string, unknown> | undefined;
  return JSON.stringify([Object.keys(json).sort(), Object.keys(inner ?? {}).sort()]);
}

function suite(backend: StoreBackend): void {
  describe(`every name of every route, on ${backend.name}`, { skip: backend.skip }, () => {
    let planes: VideoPlanes;
    let openai: FakeOpenAI;
    let anthropic: FakeAnthropic;
    let db: { readonly url: string; cleanup(): Promise<void> };
    let video: VideoGateway;
    let session: ConsoleSession;
    let store: StoreRows;

    before(async () => {
      [planes, openai, anthropic, db] = await Promise.all([startVideoPlanes(), new FakeOpenAI().start(), new FakeAnthropic().start(), backend.fresh()]);
      const extra = `  - { name: openai, type: openai, base_url: ${openai.url}, keys: ["sk-up-openai-0123456789"], models: ["gpt-*"], cooldown_ms: 0 }
  - { name: anthropic, type: anthropic, base_url: ${anthropic.url}, keys: ["sk-up-anthropic-0123456789"], models: ["claude-*"], cooldown_ms: 0 }
`;
      video = await startVideoGateway(planes, { store: db.url, extra });
      session = await consoleSignIn(video.gw.url, { admin_token: ADMIN });
      store = await openStoreRows(db.url);
    });

    after(async () => {
      await store?.close();
      await video?.stop();
      await Promise.all([planes?.close(), openai?.close(), anthropic?.close()]);
      await db?.cleanup();
    });

    const upstreamCalls = (): number =>
      openai.requests.length + anthropic.requests.length + planes.ark.calls.length + planes.arkTwo.calls.length + planes.control.calls.length + planes.controlTwo.calls.length;

    async function send(c: Case): Promise<{ status: number; text: string; contentType: string }> {
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (c.endpoint.path.startsWith('/admin/')) headers['authorization'] = `Bearer ${ADMIN}`;
      else if (c.endpoint.path.startsWith('/console')) Object.assign(headers, { cookie: session.cookie, 'x-csrf-token': session.csrf });
      else headers['authorization'] = `Bearer ${ALICE}`;
      if (c.endpoint.wire === 'anthropic-messages') headers['anthropic-version'] = '2023-06-01';
      const init: RequestInit = { method: c.endpoint.method, headers, signal: AbortSignal.timeout(15_000) };
      if (c.body !== null) init.body = c.body;
      const res = await fetch(`${video.gw.url}${c.path}`, init);
      return { status: res.status, text: await res.text(), contentType: res.headers.get('content-type') ?? '' };
    }

    /** The error shape each route's format renders (its caller's API: a Bearer key on the model list is OpenAI's). */
    function expectedShape(e: Endpoint): string {
      const gateway = video.gw.gateway.runtime.current;
      const base = gateway.formats.get(e.method === 'POST' ? e.path : `${e.method} ${e.path}`);
      assert.ok(base !== undefined, `no format for ${label(e)}`);
      const format = base.forCaller === undefined ? base : base.forCaller(e.path, { authorization: 'Bearer x' });
      return shapeOf(format.encodeError(new GatewayError('GW_ERR_REQUEST_INVALID_FIELD', 'x', { param: 'x' }), { requestId: 'r', path: e.path }).body);
    }

    it('refuses each with a 400 in the route\'s shape, before any upstream call or store write', async (t) => {
      const cases = BUILTIN_ENDPOINTS.all.flatMap(casesOf);
      const seen = { '2xx': 0, '4xx': 0, '5xx': 0 };
      const wrong: string[] = [];
      let rows = await store.read();
      for (const c of cases) {
        const calls = upstreamCalls();
        const answer = await send(c);
        seen[answer.status >= 500 ? '5xx' : answer.status >= 400 ? '4xx' : '2xx']++;
        const problems: string[] = [];
        if (answer.status !== 400) problems.push(`answered ${answer.status}`);
        else if (!answer.contentType.includes('json') || shapeOf(answer.text) !== expectedShape(c.endpoint)) problems.push('not in the route\'s error shape');
        if (upstreamCalls() !== calls) problems.push('called an upstream');
        const now = await store.read();
        if (now !== rows) problems.push('changed the store');
        rows = now;
        if (problems.length > 0) wrong.push(`${label(c.endpoint)} ${c.what} (${c.path}): ${problems.join(', ')}: ${answer.text.slice(0, 200)}`);
      }
      t.diagnostic(`fuzz names (${backend.name}): ${cases.length} cases, ${seen['2xx']} answered 2xx, ${seen['4xx']} refused 4xx, ${seen['5xx']} 5xx`);
      assert.deepEqual(wrong, []);
      assert.equal(seen['5xx'], 0);
    });

    it('still serves afterwards: a chat, the console, and no refusal left its usage writer stuck', async () => {
      const chat = await fetch(`${video.gw.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify(WIRE_BODIES['openai-chat']),
      });
      assert.equal(chat.status, 200, await chat.text());
      await video.gw.gateway.runtime.deps.writer.flush();
      const usage = await fetch(`${video.gw.url}/console/api/usage`, { headers: { cookie: session.cookie } });
      assert.equal(usage.status, 200, await usage.text());
    });
  });
}

for (const backend of storeBackends()) suite(backend);
