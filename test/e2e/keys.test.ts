// Run-time keys: the admin HTTP API and the `gateway keys` CLI on the same SQLite file as a running gateway.
// Keys are shown once; the store and every listing hold only digests and display prefixes.

import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { postChat } from '../helpers/chat-requests.js';
import { runCli } from '../helpers/cli-process.js';
import { FakeOpenAI } from '../helpers/fake-openai.js';
import { TEST_KEY, channel, configWith, startGatewayUnderTest, type GatewayUnderTest } from '../helpers/gateway-under-test.js';
import { MemoryLimiter } from '../../core/limits/memory-limiter.js';
import { until } from '../helpers/poll.js';

const ADMIN_TOKEN = 'test-admin-token-0123456789';

let upstream: FakeOpenAI;
let gw: GatewayUnderTest;
/** Every clear key this file created: none may appear in the store file. */
const created: string[] = [];
/** The limiter's clock: the admin token's wrong guesses are limited per address. */
let clock = 1_900_000_000_000;
const limiter = new MemoryLimiter({ now: () => clock });

before(async () => {
  upstream = await new FakeOpenAI('up').start();
  gw = await startGatewayUnderTest(configWith(channel('a', upstream.url)), { limiter });
});

after(async () => {
  await gw.stop();
  await upstream.close();
});

function admin(method: string, path: string, options: { token?: string | null; body?: unknown } = {}): Promise<Response> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  const token = options.token === undefined ? ADMIN_TOKEN : options.token;
  if (token !== null) headers['authorization'] = `Bearer ${token}`;
  return fetch(`${gw.url}${path}`, {
    method,
    headers,
    ...(options.body === undefined ? {} : { body: typeof options.body === 'string' ? options.body : JSON.stringify(options.body) }),
  });
}

async function chatStatus(key: string, url = gw.url): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await postChat(url, { model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] }, { key });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

function errorCode(body: Record<string, unknown>): unknown {
  return (body['error'] as { code?: unknown } | undefined)?.code;
}

const sha256 = (key: string): string => createHash('sha256').update(key).digest('hex');

function assertNoSecrets(text: string, keys: readonly string[]): void {
  for (const key of keys) {
    assert.ok(!text.includes(key), 'a clear key is in the output');
    assert.ok(!text.includes(sha256(key)), 'a key hash is in the output');
  }
  assert.doesNotMatch(text, /"hash"/);
}

describe('admin API', () => {
  test('requires the admin token', async () => {
    for (const token of [null, 'wrong-token', `${ADMIN_TOKEN}x`, TEST_KEY]) {
      for (const [method, path, body] of [
        ['GET', '/admin/keys', undefined],
        ['POST', '/admin/keys', { name: 'sneaky', group: 'pro' }],
        ['DELETE', '/admin/keys/tester', undefined],
        ['GET', '/admin/instances', undefined],
      ] as const) {
        const res = await admin(method, path, { token, body });
        assert.equal(res.status, 401, `${method} ${path} with ${String(token)}`);
        const json = (await res.json()) as Record<string, unknown>;
        assert.equal(errorCode(json), 'invalid_admin_token');
      }
      // Wrong tokens are limited per address (ten, then one every 6 s: admin-token-guesses.test.ts): a minute passes.
      clock += 60_000;
    }
    const list = (await (await admin('GET', '/admin/keys')).json()) as { data: { name: string }[] };
    assert.ok(!list.data.some((k) => k.name === 'sneaky'), 'nothing was created without the token');
  });

  test('GET /admin/instances without Redis: this instance alone, marked as itself', async () => {
    const res = await admin('GET', '/admin/instances');
    assert.equal(res.status, 200);
    const list = (await res.json()) as { object: string; data: { id: string; self: boolean }[] };
    assert.equal(list.object, 'list');
    assert.equal(list.data.length, 1);
    assert.match(list.data[0]?.id ?? '', /^gw-[0-9a-f-]{36}$/);
    assert.equal(list.data[0]?.self, true);
  });

  test('create, use, list and revoke a key', async () => {
    const res = await admin('POST', '/admin/keys', { body: { name: 'ci-bot', group: 'pro' } });
    assert.equal(res.status, 201);
    const key = (await res.json()) as Record<string, unknown>;
    assert.equal(typeof key['key'], 'string');
    const clear = key['key'] as string;
    created.push(clear);
    assert.match(clear, /^sk-[A-Za-z0-9]{40}$/);
    assert.equal(key['name'], 'ci-bot');
    assert.equal(key['group'], 'pro');
    assert.equal(key['prefix'], clear.slice(0, 7));
    assert.equal(key['revoked_at'], null);
    assert.match(String(key['id']), /^key_/);
    assert.equal(key['hash'], undefined);

    const before = upstream.requests.length;
    const ok = await chatStatus(clear);
    assert.equal(ok.status, 200);
    assert.equal(upstream.requests[before]?.headers['authorization'], 'Bearer sk-upstream-a', 'the gateway key never goes upstream');
    const record = (await gw.usage()).find((r) => r.keyName === 'ci-bot');
    assert.equal(record?.keyId, key['id']);
    assert.equal(record?.group, 'pro');

    const listRes = await admin('GET', '/admin/keys');
    assert.equal(listRes.status, 200);
    const listText = await listRes.text();
    assertNoSecrets(listText, [clear, TEST_KEY]);
    const list = JSON.parse(listText) as { object: string; data: Record<string, unknown>[] };
    assert.equal(list.object, 'list');
    const listed = list.data.find((k) => k['name'] === 'ci-bot');
    assert.deepEqual(listed, {
      id: key['id'],
      name: 'ci-bot',
      group: 'pro',
      prefix: clear.slice(0, 7),
      created_at: key['created_at'],
      revoked_at: null,
      enabled: true,
      expires_at: null,
      models: null,
      ips: null,
    });
    assert.ok(!list.data.some((k) => k['name'] === 'tester'), 'config keys are not store keys');

    const revoke = await admin('DELETE', '/admin/keys/ci-bot');
    assert.equal(revoke.status, 200);
    const revoked = (await revoke.json()) as Record<string, unknown>;
    assert.equal(revoked['id'], key['id']);
    assert.match(String(revoked['revoked_at']), /^\d{4}-\d\d-\d\dT/);
    // Revoked through this process: the lookup cache is dropped, so it applies at once.
    const refused = await chatStatus(clear);
    assert.equal(refused.status, 401);
    assert.equal(errorCode(refused.body), 'invalid_api_key');
    assert.match(JSON.stringify(refused.body), /revoked/);

    const gone = await admin('DELETE', `/admin/keys/no-such-key`);
    assert.equal(gone.status, 404);
    await gone.text();
  });

  test('rejects bad input with 400 and the field', async () => {
    const cases: [unknown, string | null][] = [
      [{ name: 'x1', group: 'no-such-group' }, 'group'],
      [{ name: 'x2' }, 'group'],
      [{ name: ' padded', group: 'pro' }, 'name'],
      [{ name: 'line\nbreak', group: 'pro' }, 'name'],
      [{ name: 'x'.repeat(65), group: 'pro' }, 'name'],
      [{ name: 'tester', group: 'pro' }, 'name'], // a key of the config file has that name
      [{ name: 'ci-bot', group: 'pro' }, 'name'], // created (and revoked) above
      ['not json', null],
      [[1, 2], null],
    ];
    for (const [body, param] of cases) {
      const res = await admin('POST', '/admin/keys', { body });
      assert.equal(res.status, 400, JSON.stringify(body));
      const json = (await res.json()) as { error: { param: string | null; message: string } };
      assert.equal(json.error.param, param, JSON.stringify(body));
    }
    const list = (await (await admin('GET', '/admin/keys')).json()) as { data: { name: string }[] };
    assert.deepEqual(list.data.map((k) => k.name), ['ci-bot']);
  });

  test('is off (404) without server.admin_token', async () => {
    const off = await startGatewayUnderTest(configWith(channel('a', upstream.url)).replace(/^ {2}admin_token: .*\n/m, ''));
    try {
      for (const token of [ADMIN_TOKEN, null]) {
        const res = await fetch(`${off.url}/admin/keys`, token === null ? {} : { headers: { authorization: `Bearer ${token}` } });
        assert.equal(res.status, 404);
        await res.text();
      }
    } finally {
      await off.stop();
    }
  });
});

// ---- the CLI, on the store of the running gateway ----

describe('keys CLI', () => {
  let cliKey = '';
  let cliId = '';

  test('keys create prints the key once, and the running gateway accepts it', async () => {
    const result = await runCli(['keys', 'create', '--name', 'cli-key', '--group', 'pro', '--config', gw.configPath]);
    assert.equal(result.code, 0, result.stderr);
    const json = JSON.parse(result.stdout) as Record<string, unknown>;
    cliKey = String(json['key']);
    cliId = String(json['id']);
    created.push(cliKey);
    assert.match(cliKey, /^sk-[A-Za-z0-9]{40}$/);
    assert.equal(json['name'], 'cli-key');
    assert.equal(json['group'], 'pro');
    assert.equal(json['prefix'], cliKey.slice(0, 7));
    assert.equal(json['hash'], undefined);
    assert.match(result.stderr, /not shown again/);

    const ok = await chatStatus(cliKey);
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    const listed = (await (await admin('GET', '/admin/keys')).json()) as { data: { id: string; name: string }[] };
    assert.ok(listed.data.some((k) => k.id === cliId && k.name === 'cli-key'), 'the admin API sees the CLI key');
  });

  test('keys create refuses a bad group and a taken name', async () => {
    const badGroup = await runCli(['keys', 'create', '--name', 'other', '--group', 'nope', '--config', gw.configPath]);
    assert.equal(badGroup.code, 1);
    assert.match(badGroup.stderr, /group must be one of the configured groups: pro, limited/);
    assert.equal(badGroup.stdout, '');
    const taken = await runCli(['keys', 'create', '--name', 'cli-key', '--group', 'pro', '--config', gw.configPath]);
    assert.equal(taken.code, 1);
    assert.match(taken.stderr, /already exists/);
  });

  test('keys list shows every store key without hash or clear key', async () => {
    const result = await runCli(['keys', 'list', '--config', gw.configPath]);
    assert.equal(result.code, 0, result.stderr);
    assertNoSecrets(result.stdout, created);
    const keys = result.stdout.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    assert.deepEqual(keys.map((k) => k['name']).sort(), ['ci-bot', 'cli-key']);
    const cli = keys.find((k) => k['name'] === 'cli-key');
    assert.deepEqual(Object.keys(cli ?? {}).sort(), ['created_at', 'enabled', 'expires_at', 'group', 'id', 'ips', 'models', 'name', 'prefix', 'revoked_at']);
    assert.equal(cli?.['revoked_at'], null);
    assert.notEqual(keys.find((k) => k['name'] === 'ci-bot')?.['revoked_at'], null);
  });

  test('keys revoke: the running gateway refuses the key within its cache lifetime', async () => {
    const result = await runCli(['keys', 'revoke', 'cli-key', '--config', gw.configPath]);
    assert.equal(result.code, 0, result.stderr);
    const revoked = JSON.parse(result.stdout) as Record<string, unknown>;
    assert.equal(revoked['id'], cliId);
    assert.notEqual(revoked['revoked_at'], null);

    // Another process revoked it: the gateway sees it once its cached lookup (5 s) expires.
    const refused = await until(
      'the revoked key to be refused',
      async () => {
        const outcome = await chatStatus(cliKey);
        if (outcome.status === 200) return undefined;
        return outcome;
      },
      { timeoutMs: 8_000, intervalMs: 100 },
    );
    assert.equal(refused.status, 401);
    assert.match(JSON.stringify(refused.body), /revoked/);
    assert.equal((await chatStatus(TEST_KEY)).status, 200, 'other keys are unaffected');

    const unknown = await runCli(['keys', 'revoke', 'no-such-key', '--config', gw.configPath]);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /no key with id or name "no-such-key"/);
  });

  test('the SQLite files hold key digests, never a clear key', async () => {
    await gw.usage(); // flushes the usage writer
    const dbPath = join(gw.dir, 'gateway.db');
    const files = [dbPath, `${dbPath}-wal`, `${dbPath}-shm`].filter((f) => existsSync(f));
    const bytes = Buffer.concat(await Promise.all(files.map((f) => readFile(f))));
    assert.equal(created.length, 2);
    for (const key of created) {
      assert.ok(bytes.includes(sha256(key)), 'the digest is stored: these are the right files');
      assert.ok(!bytes.includes(key), 'the clear key is not stored');
      assert.ok(!bytes.includes(key.slice(3)), 'nor its secret part');
    }
    assert.ok(!bytes.includes(TEST_KEY), 'nor a key of the config file');
  });
});
