// Money and ownership of the asset library over real HTTP: a metered key pays exactly the CreateAsset price per
// registered asset through the ledger (402 with no upstream call when short; refunded when the library refuses); a
// usage record per call; limits and access settings apply as on the model endpoints. A revoked key's groups are
// unbound, and the operator rebinds them to a new key of the same account (admin API and CLI), for it and no one else.

import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import { auditBooks } from '../../core/money/audit.js';
import { ALICE, ASSET_PRICE, BOB, BROKE, errorOf, startAssetGateway, TEST_KEY, type AssetGateway } from '../helpers/asset-gateway.js';
import { cliEnv, runCli } from '../helpers/cli-process.js';
import { ASSET_STORE } from '../../features/assets/store-part.js';

const IMAGE = { URL: 'https://example.com/cat.png', AssetType: 'Image' };

describe('asset library: charges, limits and ownership', () => {
  let t: AssetGateway;
  // Charges are written with their usage records: flushed first.
  const balance = async (account: string): Promise<string> => {
    await t.gw.gateway.runtime.deps.writer.flush();
    return String((await t.admin('GET', `/admin/accounts/${account}`)).body['balance']);
  };
  const newKey = async (body: Record<string, unknown>): Promise<{ id: string; key: string }> => {
    const made = await t.admin('POST', '/admin/keys', body);
    assert.equal(made.status, 201, made.text);
    return { id: String(made.body['id']), key: String(made.body['key']) };
  };
  before(async () => {
    t = await startAssetGateway();
  });
  after(async () => {
    await t.stop();
  });

  it('charges a metered key the CreateAsset price per asset, nothing for a refused one, 402 with no call when short', async () => {
    const groupId = String((await t.result(ALICE, 'CreateAssetGroup', { Name: 'paid' }))['Id']);
    assert.equal(await balance('acme'), '1', 'a group costs nothing');
    for (let i = 0; i < 3; i++) await t.result(ALICE, 'CreateAsset', Object.assign({ GroupId: groupId }, IMAGE));
    assert.equal(await balance('acme'), '0.994');

    // The library refuses: the reservation goes back.
    t.fake.failNext('CreateAsset', 500, 'InternalError', 'storage unavailable');
    const broken = await t.call(ALICE, 'CreateAsset', Object.assign({ GroupId: groupId }, IMAGE));
    assert.equal(broken.status, 502);
    t.fake.failNext('CreateAsset', 400, 'InvalidParameter.URL', 'the URL cannot be downloaded');
    const refused = await t.call(ALICE, 'CreateAsset', Object.assign({ GroupId: groupId }, IMAGE));
    assert.equal(refused.status, 400);
    assert.equal(errorOf(refused).Code, 'InvalidParameter.URL');
    assert.equal(await balance('acme'), '0.994');

    // No balance: 402 in the envelope, and the library never hears of it.
    const brokeGroup = String((await t.result(BROKE, 'CreateAssetGroup', { Name: 'unpaid' }))['Id']);
    const calls = t.fake.calls.length;
    const short = await t.call(BROKE, 'CreateAsset', Object.assign({ GroupId: brokeGroup }, IMAGE));
    assert.equal(short.status, 402);
    assert.equal(errorOf(short).Code, 'InsufficientBalance');
    assert.equal(t.fake.calls.length, calls);

    // An unmetered key is served; its cost is recorded, not charged.
    const freeGroup = String((await t.result(TEST_KEY, 'CreateAssetGroup', { Name: 'free' }))['Id']);
    await t.result(TEST_KEY, 'CreateAsset', Object.assign({ GroupId: freeGroup }, IMAGE));

    const records = (await t.gw.usage()).filter((r) => r.model === 'videogen.asset.CreateAsset');
    const alice = records.filter((r) => r.keyName === 'alice');
    assert.equal(alice.length, 5);
    assert.deepEqual(alice.map((r) => [r.status, r.cost]).sort(), [[200, ASSET_PRICE], [200, ASSET_PRICE], [200, ASSET_PRICE], [400, 0n], [502, 0n]].sort());
    assert.ok(alice.every((r) => r.route === '/v1/videogen/asset/{action}' && r.account === 'acme' && r.channel === 'ark'));
    const free = records.find((r) => r.keyName === 'free');
    assert.equal(free?.cost, ASSET_PRICE);
    assert.equal(free?.account, undefined);
    const group = (await t.gw.usage()).find((r) => r.model === 'videogen.asset.CreateAssetGroup' && r.keyName === 'alice');
    assert.equal(group?.cost ?? 0n, 0n);
    assert.deepEqual((await auditBooks(t.gw.gateway.runtime.deps.store)).problems, []);
  });

  it('holds asset calls to the key limits and access settings: 429 and 403 in the envelope', async () => {
    const limited = await newKey({ name: 'asset-limited', group: 'pro', limits: { rpm: 1 } });
    assert.equal((await t.call(limited.key, 'ListAssetGroups')).status, 200);
    const second = await t.call(limited.key, 'ListAssetGroups');
    assert.equal(second.status, 429);
    assert.equal(errorOf(second).Code, 'FlowLimitExceeded');
    assert.ok(second.headers.get('retry-after') !== null);
    const fenced = await newKey({ name: 'asset-fenced', group: 'pro', ips: ['10.0.0.0/8'] });
    const denied = await t.call(fenced.key, 'ListAssetGroups');
    assert.equal(denied.status, 403);
    assert.equal(errorOf(denied).Code, 'AccessDenied');
  });

  it('unbinds a revoked key groups; the operator rebinds them to a new key of the account, visible to it alone', async () => {
    const old = await newKey({ name: 'rotating-1', group: 'pro', account: 'acme' });
    const groupId = String((await t.result(old.key, 'CreateAssetGroup', { Name: 'rotated' }))['Id']);
    const assetId = String((await t.result(old.key, 'CreateAsset', Object.assign({ GroupId: groupId }, IMAGE)))['Id']);
    assert.equal((await t.admin('DELETE', `/admin/keys/${old.id}`)).status, 200);
    const stored = await t.gw.gateway.runtime.deps.store.part(ASSET_STORE).group(groupId);
    assert.equal(stored?.bound, false, 'revoking the key unbound its group');

    const next = await newKey({ name: 'rotating-2', group: 'pro', account: 'acme' });
    for (const key of [next.key, ALICE, BOB]) assert.equal((await t.call(key, 'GetAssetGroup', { Id: groupId })).status, 404);

    const wrongAccount = await t.admin('POST', `/admin/asset-groups/${groupId}/bind`, { key: 'bob' });
    assert.equal(wrongAccount.status, 400);
    assert.match(wrongAccount.text, /account acme/);
    const revokedTarget = await t.admin('POST', `/admin/asset-groups/${groupId}/bind`, { key: old.id });
    assert.equal(revokedTarget.status, 400);
    const bound = await t.admin('POST', `/admin/asset-groups/${groupId}/bind`, { key: next.id });
    assert.equal(bound.status, 200, bound.text);
    assert.equal(bound.body['key_id'], next.id);
    assert.equal(bound.body['bound'], true);

    assert.equal((await t.result(next.key, 'GetAssetGroup', { Id: groupId }))['Name'], 'rotated');
    assert.equal((await t.result(next.key, 'GetAsset', { Id: assetId }))['GroupId'], groupId);
    const listed = await t.result(next.key, 'ListAssetGroups');
    assert.deepEqual((listed['Items'] as Record<string, unknown>[]).map((g) => g['Id']), [groupId]);
    for (const key of [ALICE, BOB]) {
      assert.equal((await t.call(key, 'GetAssetGroup', { Id: groupId })).status, 404);
      assert.equal((await t.call(key, 'GetAsset', { Id: assetId })).status, 404);
    }

    const listedByAdmin = await t.admin('GET', `/admin/asset-groups?key=${encodeURIComponent(next.id)}`);
    assert.deepEqual((listedByAdmin.body['data'] as Record<string, unknown>[]).map((g) => g['id']), [groupId]);
  });

  it('lists and rebinds groups from the CLI', async () => {
    const one = await newKey({ name: 'cli-1', group: 'pro', account: 'other' });
    const groupId = String((await t.result(one.key, 'CreateAssetGroup', { Name: 'cli' }))['Id']);
    const env = cliEnv();
    const config = ['--config', t.gw.configPath];
    const listed = await runCli(['assets', 'groups', '--account', 'other', ...config], env);
    assert.equal(listed.code, 0, listed.stderr);
    assert.ok(listed.stdout.split('\n').some((line) => line.includes(groupId) && line.includes('"bound":true')), listed.stdout);
    const moved = await runCli(['assets', 'rebind', groupId, 'bob', ...config], env);
    assert.equal(moved.code, 0, moved.stderr);
    assert.equal((await t.result(BOB, 'GetAssetGroup', { Id: groupId }))['Id'], groupId);
    assert.equal((await t.call(one.key, 'GetAssetGroup', { Id: groupId })).status, 404);
    const refused = await runCli(['assets', 'rebind', groupId, 'alice', ...config], env);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /account other/);
  });
});

describe('asset library: bounds of ownership', () => {
  let t: AssetGateway;
  before(async () => {
    t = await startAssetGateway();
  });
  after(async () => {
    await t.stop();
  });

  it('lets one key hold 200 groups and no more', async () => {
    const made = await t.admin('POST', '/admin/keys', { name: 'hoarder', group: 'pro' });
    const key = String(made.body['key']);
    for (let i = 0; i < 200; i++) await t.result(key, 'CreateAssetGroup', { Name: `g${i}` });
    const calls = t.fake.calls.length;
    const refused = await t.call(key, 'CreateAssetGroup', { Name: 'one too many' });
    assert.equal(refused.status, 403);
    assert.equal(errorOf(refused).Code, 'QuotaExceeded.AssetGroups');
    assert.equal(t.fake.calls.length, calls);
    assert.equal((await t.result(key, 'ListAssetGroups', { PageSize: 1 }))['TotalCount'], 200);
  });

  it('does not give a declared key that moved to another account the groups it made before', async () => {
    const groupId = String((await t.result(TEST_KEY, 'CreateAssetGroup', { Name: 'before the move' }))['Id']);
    const text = await readFile(t.gw.configPath, 'utf8');
    await t.gw.writeConfig(text.replace('{ name: free, key: ', '{ name: free, account: other, key: '));
    assert.equal(await t.gw.gateway.reload(), true);
    assert.equal((await t.call(TEST_KEY, 'GetAssetGroup', { Id: groupId })).status, 404);
    assert.equal((await t.result(TEST_KEY, 'ListAssetGroups'))['TotalCount'], 0);
  });
});
