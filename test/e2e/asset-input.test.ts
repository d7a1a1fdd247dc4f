// Bad input to the asset library over real HTTP: each refused with 400 in Volcengine's envelope, its code naming the
// field (`InvalidParameter.<Field>`, `MissingParameter.<Field>`), its message saying what is wrong (the right
// spelling of a misspelled field, the allowed values, why a URL is refused), and the control plane never called.
// URL refusals are made by a key that owns a real group, so that what is refused is the URL and nothing else.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ALICE, AK, assetConfig, errorOf, SK, startAssetGateway, testResolver, type AssetAnswer, type AssetGateway } from '../helpers/asset-gateway.js';
import { startFakeVolcengine } from '../helpers/fake-volcengine.js';
import { startGatewayUnderTest } from '../helpers/gateway-under-test.js';

describe('asset library: bad input is refused before the control plane hears of it', () => {
  let t: AssetGateway;
  let groupId = '';
  before(async () => {
    t = await startAssetGateway();
    groupId = String((await t.result(ALICE, 'CreateAssetGroup', { Name: 'inputs' }))['Id']);
  });
  after(async () => {
    await t.stop();
  });

  /** `action` with `body` answers `status` with `code`, a message matching `message`, in the envelope; no upstream call. */
  async function refused(action: string, body: unknown, status: number, code: string, message: RegExp): Promise<AssetAnswer> {
    const calls = t.fake.calls.length;
    const answer = await t.call(ALICE, action, body);
    const what = `${action} ${typeof body === 'string' ? body.slice(0, 80) : JSON.stringify(body).slice(0, 120)}`;
    assert.equal(answer.status, status, `${what}: ${answer.text.slice(0, 300)}`);
    assert.equal(errorOf(answer).Code, code, what);
    assert.match(errorOf(answer).Message, message, what);
    const metadata = answer.body['ResponseMetadata'] as Record<string, unknown>;
    assert.equal(metadata['RequestId'], answer.headers.get('x-request-id'), what);
    assert.equal(metadata['Action'], action, what);
    assert.equal(answer.body['Result'], undefined, what);
    assert.equal(t.fake.calls.length, calls, `${what}: no upstream call (${t.fake.calls.slice(calls).map((c) => c.action).join(', ')})`);
    return answer;
  }

  it('a misspelled field is refused, naming the spelling meant', async () => {
    const image = { URL: 'https://example.com/a.png', AssetType: 'Image' };
    await refused('CreateAsset', Object.assign({ group_id: groupId }, image), 400, 'InvalidParameter.group_id', /Unknown field "group_id".*spelled "GroupId"/);
    await refused('CreateAsset', Object.assign({ GroupID: groupId }, image), 400, 'InvalidParameter.GroupID', /Unknown field "GroupID".*spelled "GroupId"/);
    await refused('CreateAsset', Object.assign({ GroupId: groupId, url: 'https://example.com/a.png', AssetType: 'Image' }), 400, 'InvalidParameter.url', /spelled "URL"/);
    await refused('GetAssetGroup', { id: groupId }, 400, 'InvalidParameter.id', /spelled "Id"/);
    await refused('UpdateAssetGroup', { Id: groupId, name: 'x' }, 400, 'InvalidParameter.name', /spelled "Name"/);
    await refused('ListAssetGroups', { Page: 2 }, 400, 'InvalidParameter.Page', /Unknown field "Page".*spelled "PageNumber"/);
    await refused('ListAssets', { page_size: 10 }, 400, 'InvalidParameter.page_size', /spelled "PageSize"/);
    await refused('ListAssetGroups', { Filter: { GroupID: [groupId] } }, 400, 'InvalidParameter.Filter.GroupID', /Unknown field "GroupID" in Filter.*spelled "GroupIds"/);
    await refused('ListAssets', { Filter: { group_ids: [groupId] } }, 400, 'InvalidParameter.Filter.group_ids', /in Filter.*spelled "GroupIds"/);
    // Nothing like any field: the message lists those there are.
    await refused('GetAsset', { Id: 'asset-x', Zzzzzzzzzz: 1 }, 400, 'InvalidParameter.Zzzzzzzzzz', /the fields here are Id, ProjectName/);
  });

  it('a missing required field is MissingParameter.<Field>', async () => {
    await refused('CreateAssetGroup', {}, 400, 'MissingParameter.Name', /Name is required/);
    await refused('CreateAssetGroup', { Description: 'no name' }, 400, 'MissingParameter.Name', /Name is required/);
    await refused('CreateAsset', { URL: 'https://example.com/a.png', AssetType: 'Image' }, 400, 'MissingParameter.GroupId', /GroupId is required/);
    await refused('CreateAsset', { GroupId: groupId, URL: 'https://example.com/a.png' }, 400, 'MissingParameter.AssetType', /AssetType is required/);
    await refused('CreateAsset', { GroupId: groupId, AssetType: 'Image' }, 400, 'MissingParameter.URL', /URL is required/);
    await refused('GetAssetGroup', {}, 400, 'MissingParameter.Id', /Id is required/);
    await refused('UpdateAsset', { Id: 'asset-x' }, 400, 'MissingParameter.Name', /Name is required/);
  });

  it('a value out of its enum, type or bounds is InvalidParameter.<Field>', async () => {
    await refused('CreateAsset', { GroupId: groupId, URL: 'https://example.com/a.png', AssetType: 'image' }, 400, 'InvalidParameter.AssetType', /Image, Video \(case-sensitive\)/);
    await refused('CreateAsset', { GroupId: groupId, URL: 'https://example.com/a.png', AssetType: 'Audio' }, 400, 'InvalidParameter.AssetType', /Image, Video/);
    for (const action of ['ListAssetGroups', 'ListAssets']) {
      await refused(action, { PageSize: 101 }, 400, 'InvalidParameter.PageSize', /PageSize.*100/);
      await refused(action, { PageSize: 0 }, 400, 'InvalidParameter.PageSize', /PageSize.*1/);
      await refused(action, { PageNumber: 0 }, 400, 'InvalidParameter.PageNumber', /PageNumber.*1/);
      await refused(action, { PageNumber: 1.5 }, 400, 'InvalidParameter.PageNumber', /PageNumber must be integer/);
      await refused(action, { PageSize: '20' }, 400, 'InvalidParameter.PageSize', /PageSize must be integer/);
      await refused(action, { Filter: { GroupIds: groupId } }, 400, 'InvalidParameter.Filter.GroupIds', /Filter\.GroupIds must be array/);
      await refused(action, { Filter: 'all' }, 400, 'InvalidParameter.Filter', /Filter must be object/);
      await refused(action, { SortOrder: 'desc' }, 400, 'InvalidParameter.SortOrder', /Desc, Asc \(case-sensitive\)/);
    }
    await refused('ListAssets', { Filter: { Statuses: ['active'] } }, 400, 'InvalidParameter.Filter.Statuses[0]', /Active, Processing, Failed/);
    await refused('CreateAssetGroup', { Name: '' }, 400, 'InvalidParameter.Name', /Name/);
    await refused('CreateAssetGroup', { Name: 'n'.repeat(65) }, 400, 'InvalidParameter.Name', /64/);
    await refused('GetAssetGroup', { Id: 42 }, 400, 'InvalidParameter.Id', /Id must be string/);
  });

  it('every kind of refused URL: InvalidParameter.URL, 400, a message naming the reason, for a group the key owns', async () => {
    const cases: readonly (readonly [string, RegExp])[] = [
      ['http://example.com/a.png', /must use https:\/\//],
      ['data:image/png;base64,iVBORw0KGgo=', /data: URI/],
      ['file:///etc/passwd', /local file/],
      ['https://user:pw@example.com/a.png', /credentials/],
      ['https://127.0.0.1/a.png', /127\.0\.0\.1, which is not a public address/],
      ['https://10.0.0.1/a.png', /10\.0\.0\.1, which is not a public address/],
      ['https://[::1]/a.png', /::1, which is not a public address/],
      ['https://169.254.169.254/latest/meta-data', /169\.254\.169\.254, which is not a public address.*metadata/],
      ['https://cdn.internal-test/a.png', /cdn\.internal-test resolves to a non-public address/],
      ['https://x.unresolvable-test/a.png', /x\.unresolvable-test could not be resolved/],
      [`https://example.com/${'a'.repeat(2049 - 'https://example.com/'.length)}`, /longer than 2048 characters/],
      // Beyond the list asked for: other spellings of the same places.
      ['https://[::ffff:127.0.0.1]/a.png', /not a public address/],
      ['https://0x7f000001/a.png', /127\.0\.0\.1, which is not a public address/],
      ['https://localhost/a.png', /local name/],
      ['https://example.com\\@10.0.0.1/a.png', /backslash/],
      ['iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', /base64 content/],
      ['', /public https:\/\/ link/],
      ['not a url', /whitespace/],
      ['example.com/a.png', /not a valid URL/],
    ];
    assert.equal((cases[10] as readonly [string, RegExp])[0].length, 2049);
    for (const [url, message] of cases) {
      await refused('CreateAsset', { GroupId: groupId, URL: url, AssetType: 'Image' }, 400, 'InvalidParameter.URL', message);
    }
    // The longest accepted is accepted: the bound is 2048, not less.
    const longest = `https://example.com/${'a'.repeat(2048 - 'https://example.com/'.length)}`;
    const calls = t.fake.calls.length;
    const made = await t.call(ALICE, 'CreateAsset', { GroupId: groupId, URL: longest, AssetType: 'Image' });
    assert.equal(made.status, 200, made.text);
    assert.equal(t.fake.calls.length, calls + 1);
    assert.equal(t.fake.calls.at(-1)?.body['URL'], longest);
  });

  it('a body that is JSON but no object, or no JSON at all, is refused in the envelope', async () => {
    for (const body of ['[]', '[{"Name":"x"}]', 'null', '"Name"', '42', 'true']) {
      await refused('CreateAssetGroup', body, 400, 'InvalidParameter', /must be a JSON object/);
    }
    await refused('CreateAssetGroup', '{"Name":', 400, 'InvalidParameter', /not valid JSON/);
  });
});

describe('asset library: a body over server.body_limit', () => {
  it('is refused with 413 in the envelope, and the control plane never hears of it', async () => {
    const fake = await startFakeVolcengine({ accessKeyId: AK, secretAccessKey: SK });
    const gw = await startGatewayUnderTest(assetConfig(fake.url).replace('  admin_token:', '  body_limit: 4096\n  admin_token:'), { resolveHost: testResolver });
    try {
      const post = (body: string): Promise<Response> =>
        fetch(`${gw.url}/v1/videogen/asset/CreateAssetGroup`, { method: 'POST', headers: { authorization: `Bearer ${ALICE}`, 'content-type': 'application/json' }, body });
      // Just under the limit is served (the limit is the configured one, not some other).
      const fits = await post(JSON.stringify({ Name: 'fits', Description: 'd'.repeat(200) }));
      assert.equal(fits.status, 200, await fits.text());
      const calls = fake.calls.length;
      const big = await post(JSON.stringify({ Name: 'big', Description: 'd'.repeat(5000) }));
      const text = await big.text();
      assert.equal(big.status, 413, text);
      const body = JSON.parse(text) as Record<string, unknown>;
      const metadata = body['ResponseMetadata'] as Record<string, unknown>;
      assert.equal((metadata['Error'] as Record<string, unknown>)['Code'], 'RequestEntityTooLarge');
      assert.match(String((metadata['Error'] as Record<string, unknown>)['Message']), /larger than this gateway accepts/);
      assert.equal(metadata['RequestId'], big.headers.get('x-request-id'));
      assert.equal(metadata['Action'], 'CreateAssetGroup');
      assert.equal(fake.calls.length, calls);
    } finally {
      await gw.stop();
      await fake.close();
    }
  });
});
