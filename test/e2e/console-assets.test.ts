// /console/api/asset-groups over HTTP (issue 26 item 9), against the mock channel's asset library: an account's user
// lists their account's keys' groups and assets, never another account's whatever ?account= says, and sees a new
// asset turn Active once the library says so; a user cannot rebind (the operator routes' 403); the operator lists every
// account's groups or one's, and rebinds the group of a revoked key to the account's new key (refusing another
// account's), after which the new key reads the group and its assets and no other key does. The mock library reads a
// clock the test moves (its assets' 2 s of Processing), not the machine's.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { consoleAccountUser, consoleSignIn, type ConsoleSession } from '../helpers/console-session.js';
import { startGatewayUnderTest, type GatewayUnderTest } from '../helpers/gateway-under-test.js';
import { until } from '../helpers/poll.js';
import { ASSET_STORE } from '../../features/assets/store-part.js';

const ADMIN = 'console-assets-admin-token-0123456789';
const ACME_BOT = 'sk-acme-bot-console-assets-0123456789';
const GLOBEX_BOT = 'sk-globex-bot-console-assets-01234567';
const CAT = 'https://example.com/cat.png';

interface Answer {
  readonly status: number;
  readonly json: Record<string, unknown>;
}

interface ShownGroup {
  readonly id: string;
  readonly name: string;
  readonly channel: string;
  readonly account: string | null;
  readonly key: { readonly id: string; readonly name: string | null };
  readonly bound: boolean;
  readonly created_at: string;
  readonly assets: readonly { readonly id: string; readonly asset_type: string; readonly status: string; readonly created_at: string }[];
}

describe('console asset groups', () => {
  let gw: GatewayUnderTest;
  const sessions: Record<string, ConsoleSession> = {};
  /** Run-time keys made through the admin API: their secrets and ids. */
  const keys: Record<string, { key: string; id: string }> = {};
  const groups: Record<string, string> = {};
  const assets: Record<string, string> = {};
  /** The mock library's time: still until a test moves it. */
  let libraryNow = Date.now();

  async function call(who: string, method: string, path: string, body?: unknown, csrf = true): Promise<Answer> {
    const s = sessions[who] as ConsoleSession;
    const headers: Record<string, string> = { cookie: s.cookie, 'content-type': 'application/json' };
    if (csrf) headers['x-csrf-token'] = s.csrf;
    const res = await fetch(`${gw.url}${path}`, { method, headers, body: body === undefined ? null : JSON.stringify(body) });
    return { status: res.status, json: (await res.json()) as Record<string, unknown> };
  }

  async function list(who: string, query = ''): Promise<{ data: ShownGroup[]; total: number; offset: number }> {
    const answer = await call(who, 'GET', `/console/api/asset-groups${query}`);
    assert.equal(answer.status, 200, JSON.stringify(answer.json));
    return answer.json as unknown as { data: ShownGroup[]; total: number; offset: number };
  }

  async function action(key: string, name: string, body: Record<string, unknown>): Promise<Answer> {
    const res = await fetch(`${gw.url}/v1/videogen/asset/${name}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: res.status, json: (await res.json()) as Record<string, unknown> };
  }

  /** Makes a group through `key`, and an image in it when `asset` names one; both ids kept under their names. */
  async function groupWith(key: string, name: string, asset?: string): Promise<void> {
    const made = await action(key, 'CreateAssetGroup', { Name: name });
    assert.equal(made.status, 200, JSON.stringify(made.json));
    groups[name] = String((made.json['Result'] as { Id: string }).Id);
    if (asset === undefined) return;
    const added = await action(key, 'CreateAsset', { GroupId: groups[name], URL: CAT, AssetType: 'Image' });
    assert.equal(added.status, 200, JSON.stringify(added.json));
    assets[asset] = String((added.json['Result'] as { Id: string }).Id);
  }

  async function admin(method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
    const res = await fetch(`${gw.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
      body: body === undefined ? null : JSON.stringify(body),
    });
    assert.ok(res.ok, `${method} ${path}: ${res.status}`);
    return (await res.json()) as Record<string, unknown>;
  }

  async function makeKey(name: string, account: string): Promise<void> {
    const made = await admin('POST', '/admin/keys', { name, group: 'pro', account });
    keys[name] = { key: String(made['key']), id: String(made['id']) };
  }

  const byName = (shown: readonly ShownGroup[], name: string): ShownGroup => {
    const found = shown.find((g) => g.name === name);
    assert.ok(found !== undefined, `no group ${name} in ${shown.map((g) => g.name).join(', ')}`);
    return found;
  };

  before(async () => {
    gw = await startGatewayUnderTest(
      `server: { port: 0, host: 127.0.0.1, admin_token: ${ADMIN} }
store: { url: "sqlite:./gateway.db" }
groups:
  pro: { models: ["*"] }
accounts: [{ name: acme, groups: [pro] }, { name: globex, groups: [pro] }]
keys:
  - { name: acme-bot, key: ${ACME_BOT}, group: pro, account: acme }
  - { name: globex-bot, key: ${GLOBEX_BOT}, group: pro, account: globex }
channels:
  - { name: library, type: mock, assets: true, models: ["demo-*"] }
`,
      { resolveHost: async () => ['93.184.215.14'], mockClock: () => libraryNow },
    );
    sessions['operator'] = await consoleSignIn(gw.url, { admin_token: ADMIN });
    sessions['ada'] = await consoleAccountUser(gw.url, sessions['operator'], 'acme', 'ada', 'ada has a long password');
    sessions['gus'] = await consoleAccountUser(gw.url, sessions['operator'], 'globex', 'gus', 'gus has a long password');
    await makeKey('acme-old', 'acme');
    await groupWith(keys['acme-old']?.key ?? '', 'cats', 'cat');
    await groupWith(ACME_BOT, 'dogs');
    await groupWith(GLOBEX_BOT, 'globex-secret', 'secret');
  });
  after(async () => {
    await gw.stop();
  });

  it('a user sees their account\'s groups, with keys and assets, and never another account\'s', async () => {
    const mine = await list('ada');
    assert.deepEqual(mine.data.map((g) => g.name), ['dogs', 'cats'], 'newest first');
    assert.deepEqual([mine.total, mine.offset], [2, 0]);
    const cats = byName(mine.data, 'cats');
    assert.deepEqual([cats.id, cats.channel, cats.account, cats.key, cats.bound], [groups['cats'], 'library', 'acme', { id: keys['acme-old']?.id, name: 'acme-old' }, true]);
    assert.deepEqual(cats.assets.map((a) => [a.id, a.asset_type]), [[assets['cat'], 'Image']]);
    assert.deepEqual(byName(mine.data, 'dogs').key, { id: 'config:acme-bot', name: 'acme-bot' }, 'a declared key by its config: id');
    for (const query of ['?account=globex', '?account=nobody', '?account=']) {
      assert.deepEqual((await list('ada', query)).data.map((g) => g.name), ['dogs', 'cats'], `their own account whatever ${query} says`);
    }
    const theirs = await list('gus');
    assert.deepEqual([theirs.data.map((g) => g.name), theirs.total], [['globex-secret'], 1]);
    assert.ok(!JSON.stringify(mine).includes(groups['globex-secret'] ?? '-') && !JSON.stringify(mine).includes(assets['secret'] ?? '-'));
  });

  it('a new asset is Processing, then Active once the library says so (read again when listed)', async () => {
    const id = assets['cat'] ?? '';
    const { store } = gw.gateway.runtime.deps;
    const listed = async (): Promise<string | undefined> => byName((await list('ada')).data, 'cats').assets[0]?.status;
    const first = byName((await list('ada')).data, 'cats').assets[0];
    assert.ok(Number.isFinite(Date.parse(first?.created_at ?? '')), `the asset's time: ${first?.created_at}`);
    assert.equal(first?.status, 'Processing');
    assert.equal((await store.part(ASSET_STORE).asset(id))?.status, 'Processing');
    // When the library made it, on its clock: its 2 s count from there.
    const madeAt = (await store.part(ASSET_STORE).mock.get('library', id))?.createdAt;
    assert.ok(madeAt !== undefined, 'the library has the asset');
    libraryNow = madeAt + 1999;
    assert.equal(await listed(), 'Processing', 'not before the library\'s 2 s');
    assert.equal((await store.part(ASSET_STORE).asset(id))?.status, 'Processing');
    libraryNow = madeAt + 2000;
    // Polled only in case a list's read of the library outlived its bound (3 s) on a loaded machine.
    assert.equal(await until('the asset listed Active', async () => ((await listed()) === 'Active' ? 'Active' : undefined), { timeoutMs: 10_000, intervalMs: 20 }), 'Active');
    const stored = await store.part(ASSET_STORE).asset(id);
    assert.equal(stored?.status, 'Active', 'the store keeps what the library said');
  });

  it('a user cannot rebind a group: the operator routes\' 403, and nothing changes', async () => {
    const tried = await call('ada', 'POST', `/console/api/asset-groups/${groups['cats'] ?? ''}/bind`, { key: 'acme-bot' });
    const operatorRoute = await call('ada', 'POST', '/console/api/accounts', { name: 'x' });
    assert.equal(tried.status, 403);
    assert.deepEqual(tried.json, operatorRoute.json, 'answered as any operator route');
    assert.equal((await call('ada', 'POST', '/console/api/asset-groups/no-such-group/bind', { nmae: 'x' })).status, 403, 'before the body is read');
    assert.deepEqual(byName((await list('ada')).data, 'cats').key.name, 'acme-old');
  });

  it('the operator lists every account\'s groups, or one account\'s, paged', async () => {
    const all = await list('operator');
    assert.deepEqual([all.data.map((g) => g.name), all.total], [['globex-secret', 'dogs', 'cats'], 3]);
    assert.deepEqual((await list('operator', '?account=globex')).data.map((g) => g.name), ['globex-secret']);
    assert.deepEqual((await list('operator', '?account=acme')).data.map((g) => g.name), ['dogs', 'cats']);
    const second = await list('operator', '?offset=2');
    assert.deepEqual([second.data.map((g) => g.name), second.total, second.offset], [['cats'], 3, 2]);
    assert.equal((await call('operator', 'GET', '/console/api/asset-groups?account=nobody')).status, 404);
    const bad = await call('operator', 'GET', '/console/api/asset-groups?offset=-1');
    assert.deepEqual([bad.status, (bad.json['error'] as { param: string }).param], [400, 'offset']);
  });

  it('the operator rebinds a revoked key\'s group to the account\'s new key, never to another account\'s', async () => {
    const cats = groups['cats'] ?? '';
    const old = keys['acme-old'] as { key: string; id: string };
    assert.equal((await action(old.key, 'GetAssetGroup', { Id: cats })).status, 200, 'its key reads it while it is bound');
    await admin('DELETE', `/admin/keys/${old.id}`);
    const unbound = byName((await list('operator', '?account=acme')).data, 'cats');
    assert.deepEqual([unbound.bound, unbound.key.name], [false, 'acme-old'], 'revoking the key unbound its group');
    await makeKey('acme-new', 'acme');
    const bind = (key: unknown, csrf = true): Promise<Answer> => call('operator', 'POST', `/console/api/asset-groups/${cats}/bind`, { key }, csrf);

    const foreign = await bind('globex-bot');
    assert.deepEqual([foreign.status, (foreign.json['error'] as { param: string }).param], [400, 'key'], 'another account\'s key');
    assert.equal((await bind('acme-old')).status, 400, 'a revoked key holds no groups');
    assert.equal((await bind('acme-new', false)).status, 403, 'a change needs the CSRF token');
    assert.equal((await call('operator', 'POST', '/console/api/asset-groups/no-such-group/bind', { key: 'acme-new' })).status, 404);
    assert.equal(byName((await list('operator', '?account=acme')).data, 'cats').bound, false, 'the refusals changed nothing');

    const bound = await bind('acme-new');
    assert.equal(bound.status, 200, JSON.stringify(bound.json));
    const fresh = keys['acme-new'] as { key: string; id: string };
    assert.deepEqual([bound.json['id'], bound.json['bound'], bound.json['key']], [cats, true, { id: fresh.id, name: 'acme-new' }]);
    const shown = byName((await list('ada')).data, 'cats');
    assert.deepEqual([shown.bound, shown.key], [true, { id: fresh.id, name: 'acme-new' }], 'the user sees it on the new key');

    const read = await action(fresh.key, 'GetAssetGroup', { Id: cats });
    assert.deepEqual([read.status, (read.json['Result'] as { Id: string }).Id], [200, cats]);
    assert.equal((await action(fresh.key, 'GetAsset', { Id: assets['cat'] })).status, 200, 'and its assets');
    assert.equal((await action(old.key, 'GetAssetGroup', { Id: cats })).status, 401, 'the old key is revoked');
    assert.equal((await action(ACME_BOT, 'GetAssetGroup', { Id: cats })).status, 404, 'another key of the account is not its owner');
    assert.equal((await action(GLOBEX_BOT, 'GetAsset', { Id: assets['cat'] })).status, 404);
  });
});
