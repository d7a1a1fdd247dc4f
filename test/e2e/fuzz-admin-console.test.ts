// Fuzzing the operator's JSON APIs: the admin API (/admin/*, the admin token) and the console's (/console/api/*, a
// session cookie and its CSRF token, as the operator and as an account's user). Near-valid bodies of every route that
// takes one, broken at arbitrary places (fields dropped, renamed, of another type, huge; amounts as odd strings and
// floats; unknown and __proto__ fields), and arbitrary JSON and text. Never a 5xx; every refusal in the route's own
// error shape; a refused request changes nothing in the store; an accepted credit moves its balance by exactly the
// decimal sent, and a max_spend is stored exactly; the gateway is healthy afterwards. Runs: GATEWAY_FUZZ_RUNS
// (default 300 per property).

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import type { AssetGroupRow } from '../../features/assets/asset-store.js';
import type { ConsoleUser } from '../../core/store/console-store.js';
import type { Account } from '../../core/store/ledger-store.js';
import type { StoredKey } from '../../core/store/store.js';
import { postChat } from '../helpers/chat-requests.js';
import { consoleAccountUser, consoleSignIn, type ConsoleSession } from '../helpers/console-session.js';
import { anyJson, mutate, mutation, type Json, type Mutation } from '../helpers/fuzz-bodies.js';
import { configWith, startGatewayUnderTest, TEST_KEY, type GatewayUnderTest } from '../helpers/gateway-under-test.js';
import { ASSET_STORE } from '../../features/assets/store-part.js';

const RUNS = Number(process.env['GATEWAY_FUZZ_RUNS'] ?? 300);
const ADMIN_TOKEN = 'test-admin-token-0123456789';
/** What the store's signed 64-bit balance may reach (core/store/kysely-ledger.ts MAX_BALANCE), in nano-units. */
const MAX_BALANCE = 9_000_000_000_000_000_000n;

/** Who calls: the admin token, the console's operator or its account user ada (of acme), or no one signed in. */
type Who = 'admin' | 'operator' | 'ada' | 'anonymous';

let gw: GatewayUnderTest;
const sessions = new Map<Who, ConsoleSession>();
/** The keys and the asset group the routes' paths name, made before the fuzzing. */
const made = { keyId: '', globexKeyId: '', revokedId: '', adaKeyId: '', groupId: '', gone: [] as string[], adaGone: [] as string[] };

// ---- Calling the gateway ----

interface Answer {
  readonly status: number;
  readonly contentType: string;
  readonly text: string;
}

async function send(method: string, path: string, who: Who, text: string): Promise<Answer> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (who === 'admin') headers['authorization'] = `Bearer ${ADMIN_TOKEN}`;
  // The fuzzed sign-ins fail from an address of their own: failures are limited per address, wrong admin tokens with
  // them, and the admin's own calls must not be refused for the sign-ins' sake.
  if (who === 'anonymous') headers['x-forwarded-for'] = '192.0.2.250';
  const session = sessions.get(who);
  if (session !== undefined) Object.assign(headers, { cookie: session.cookie, 'x-csrf-token': session.csrf });
  // A hang fails the case instead of the whole run.
  const body = method === 'GET' ? {} : { body: text };
  const res = await fetch(`${gw.url}${path}`, { method, headers, ...body, signal: AbortSignal.timeout(15_000) });
  return { status: res.status, contentType: res.headers.get('content-type') ?? '', text: await res.text() };
}

/** The id of a key made by `who` (the admin API, or the console as that user); throws unless it is a 201. */
async function makeKey(who: Who, body: Record<string, unknown>): Promise<string> {
  const answer = await send('POST', who === 'admin' ? '/admin/keys' : '/console/api/keys', who, JSON.stringify(body));
  assert.equal(answer.status, 201, answer.text);
  return String((JSON.parse(answer.text) as { id: unknown }).id);
}

async function makeAssetGroup(): Promise<string> {
  const res = await fetch(`${gw.url}/v1/videogen/asset/CreateAssetGroup`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ Name: 'fuzz' }),
  });
  const text = await res.text();
  assert.equal(res.status, 200, text);
  return String((JSON.parse(text) as { Result: { Id: unknown } }).Result.Id);
}

// ---- What the store holds ----

interface Snapshot {
  readonly accounts: readonly Account[];
  readonly ledger: readonly number[];
  readonly keys: readonly StoredKey[];
  readonly users: readonly ConsoleUser[];
  readonly group: AssetGroupRow | undefined;
}

/** Everything the fuzzed routes may change: accounts (balances, groups, disabled), ledgers, keys, users, the group. */
async function snapshot(): Promise<Snapshot> {
  const store = gw.gateway.runtime.deps.store;
  const accounts = await store.ledger.listAccounts();
  const ledger = await Promise.all(accounts.map(async (a) => (await store.ledger.listLedger(a.name, 1_000_000)).length));
  const users = (await Promise.all([null, 'acme', 'globex'].map((a) => store.console.listUsers(a)))).flat();
  return { accounts, ledger, keys: await store.listKeys(), users, group: await store.part(ASSET_STORE).group(made.groupId) };
}

function balanceIn(s: Snapshot, account: string): bigint | undefined {
  return s.accounts.find((a) => a.name === account)?.balance;
}

// ---- Money as sent ----

/**
 * The nano-units a decimal denotes exactly, as the sender wrote it (a number as JSON.stringify wrote it, which is the
 * text this suite sends), sign and exponent included; null for anything that is not such a decimal or finer than a
 * nano-unit. Independent of the gateway's parser, so that it can say the gateway read what was sent.
 */
function nanosOf(value: unknown): bigint | null {
  const text = typeof value === 'number' ? (Number.isFinite(value) ? String(value) : '') : typeof value === 'string' ? value : '';
  const match = /^\s*([+-]?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?\s*$/.exec(text);
  if (match === null || Math.abs(Number(match[4] ?? '0')) > 400) return null;
  const [, sign, whole = '', fraction = '', exponent = '0'] = match;
  const digits = BigInt(whole + fraction);
  const shift = Number(exponent) - fraction.length + 9;
  const divisor = 10n ** BigInt(Math.max(0, -shift));
  if (digits % divisor !== 0n) return null;
  const nanos = shift >= 0 ? digits * 10n ** BigInt(shift) : digits / divisor;
  return sign === '-' ? -nanos : nanos;
}

/** `digits` with `places` decimal places: "12.50", "0.000000001", "1234". */
function decimalText(digits: bigint, places: number): string {
  const text = digits.toString().padStart(places + 1, '0');
  return places === 0 ? text : `${text.slice(0, -places)}.${text.slice(-places)}`;
}

const ODD_AMOUNTS: readonly Json[] = [
  '1e-20', 1e-20, 0.1 + 0.2, '0.30000000000000004', 1e-10, '0.0000000001', '1000000000', 1e9, '1000000000.000000001', 1e9 + 1,
  '1e2', '1E-9', '+1', ' 2.5 ', '-1', -1, '-0', 0, -0, '0.0', '', '.5', '1.', '1,5', '1_000', '0x10', 'NaN', 'Infinity',
  '-Infinity', '1e400', 1e308, 5e-324, Number.MAX_SAFE_INTEGER, '9'.repeat(40), '１', '12.5.1', '1e-9999', 'twelve',
];

const decimal = (places: fc.Arbitrary<number>): fc.Arbitrary<string> => fc.tuple(fc.bigInt({ min: 1n, max: 10n ** 12n }), places).map(([d, p]) => decimalText(d, p));

/**
 * An amount: mostly a decimal of up to 9 places as a string, or a short number (JSON.stringify writes its exact
 * decimal); else one finer than a nano-unit, or an odd one (a float's artefacts, signs, exponents, NaN-ish text), or
 * any double. A number with a fraction is refused (it may have lost digits); the case below sends some.
 */
const money: fc.Arbitrary<Json> = fc.oneof(
  { weight: 5, arbitrary: decimal(fc.integer({ min: 2, max: 9 })) },
  { weight: 2, arbitrary: fc.tuple(fc.integer({ min: 1, max: 999_999 }), fc.integer({ min: 0, max: 9 })).map(([n, places]) => n / 10 ** places) },
  { weight: 1, arbitrary: decimal(fc.integer({ min: 10, max: 12 })) },
  { weight: 1, arbitrary: fc.constantFrom(...ODD_AMOUNTS) },
  { weight: 1, arbitrary: fc.double() as fc.Arbitrary<Json> },
);

// ---- Bodies ----

const PLAIN = { noNullPrototype: true } as const;

/** `{...required, ...some of optional}`. */
function withSome(required: Record<string, fc.Arbitrary<Json>>, optional: Record<string, fc.Arbitrary<Json>> = {}): fc.Arbitrary<Json> {
  return fc.record({ ...required, ...optional }, { requiredKeys: Object.keys(required), ...PLAIN }) as fc.Arbitrary<Json>;
}

/** Mostly `good`, sometimes one of `odd` (so that whole bodies are often valid: a field is one of several). */
const mostly = (good: fc.Arbitrary<Json>, ...odd: Json[]): fc.Arbitrary<Json> => fc.oneof({ weight: 6, arbitrary: good }, { weight: 1, arbitrary: fc.constantFrom(...odd) });
const fresh = (prefix: string): fc.Arbitrary<string> => fc.stringMatching(/^[a-z0-9]{8,12}$/).map((s) => `${prefix}${s}`);

const keyName = mostly(fresh('fz-'), '', ' lead', 'trail ', 'tab\there', 'x'.repeat(65), 'patch-me', 'tester', '名前-キー', '\u202eevil', 'zero\u200bwidth');
const accountName = mostly(fresh('fz'), 'acme', '', '-lead', 'has space', 'a'.repeat(65), '..', 'ünïcode');
const userName = mostly(fresh('u'), '', 'admin-token', 'Admin-Token', 'ada', 'a b', '@lead', 'x'.repeat(65));
const groupList = mostly(fc.constantFrom<Json>(['pro'], [], ['pro', 'limited'], ['pro', 'pro']), ['nope'], [1], 'pro', null);
const limits = (nullable: boolean): fc.Arbitrary<Json> => {
  const value = (max: number): fc.Arbitrary<Json> => (nullable ? fc.oneof(fc.integer({ min: 1, max }), fc.constant(null)) : fc.integer({ min: 1, max }));
  return fc.oneof(withSome({}, { rpm: value(1000), tpm: value(100_000), concurrency: value(10) }), fc.constant(null));
};
const keyFields = (nullable: boolean): Record<string, fc.Arbitrary<Json>> => ({
  max_spend: fc.oneof(money, fc.constant(null)),
  limits: limits(nullable),
  expires_at: mostly(fc.constantFrom('2031-01-31', '2031-06-01T09:00:00+01:00', '2031-01-31T00:00:00.5Z', null), '2027-02-30', 'tomorrow', '2031-01-31T25:00Z', 20310131),
  enabled: fc.boolean(),
  models: mostly(fc.constantFrom<Json>(['demo-chat'], ['demo-chat', 'demo-fast'], null), ['*'], ['demo-*'], [], [''], 'demo-chat'),
  ips: mostly(fc.constantFrom<Json>(['203.0.113.0/24'], ['127.0.0.1', '::1'], ['2001:db8::/32'], null), ['300.1.1.1'], ['10.0.0.0/33'], [], '::1'),
});
const keyCreate = withSome(
  { name: keyName, group: mostly(fc.constant('pro'), 'limited', 'nope', null) },
  { account: mostly(fc.constantFrom('acme', 'globex', null), 'nobody', 7), ...keyFields(false) },
);
const keyEdit = withSome({}, { name: keyName, ...keyFields(true) });
const credit = withSome(
  { amount: money, idempotency_key: mostly(fc.uuid(), 'same-key', '', 'k'.repeat(201)) },
  { note: mostly(fc.oneof(fc.string({ maxLength: 20 }), fc.constant(null)), 'n'.repeat(501), 42) },
);
const description = mostly(fc.oneof(fc.string({ maxLength: 20 }), fc.constant(null)), 'd'.repeat(501), false);
/** The group was made by an unmetered key: its own account's keys are the unmetered ones. */
const bindTo = (): fc.Arbitrary<Json> =>
  withSome({ key: mostly(fc.constantFrom('tester', 'config:tester', 'limited', 'patch-me', made.keyId), made.globexKeyId, made.revokedId, 'nobody-key', '') });
const empty = withSome({});

// ---- Routes ----

interface Route {
  readonly method: string;
  /** `{}` where the parameter goes (percent-encoded). */
  readonly path: string;
  /** The parameters tried; the last names nothing (a refusal whatever the body). */
  readonly params: readonly string[];
  readonly who: readonly Who[];
  readonly body: fc.Arbitrary<Json>;
}

const label = (r: Route): string => `${r.method} ${r.path}`;
const pathOf = (r: Route, param: string): string => r.path.replace('{}', encodeURIComponent(param));

function adminRoutes(): Route[] {
  const admin: Who[] = ['admin'];
  return [
    { method: 'POST', path: '/admin/keys', params: [''], who: admin, body: keyCreate },
    { method: 'PATCH', path: '/admin/keys/{}', params: [made.keyId, made.keyId, 'patch-me', made.revokedId, 'ключ', 'key_nosuch'], who: admin, body: keyEdit },
    { method: 'DELETE', path: '/admin/keys/{}', params: [...made.gone, made.revokedId, 'key_nosuch'], who: admin, body: empty },
    { method: 'POST', path: '/admin/accounts', params: [''], who: admin, body: withSome({ name: accountName }, { description }) },
    { method: 'POST', path: '/admin/accounts/{}/credit', params: ['acme', 'globex', 'nobody'], who: admin, body: credit },
    { method: 'POST', path: '/admin/asset-groups/{}/bind', params: [made.groupId, 'group-nosuch'], who: admin, body: bindTo() },
  ];
}

function consoleRoutes(): Route[] {
  const both: Who[] = ['operator', 'ada'];
  // The operator's routes, sometimes asked by ada: the 404 of a missing route, and nothing changed.
  const operator: Who[] = ['operator', 'operator', 'operator', 'ada'];
  const signIn = fc.oneof(withSome({ admin_token: fc.constantFrom(ADMIN_TOKEN, 'wrong-token-0123456789') }), withSome({ name: fc.constantFrom('ada', 'nobody'), password: fc.string({ minLength: 10, maxLength: 20 }) }));
  // DELETE /console/api/session is left out: it would end the session the fuzzing runs on.
  return [
    { method: 'POST', path: '/console/api/session', params: [''], who: ['anonymous'], body: signIn },
    { method: 'POST', path: '/console/api/password', params: [''], who: ['anonymous'], body: withSome({ token: fc.base64String({ minLength: 4, maxLength: 44 }), password: fc.string({ minLength: 10, maxLength: 30 }) }) },
    { method: 'POST', path: '/console/api/keys', params: [''], who: both, body: keyCreate },
    { method: 'PATCH', path: '/console/api/keys/{}', params: [made.adaKeyId, made.adaKeyId, made.keyId, made.globexKeyId, made.revokedId, 'key_nosuch'], who: both, body: keyEdit },
    { method: 'DELETE', path: '/console/api/keys/{}', params: [...made.gone, ...made.adaGone, 'key_nosuch'], who: both, body: empty },
    { method: 'POST', path: '/console/api/accounts', params: [''], who: operator, body: withSome({ name: accountName }, { description, groups: groupList }) },
    { method: 'PATCH', path: '/console/api/accounts/{}', params: ['acme', 'globex', 'nobody'], who: operator, body: withSome({}, { disabled: fc.boolean(), groups: groupList }) },
    { method: 'POST', path: '/console/api/accounts/{}/credit', params: ['acme', 'globex', 'nobody'], who: operator, body: credit },
    { method: 'POST', path: '/console/api/accounts/{}/users', params: ['acme', 'globex', 'nobody'], who: operator, body: withSome({ name: userName }) },
    { method: 'POST', path: '/console/api/asset-groups/{}/bind', params: [made.groupId, 'group-nosuch'], who: operator, body: bindTo() },
    { method: 'POST', path: '/console/api/config/reload', params: [''], who: operator, body: empty },
  ];
}

// ---- Breaking a body ----

/** What is done to a near-valid body: values replaced, removed or made long, a field renamed, unknown fields added. */
interface Damage {
  readonly mutations: readonly Mutation[];
  readonly rename: { readonly at: number; readonly how: 'upper' | 'suffix' | 'short' } | null;
  readonly junk: readonly (readonly [string, Json])[];
}

const JUNK_KEY = fc.oneof(fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'balance', 'id', 'revoked_at', 'account'), fc.string({ maxLength: 6 }));
const damage: fc.Arbitrary<Damage> = fc.oneof(
  // A third left whole: the routes' answers are reached too, not only their refusals.
  { weight: 1, arbitrary: fc.constant<Damage>({ mutations: [], rename: null, junk: [] }) },
  {
    weight: 2,
    arbitrary: fc.record({
      mutations: fc.array(mutation, { maxLength: 2 }),
      rename: fc.oneof({ weight: 3, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: fc.record({ at: fc.nat(), how: fc.constantFrom<'upper' | 'suffix' | 'short'>('upper', 'suffix', 'short') }) }),
      junk: fc.array(fc.tuple(JUNK_KEY, anyJson), { maxLength: 2 }),
    }),
  },
);

/** Defined, not assigned: an assignment to "__proto__" would set the prototype instead of a field. */
function define(holder: Record<string, Json>, key: string, value: Json): void {
  Object.defineProperty(holder, key, { value: JSON.parse(JSON.stringify(value)) as Json, enumerable: true, writable: true, configurable: true });
}

function damaged(body: Json, d: Damage): Json {
  const out = mutate(body, d.mutations);
  if (typeof out !== 'object' || out === null || Array.isArray(out)) return out;
  const keys = Object.keys(out);
  const renamed = d.rename === null ? undefined : keys[d.rename.at % Math.max(1, keys.length)];
  if (d.rename !== null && renamed !== undefined) {
    const to = d.rename.how === 'upper' ? renamed.toUpperCase() : d.rename.how === 'suffix' ? `${renamed}_` : renamed.slice(0, -1);
    const value = out[renamed] as Json;
    delete out[renamed];
    define(out, to, value);
  }
  for (const [key, value] of d.junk) define(out, key, value);
  return out;
}

const anyText: fc.Arbitrary<string> = fc.oneof(
  anyJson.map((v) => JSON.stringify(v)),
  fc.string({ maxLength: 40 }),
  fc.constantFrom('', 'null', '[]', '{', '{"amount":NaN}', '\ufeff{}', '{"a":1}{"b":2}', '{"__proto__":{"amount":"1"}}', '{"amount":"1","amount":"2"}', 'x'.repeat(70_000)),
);

interface Case {
  readonly route: Route;
  readonly who: Who;
  readonly param: string;
  readonly text: string;
}

function cases(routes: readonly Route[], text: (route: Route) => fc.Arbitrary<string>): fc.Arbitrary<Case> {
  return fc.constantFrom(...routes).chain((route) =>
    fc.record({ route: fc.constant(route), who: fc.constantFrom(...route.who), param: fc.constantFrom(...route.params), text: text(route) }),
  );
}

const broken = (route: Route): fc.Arbitrary<string> => fc.tuple(route.body, damage).map(([body, d]) => JSON.stringify(damaged(body, d)));

// ---- The invariants ----

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** An error answer's shape: its content type and its fields, as the route answers a body that is not JSON. */
function shapeOf(answer: Answer): string {
  const json: unknown = JSON.parse(answer.text);
  const error = isObject(json) ? json['error'] : undefined;
  return JSON.stringify({ contentType: answer.contentType, fields: isObject(json) ? Object.keys(json) : null, error: isObject(error) ? Object.keys(error) : null });
}

/** Each route's error shape, read before the fuzzing from its answer to a body that is not JSON. */
const shapes = new Map<string, string>();

function assertRefusal(c: Case, answer: Answer): void {
  assert.equal(shapeOf(answer), shapes.get(label(c.route)), 'not the route\'s error shape');
  const error = (JSON.parse(answer.text) as { error: Record<string, unknown> }).error;
  assert.ok(typeof error['message'] === 'string' && error['message'] !== '' && typeof error['type'] === 'string', 'no message or type');
  assert.ok(error['param'] === null || typeof error['param'] === 'string', 'param neither null nor a field');
  assert.ok(error['code'] === null || typeof error['code'] === 'string', 'code neither null nor a string');
}

function sentObject(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    return isObject(value) ? value : {};
  } catch {
    return {};
  }
}

/** The one change of money an accepted request may make: a credit of exactly the decimal sent; a max_spend exactly as sent. */
function assertExact(c: Case, answer: Answer, before: Snapshot, after: Snapshot): void {
  const sent = sentObject(c.text);
  const applied = c.route.path.endsWith('/credit') && (JSON.parse(answer.text) as { applied?: unknown }).applied === true;
  for (const account of after.accounts) {
    const moved = account.balance - (balanceIn(before, account.name) ?? 0n);
    const expected = applied && account.name === c.param ? nanosOf(sent['amount']) : 0n;
    assert.equal(moved, expected, `the balance of ${account.name} moved by ${moved} nano-units, not by ${String(expected)}`);
  }
  if (c.route.method !== 'DELETE' && c.route.path.includes('/keys') && sent['max_spend'] !== undefined && sent['max_spend'] !== null) {
    const id = (JSON.parse(answer.text) as { id?: unknown }).id;
    assert.equal(after.keys.find((k) => k.id === id)?.maxSpend, nanosOf(sent['max_spend']), 'max_spend not stored exactly as sent');
  }
}

/** A credit that would take its balance past what the store holds: the case below, not fuzzed again. */
function passesMaxBalance(c: Case, before: Snapshot): boolean {
  const amount = nanosOf(sentObject(c.text)['amount']) ?? 0n;
  return c.route.path.endsWith('/credit') && amount + (balanceIn(before, c.param) ?? 0n) > MAX_BALANCE;
}

type Seen = Map<string, number>;

async function check(c: Case, seen: Seen): Promise<void> {
  const before = await snapshot();
  fc.pre(!passesMaxBalance(c, before));
  const answer = await send(c.route.method, pathOf(c.route, c.param), c.who, c.text);
  const kind = `${Math.floor(answer.status / 100)}xx`;
  seen.set(kind, (seen.get(kind) ?? 0) + 1);
  try {
    assert.ok(answer.status < 500, 'a 5xx');
    const now = await snapshot();
    if (answer.status >= 400) {
      assertRefusal(c, answer);
      assert.deepEqual(now, before, 'a refused request changed the store');
    } else {
      assert.ok(answer.contentType.startsWith('application/json') && isObject(JSON.parse(answer.text)), 'a 2xx that is not a JSON object');
      assertExact(c, answer, before, now);
    }
  } catch (err) {
    const sent = c.text.length > 1500 ? `${c.text.slice(0, 1500)}...` : c.text;
    throw new Error(`${(err as Error).message}\n${c.route.method} ${pathOf(c.route, c.param)} as ${c.who}: ${sent}\n-> ${answer.status} ${answer.text.slice(0, 800)}`, { cause: err });
  }
}

function counts(what: string, seen: Seen): string {
  return `fuzz ${what}: ${[...seen.values()].reduce((a, b) => a + b, 0)} cases, ${seen.get('2xx') ?? 0} answered 2xx, ${seen.get('4xx') ?? 0} refused 4xx, ${seen.get('5xx') ?? 0} 5xx`;
}

/** At least `share` of the runs in each class: the generator must reach the answers and the refusals alike. */
function assertReached(seen: Seen, classes: Record<string, number>): void {
  for (const [kind, share] of Object.entries(classes)) {
    assert.ok((seen.get(kind) ?? 0) >= RUNS * share, `only ${seen.get(kind) ?? 0} of ${RUNS} answers were ${kind}: ${JSON.stringify([...seen])}`);
  }
}

async function fuzz(routes: readonly Route[], text: (route: Route) => fc.Arbitrary<string>): Promise<Seen> {
  const seen: Seen = new Map();
  await fc.assert(fc.asyncProperty(cases(routes, text), (c) => check(c, seen)), { numRuns: RUNS, includeErrorInReport: true });
  return seen;
}

// ---- The gateway ----

before(async () => {
  gw = await startGatewayUnderTest(
    configWith(`  - name: demo\n    type: mock\n    models: ["demo-*"]\n    assets: true\n`, 'accounts:\n  - name: acme\n    groups: [pro]\n  - name: globex\n').replace(
      'shutdown_grace_ms: 5000',
      'shutdown_grace_ms: 5000\n  trusted_proxies: ["127.0.0.1"]',
    ),
  );
  const operator = await consoleSignIn(gw.url, { admin_token: ADMIN_TOKEN });
  sessions.set('operator', operator);
  sessions.set('ada', await consoleAccountUser(gw.url, operator, 'acme', 'ada', 'ada fuzzes the console'));
  made.keyId = await makeKey('admin', { name: 'patch-me', group: 'pro' });
  made.globexKeyId = await makeKey('admin', { name: 'globex-key', group: 'pro', account: 'globex' });
  made.revokedId = await makeKey('admin', { name: 'revoked', group: 'pro' });
  assert.equal((await send('DELETE', `/admin/keys/${made.revokedId}`, 'admin', '')).status, 200);
  made.adaKeyId = await makeKey('ada', { name: 'ada-key', group: 'pro' });
  for (let i = 0; i < 4; i++) made.gone.push(await makeKey('admin', { name: `gone-${i}`, group: 'pro' }));
  for (let i = 0; i < 2; i++) made.adaGone.push(await makeKey('ada', { name: `ada-gone-${i}`, group: 'pro' }));
  made.groupId = await makeAssetGroup();
  for (const route of [...adminRoutes(), ...consoleRoutes()]) {
    const answer = await send(route.method, pathOf(route, route.params.at(-1) ?? ''), route.who[0] ?? 'admin', 'not json');
    assert.ok(answer.status >= 400 && answer.status < 500, `${label(route)} answered a body that is not JSON with ${answer.status}`);
    shapes.set(label(route), shapeOf(answer));
  }
});

after(async () => {
  await gw.stop();
});

describe('the admin API', () => {
  it(`near-valid bodies broken at arbitrary places: never a 5xx, refusals in shape change nothing, money exact (${RUNS} runs)`, async (t) => {
    const seen = await fuzz(adminRoutes(), broken);
    t.diagnostic(counts('admin API, near-valid bodies broken', seen));
    assertReached(seen, { '2xx': 0.1, '4xx': 0.3 });
  });

  it(`arbitrary JSON and text: never a 5xx, refusals in shape change nothing (${RUNS} runs)`, async (t) => {
    const seen = await fuzz(adminRoutes(), () => anyText);
    t.diagnostic(counts('admin API, arbitrary JSON and text', seen));
    assertReached(seen, { '4xx': 0.5 });
  });
});

describe('the console API, as the operator and as an account\'s user', () => {
  it(`near-valid bodies broken at arbitrary places: never a 5xx, refusals in shape change nothing, money exact (${RUNS} runs)`, async (t) => {
    const seen = await fuzz(consoleRoutes(), broken);
    t.diagnostic(counts('console API, near-valid bodies broken', seen));
    assertReached(seen, { '2xx': 0.1, '4xx': 0.3 });
  });

  it(`arbitrary JSON and text: never a 5xx, refusals in shape change nothing (${RUNS} runs)`, async (t) => {
    const seen = await fuzz(consoleRoutes(), () => anyText);
    t.diagnostic(counts('console API, arbitrary JSON and text', seen));
    assertReached(seen, { '4xx': 0.5 });
  });
});

describe('afterwards', () => {
  it('the gateway is healthy: /healthz, a chat on the mock channel, both sessions, and books that balance', async () => {
    assert.equal((await fetch(`${gw.url}/healthz`)).status, 200);
    const chat = await postChat(gw.url, { model: 'demo-chat', messages: [{ role: 'user', content: 'still there?' }] });
    assert.equal(chat.status, 200, await chat.text());
    for (const who of ['operator', 'ada'] as const) assert.equal((await send('GET', '/console/api/session', who, '')).status, 200);
    assert.deepEqual(await gw.gateway.runtime.deps.store.ledger.auditLedger(), []);
  });
});

// Regressions: bugs this fuzzing found (JSON numbers rounded before they were read; a 500 past the largest balance).
describe('found by this fuzzing', () => {
  const balance = async (account: string): Promise<bigint> => balanceIn(await snapshot(), account) ?? 0n;

  it(
    'an amount sent as a JSON number of more digits than a double holds is credited exactly, or refused',
    async () => {
      const wrong: string[] = [];
      for (const who of ['admin', 'operator'] as const) {
        for (const [text, nanos] of [['123456789.123456789', 123_456_789_123_456_789n], ['0.1000000000000000000001', null]] as const) {
          const before = await balance('globex');
          const path = who === 'admin' ? '/admin/accounts/globex/credit' : '/console/api/accounts/globex/credit';
          const answer = await send('POST', path, who, `{"amount":${text},"idempotency_key":"digits-${who}-${text}"}`);
          const moved = (await balance('globex')) - before;
          if (answer.status < 300 ? moved !== nanos : answer.status !== 400 || moved !== 0n) wrong.push(`${path} ${text}: ${answer.status}, moved ${moved} nano-units`);
        }
      }
      assert.deepEqual(wrong, []);
    },
  );

  it(
    'a credit that would take a balance past what the store holds is refused in the route\'s shape',
    async () => {
      assert.equal((await send('POST', '/admin/accounts', 'admin', '{"name":"brimful"}')).status, 201);
      for (let i = 0; i < 9; i++) {
        const answer = await send('POST', '/admin/accounts/brimful/credit', 'admin', `{"amount":"1000000000","idempotency_key":"fill-${i}"}`);
        assert.equal(answer.status, 201, answer.text);
      }
      const over = await send('POST', '/admin/accounts/brimful/credit', 'admin', '{"amount":"1000000000","idempotency_key":"one-too-many"}');
      assert.deepEqual([over.status, shapeOf(over)], [400, shapes.get('POST /admin/accounts/{}/credit')], over.text);
      assert.equal(await balance('brimful'), MAX_BALANCE);
    },
  );
});
