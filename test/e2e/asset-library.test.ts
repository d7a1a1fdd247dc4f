// The asset library over real HTTP against a fake Volcengine control plane that checks every signature with the
// official SDK's signer: the whole flow (groups, Image and Video assets turning Active, paging, updates), the
// envelope with the gateway's request id on success and on every error the gateway gives itself, and an
// upstream's refusal passed through with its code but without the operator's AK, project or account.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createVolcengineLibrary } from '../../features/assets/control-plane.js';
import { ALICE, AK, BOB, errorOf, PROJECT, SK, startAssetGateway, TEST_KEY, type AssetGateway } from '../helpers/asset-gateway.js';
import { startFakeVolcengine } from '../helpers/fake-volcengine.js';
import { startGatewayUnderTest } from '../helpers/gateway-under-test.js';
import { assetConfig, testResolver } from '../helpers/asset-gateway.js';
import { until } from '../helpers/poll.js';
import { ASSET_STORE } from '../../features/assets/store-part.js';

describe('asset library: the flow against a signed control plane', () => {
  let t: AssetGateway;
  before(async () => {
    t = await startAssetGateway({ processingMs: 300 });
  });
  after(async () => {
    await t.stop();
  });

  it('creates a group, Image and Video assets, gets, lists with paging, updates; every call signed, in the channel project', async () => {
    const created = await t.call(ALICE, 'CreateAssetGroup', { Name: 'cats', Description: 'my cats' });
    assert.equal(created.status, 200, created.text);
    const metadata = created.body['ResponseMetadata'] as Record<string, unknown>;
    assert.equal(metadata['RequestId'], created.headers.get('x-request-id'));
    assert.equal(metadata['Action'], 'CreateAssetGroup');
    assert.equal(metadata['Version'], '2024-01-01');
    const groupId = (created.body['Result'] as Record<string, unknown>)['Id'] as string;
    assert.match(groupId, /^group-/);

    const image = await t.result(ALICE, 'CreateAsset', { GroupId: groupId, URL: 'https://example.com/cat.png', AssetType: 'Image', Name: 'cat' });
    const video = await t.result(ALICE, 'CreateAsset', { GroupId: groupId, URL: 'https://cdn.example.com/cat.mp4', AssetType: 'Video' });
    assert.match(String(image['Id']), /^asset-/);
    assert.notEqual(image['Id'], video['Id']);

    const processing = await t.result(ALICE, 'GetAsset', { Id: image['Id'] });
    assert.equal(processing['Status'], 'Processing');
    assert.equal(processing['GroupId'], groupId);
    assert.equal(processing['AssetType'], 'Image');
    assert.equal(processing['ProjectName'], undefined, 'the operator project never reaches a caller');
    await until('the image to turn Active', async () => ((await t.result(ALICE, 'GetAsset', { Id: image['Id'] }))['Status'] === 'Active' ? true : undefined), {
      timeoutMs: 5000,
      intervalMs: 50,
    });
    // The store keeps the library's latest word (video tasks read it).
    assert.equal((await t.gw.gateway.runtime.deps.store.part(ASSET_STORE).asset(String(image['Id'])))?.status, 'Active');

    const group = await t.result(ALICE, 'GetAssetGroup', { Id: groupId });
    assert.equal(group['Name'], 'cats');
    assert.equal(group['Description'], 'my cats');
    assert.equal(group['ProjectName'], undefined);

    const first = await t.result(ALICE, 'ListAssets', { Filter: { GroupIds: [groupId] }, PageNumber: 1, PageSize: 1 });
    const second = await t.result(ALICE, 'ListAssets', { Filter: { GroupIds: [groupId] }, PageNumber: 2, PageSize: 1 });
    assert.equal(first['TotalCount'], 2);
    assert.equal(first['PageNumber'], 1);
    assert.equal(first['PageSize'], 1);
    const listed = [...(first['Items'] as Record<string, unknown>[]), ...(second['Items'] as Record<string, unknown>[])].map((a) => a['Id']).sort();
    assert.deepEqual(listed, [image['Id'], video['Id']].sort());
    const onlyVideos = await t.result(ALICE, 'ListAssets', { Filter: { Name: '', Statuses: ['Processing', 'Active'] } });
    assert.equal(onlyVideos['TotalCount'], 2);
    assert.equal(onlyVideos['PageSize'], 20, 'PageSize defaults to 20');

    await t.result(ALICE, 'UpdateAssetGroup', { Id: groupId, Name: 'felines' });
    await t.result(ALICE, 'UpdateAsset', { Id: image['Id'], Name: 'tabby' });
    assert.equal((await t.result(ALICE, 'GetAssetGroup', { Id: groupId }))['Name'], 'felines');
    assert.equal((await t.result(ALICE, 'GetAsset', { Id: image['Id'] }))['Name'], 'tabby');
    const groups = await t.result(ALICE, 'ListAssetGroups', { Filter: { Name: 'FELINE' } });
    assert.deepEqual(
      (groups['Items'] as Record<string, unknown>[]).map((g) => g['Id']),
      [groupId],
    );

    assert.ok(t.fake.calls.length >= 10);
    assert.ok(t.fake.calls.every((c) => c.signed), 'every call carried a valid signature');
    assert.ok(t.fake.calls.every((c) => c.body['ProjectName'] === PROJECT));
    // A list is never sent without the caller's own GroupIds.
    for (const c of t.fake.calls.filter((call) => call.action.startsWith('List'))) {
      const ids = (c.body['Filter'] as Record<string, unknown>)['GroupIds'] as unknown[];
      assert.ok(Array.isArray(ids) && ids.length > 0, `${c.action} sent GroupIds`);
    }
  });

  it('answers the gateway own errors in the envelope: 401, 404, 400 with codes of Volcengine', async () => {
    const none = await t.call(null, 'ListAssetGroups');
    assert.equal(none.status, 401);
    assert.equal(errorOf(none).Code, 'MissingAuthenticationToken');
    assert.equal((none.body['ResponseMetadata'] as Record<string, unknown>)['RequestId'], none.headers.get('x-request-id'));
    const bad = await t.call('sk-not-a-key-0123456789abcdef', 'ListAssetGroups');
    assert.equal(bad.status, 401);
    assert.equal(errorOf(bad).Code, 'InvalidAuthenticationToken');
    const unknown = await t.call(ALICE, 'DeleteAssetGroup', { Id: 'group-x' });
    assert.equal(unknown.status, 404);
    assert.equal(errorOf(unknown).Code, 'InvalidActionOrVersion');
    assert.match(errorOf(unknown).Message, /CreateAssetGroup/);
    assert.equal((unknown.body['ResponseMetadata'] as Record<string, unknown>)['Action'], 'DeleteAssetGroup');
    const notJson = await t.call(ALICE, 'ListAssetGroups', 'not json');
    assert.equal(notJson.status, 400);
    assert.equal(errorOf(notJson).Code, 'InvalidParameter');
    const missing = await t.call(ALICE, 'GetAssetGroup', { Id: 'group-20260101000000-zzzzz' });
    assert.equal(missing.status, 404);
    assert.deepEqual(errorOf(missing), { Code: 'NotFound.group_id', Message: 'The specified asset_group group-20260101000000-zzzzz is not found.' });
    const wrongMethod = await fetch(`${t.gw.url}/v1/videogen/asset/ListAssets`, { headers: { authorization: `Bearer ${ALICE}` } });
    assert.equal(wrongMethod.status, 405);
  });

  it('passes an upstream refusal through with its code and status, scrubbed of the AK, project and account id', async () => {
    const groupId = String((await t.result(TEST_KEY, 'CreateAssetGroup', { Name: 'scrub' }))['Id']);
    t.fake.failNext('GetAssetGroup', 403, 'SubscriptionRequired', `Project ${PROJECT} of account 2100123456 (${AK}) needs the creation plan.`);
    const refused = await t.call(TEST_KEY, 'GetAssetGroup', { Id: groupId });
    assert.equal(refused.status, 403);
    const error = errorOf(refused);
    assert.equal(error.Code, 'SubscriptionRequired');
    assert.match(error.Message, /needs the creation plan/);
    for (const secret of [PROJECT, '2100123456', AK, SK]) assert.ok(!refused.text.includes(secret), `the answer does not hold ${secret}`);
    t.fake.failNext('GetAssetGroup', 500, 'InternalError', 'boom');
    const broken = await t.call(TEST_KEY, 'GetAssetGroup', { Id: groupId });
    assert.equal(broken.status, 502);
    assert.equal(errorOf(broken).Code, 'InternalError');
  });
});

describe('asset library: what the library does behind the caller', () => {
  let t: AssetGateway;
  before(async () => {
    t = await startAssetGateway({ processingMs: 50 });
  });
  after(async () => {
    await t.stop();
  });

  it('refuses a 2xx that carries an error, shows a Failed asset its own error without the operator ids', async () => {
    const groupId = String((await t.result(ALICE, 'CreateAssetGroup', { Name: 'behind' }))['Id']);
    t.fake.failNext('GetAssetGroup', 200, 'InternalError', 'half done');
    const odd = await t.call(ALICE, 'GetAssetGroup', { Id: groupId });
    assert.equal(odd.status, 502);
    assert.equal(errorOf(odd).Code, 'InternalError');
    const failing = await t.result(ALICE, 'CreateAsset', { GroupId: groupId, URL: 'https://example.com/download-fails.png', AssetType: 'Image' });
    const failed = await until(
      'the asset to fail',
      async () => {
        const record = await t.result(ALICE, 'GetAsset', { Id: failing['Id'] });
        return record['Status'] === 'Failed' ? record : undefined;
      },
      { timeoutMs: 5000, intervalMs: 50 },
    );
    assert.equal((failed['Error'] as Record<string, unknown>)['Code'], 'DownloadFailed');
    const documented = ['AssetType', 'CreateTime', 'Error', 'GroupId', 'Id', 'Name', 'Status', 'URL', 'UpdateTime'];
    for (const field of Object.keys(failed)) assert.ok(documented.includes(field), `${field} is a documented field`);
    assert.equal(failed['ProjectName'], undefined);
  });

  it('records an asset the library made while its answer was lost, once a list shows it in the caller group', async () => {
    const groupId = String((await t.result(ALICE, 'CreateAssetGroup', { Name: 'lost answers' }))['Id']);
    // The library made it (as it would have, had the gateway's call timed out after it was sent).
    const direct = createVolcengineLibrary({ control: { url: t.fake.url, region: 'cn-beijing', accessKeyId: AK, secretAccessKey: SK, projectName: PROJECT }, timeoutMs: 5000 });
    const made = await direct.call('CreateAsset', { GroupId: groupId, URL: 'https://example.com/orphan.png', AssetType: 'Image' });
    await direct.close();
    const orphan = String((made.body['Result'] as Record<string, unknown>)['Id']);
    assert.equal((await t.call(ALICE, 'GetAsset', { Id: orphan })).status, 404, 'unknown to the gateway until seen');
    const listed = await t.result(ALICE, 'ListAssets', { Filter: { GroupIds: [groupId] } });
    assert.deepEqual((listed['Items'] as Record<string, unknown>[]).map((item) => item['Id']), [orphan]);
    assert.equal((await t.result(ALICE, 'GetAsset', { Id: orphan }))['GroupId'], groupId);
    assert.equal((await t.call(BOB, 'GetAsset', { Id: orphan })).status, 404);
  });
});

describe('asset library: a wrong secret key', () => {
  it('gets SignatureDoesNotMatch from the control plane, answered as the gateway upstream failure (not a 401 of the caller)', async () => {
    const fake = await startFakeVolcengine({ accessKeyId: AK, secretAccessKey: 'another-secret-key-0123456789' });
    const gw = await startGatewayUnderTest(assetConfig(fake.url), { resolveHost: testResolver });
    try {
      const answer = await fetch(`${gw.url}/v1/videogen/asset/CreateAssetGroup`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ALICE}`, 'content-type': 'application/json' },
        body: JSON.stringify({ Name: 'x' }),
      });
      const body = (await answer.json()) as Record<string, unknown>;
      assert.equal(answer.status, 502);
      assert.equal(((body['ResponseMetadata'] as Record<string, unknown>)['Error'] as Record<string, unknown>)['Code'], 'SignatureDoesNotMatch');
      assert.equal(fake.calls.length, 1);
      assert.equal(fake.calls[0]?.signed, false);
      assert.ok(!JSON.stringify(body).includes(AK));
    } finally {
      await gw.stop();
      await fake.close();
    }
  });
});

describe('asset library: several libraries', () => {
  it('puts a new group in the first healthy library by priority, keeps each group with its library, and lists across them', async () => {
    const high = await startFakeVolcengine({ accessKeyId: AK, secretAccessKey: SK, processingMs: 0 });
    const low = await startFakeVolcengine({ accessKeyId: AK, secretAccessKey: SK, processingMs: 0 });
    const channel = (name: string, url: string, priority: number): string => `  - name: ${name}
    type: volcengine
    base_url: https://ark.cn-beijing.volces.com/api/v3
    keys: ["ark-data-plane-key-0123456789"]
    control: { url: ${url}, region: cn-beijing, access_key_id: ${AK}, secret_access_key: ${SK} }
    models: ["doubao-seedance-*"]
    priority: ${priority}
    cooldown_ms: 60000
    assets: true
`;
    const yaml = assetConfig(high.url).replace(/channels:\n[\s\S]*$/, `channels:\n${channel('ark-high', high.url, 10)}${channel('ark-low', low.url, 0)}`);
    const gw = await startGatewayUnderTest(yaml, { resolveHost: testResolver });
    const call = async (action: string, body: unknown): Promise<{ status: number; result: Record<string, unknown> }> => {
      const answer = await fetch(`${gw.url}/v1/videogen/asset/${action}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      const json = (await answer.json()) as Record<string, unknown>;
      return { status: answer.status, result: (json['Result'] ?? {}) as Record<string, unknown> };
    };
    try {
      const first = String((await call('CreateAssetGroup', { Name: 'first' })).result['Id']);
      assert.ok(high.groups.has(first), 'the higher priority library took the first group');
      // The high library fails once: it cools down, and the next group goes to the low one.
      high.failNext('CreateAssetGroup', 500, 'InternalError', 'down');
      assert.equal((await call('CreateAssetGroup', { Name: 'lost' })).status, 502);
      // The library cools down, not the channel: its data plane stays in model routing.
      const health = gw.gateway.runtime.current.services.router.health;
      assert.deepEqual([health.isCooling('asset:ark-high'), health.isCooling('ark-high')], [true, false]);
      const second = String((await call('CreateAssetGroup', { Name: 'second' })).result['Id']);
      assert.ok(low.groups.has(second));
      // Calls about a group go to its library, the cooling one included.
      const inHigh: string[] = [];
      for (let i = 0; i < 3; i++) inHigh.push(String((await call('CreateAsset', { GroupId: first, URL: `https://example.com/${i}.png`, AssetType: 'Image' })).result['Id']));
      const inLow: string[] = [];
      for (let i = 0; i < 2; i++) inLow.push(String((await call('CreateAsset', { GroupId: second, URL: `https://example.com/l${i}.png`, AssetType: 'Image' })).result['Id']));
      assert.deepEqual([...high.assets.keys()].sort(), [...inHigh].sort());
      assert.deepEqual([...low.assets.keys()].sort(), [...inLow].sort());
      const pages = [];
      for (let number = 1; number <= 3; number++) pages.push((await call('ListAssets', { PageNumber: number, PageSize: 2 })).result);
      assert.deepEqual(pages.map((p) => p['TotalCount']), [5, 5, 5]);
      assert.deepEqual(pages.map((p) => (p['Items'] as unknown[]).length), [2, 2, 1]);
      const listed = pages.flatMap((p) => (p['Items'] as Record<string, unknown>[]).map((item) => String(item['Id'])));
      assert.deepEqual(listed.slice(0, 3).sort(), [...inHigh].sort(), 'the high library first');
      assert.deepEqual(listed.slice(3).sort(), [...inLow].sort());
      const groups = (await call('ListAssetGroups', {})).result;
      assert.equal(groups['TotalCount'], 2);
    } finally {
      await gw.stop();
      await high.close();
      await low.close();
    }
  });
});
