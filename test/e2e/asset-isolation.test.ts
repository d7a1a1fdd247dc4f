// Isolation of the asset library between keys, over real HTTP against the fake Volcengine control plane: a key that
// did not make a group (another account's key, or another key of the same account: ownership is per key) gets, for
// every action, the very answer a missing id gets (same status, headers, code and words once the id is swapped), and
// the library never hears of it; lists show only the caller's own, their pages and TotalCount count only those, and a
// Filter.GroupIds with nothing of the caller's is answered by the gateway (the library reads an empty one as "all").

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ALICE, ALICE_TWO, BOB, errorOf, startAssetGateway, type AssetAnswer, type AssetGateway } from '../helpers/asset-gateway.js';
import { until } from '../helpers/poll.js';
import { ASSET_STORE } from '../../features/assets/store-part.js';

const IMAGE = { URL: 'https://example.com/cat.png', AssetType: 'Image' };
/** Ids in the library's own format that nobody made. */
const MISSING_GROUP = 'group-20260101000000-zzzzz';
const MISSING_ASSET = 'asset-20260101000000-zzzzz';

/** Every string in `value` with `id` swapped for a placeholder. */
function swapped(value: unknown, id: string): unknown {
  if (typeof value === 'string') return value.replaceAll(id, '<id>');
  if (Array.isArray(value)) return value.map((v) => swapped(v, id));
  if (typeof value === 'object' && value !== null) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, swapped(v, id)]));
  return value;
}

/** What a caller can tell from an answer, but for its request id (which differs per request) and `id`. */
function shape(answer: AssetAnswer, id: string): unknown {
  const body = JSON.parse(answer.text) as Record<string, unknown>;
  const metadata = Object.assign({}, body['ResponseMetadata'] as Record<string, unknown>);
  delete metadata['RequestId'];
  const headers = [...answer.headers.keys()].filter((name) => !['date', 'x-request-id'].includes(name)).sort();
  return swapped({ status: answer.status, headers, contentType: answer.headers.get('content-type'), body: Object.assign({}, body, { ResponseMetadata: metadata }) }, id);
}

function ids(result: Record<string, unknown>): string[] {
  return (result['Items'] as Record<string, unknown>[]).map((item) => String(item['Id']));
}

describe('asset isolation: another key reaches nothing of a key, for every action', () => {
  let t: AssetGateway;
  let aliceGroup = '';
  let aliceAsset = '';
  let bobGroup = '';
  let bobAsset = '';
  const balance = async (account: string): Promise<string> => String((await t.admin('GET', `/admin/accounts/${account}`)).body['balance']);
  /**
   * The CreateAsset usage records of key `name`, once there are `count`: a charge reaches the ledger with its usage
   * record, written after the answer was sent, so balances are read only once the records are in.
   */
  const createRecords = (name: string, count: number) =>
    until(
      `${count} CreateAsset records of ${name}`,
      async () => {
        const records = (await t.gw.usage()).filter((r) => r.model === 'videogen.asset.CreateAsset' && r.keyName === name);
        return records.length >= count ? records : undefined;
      },
      { timeoutMs: 5000, intervalMs: 20 },
    );

  /**
   * `key` calls `action` twice, once with `foreignId` (someone else's) and once with `missingId` (nobody's): both answers
   * are the same not-found, and the library is called for neither.
   */
  async function refusedLikeMissing(key: string, action: string, body: (id: string) => unknown, foreignId: string, missingId: string, code: string): Promise<void> {
    const calls = t.fake.calls.length;
    const foreign = await t.call(key, action, body(foreignId));
    const missing = await t.call(key, action, body(missingId));
    assert.equal(t.fake.calls.length, calls, `${action}: the library never hears of a refused call (${t.fake.calls.slice(calls).map((c) => c.action).join(', ')})`);
    assert.equal(foreign.status, 404, `${action}: ${foreign.text}`);
    const kind = code === 'NotFound.group_id' ? 'asset_group' : 'asset';
    assert.deepEqual(errorOf(foreign), { Code: code, Message: `The specified ${kind} ${foreignId} is not found.` });
    assert.deepEqual(shape(foreign, foreignId), shape(missing, missingId), `${action}: someone else's id is answered exactly as a missing one`);
    const metadata = foreign.body['ResponseMetadata'] as Record<string, unknown>;
    assert.equal(metadata['RequestId'], foreign.headers.get('x-request-id'));
    assert.equal(metadata['Action'], action);
    assert.equal(foreign.body['Result'], undefined);
  }

  before(async () => {
    t = await startAssetGateway();
    aliceGroup = String((await t.result(ALICE, 'CreateAssetGroup', { Name: 'secret-plans', Description: 'alice only' }))['Id']);
    aliceAsset = String((await t.result(ALICE, 'CreateAsset', Object.assign({ GroupId: aliceGroup, Name: 'blueprint' }, IMAGE)))['Id']);
    bobGroup = String((await t.result(BOB, 'CreateAssetGroup', { Name: 'bob-stuff' }))['Id']);
    bobAsset = String((await t.result(BOB, 'CreateAsset', Object.assign({ GroupId: bobGroup, Name: 'bob-cat' }, IMAGE)))['Id']);
    await createRecords('alice', 1);
    await createRecords('bob', 1);
  });
  after(async () => {
    await t.stop();
  });

  for (const [who, intruder, name] of [
    ['a key of another account (BOB)', BOB, 'bob'],
    ['another key of the same account (ALICE_TWO)', ALICE_TWO, 'alice-two'],
  ] as const) {
    it(`${who}: Get/Update of the group and asset, CreateAsset into the group: not found, as a missing id, no upstream call`, async () => {
      const acmeBefore = await balance('acme');
      const otherBefore = await balance('other');
      const assetsBefore = t.fake.assets.size;
      const recordsBefore = (await createRecords(name, 0)).length;
      await refusedLikeMissing(intruder, 'GetAssetGroup', (id) => ({ Id: id }), aliceGroup, MISSING_GROUP, 'NotFound.group_id');
      await refusedLikeMissing(intruder, 'UpdateAssetGroup', (id) => ({ Id: id, Name: 'pwned', Description: 'pwned' }), aliceGroup, MISSING_GROUP, 'NotFound.group_id');
      await refusedLikeMissing(intruder, 'GetAsset', (id) => ({ Id: id }), aliceAsset, MISSING_ASSET, 'NotFound.asset_id');
      await refusedLikeMissing(intruder, 'UpdateAsset', (id) => ({ Id: id, Name: 'pwned' }), aliceAsset, MISSING_ASSET, 'NotFound.asset_id');
      await refusedLikeMissing(intruder, 'CreateAsset', (id) => Object.assign({ GroupId: id, Name: 'planted' }, IMAGE), aliceGroup, MISSING_GROUP, 'NotFound.group_id');
      // The group is judged before the URL: a URL that would be refused does not tell an existing group from a missing one.
      await refusedLikeMissing(intruder, 'CreateAsset', (id) => ({ GroupId: id, URL: 'https://10.0.0.1/a.png', AssetType: 'Image' }), aliceGroup, MISSING_GROUP, 'NotFound.group_id');
      // An asset id where a group id goes (and the reverse) is just as missing.
      await refusedLikeMissing(intruder, 'GetAssetGroup', (id) => ({ Id: id }), aliceAsset, MISSING_GROUP, 'NotFound.group_id');
      await refusedLikeMissing(intruder, 'GetAsset', (id) => ({ Id: id }), aliceGroup, MISSING_ASSET, 'NotFound.asset_id');

      // Nothing changed: no asset planted, names kept, no money moved for the refused CreateAssets.
      assert.equal(t.fake.assets.size, assetsBefore);
      assert.equal(t.fake.groups.get(aliceGroup)?.Name, 'secret-plans');
      assert.equal(t.fake.groups.get(aliceGroup)?.Description, 'alice only');
      assert.equal(t.fake.assets.get(aliceAsset)?.Name, 'blueprint');
      assert.equal((await t.result(ALICE, 'GetAssetGroup', { Id: aliceGroup }))['Name'], 'secret-plans');
      assert.equal((await t.result(ALICE, 'GetAsset', { Id: aliceAsset }))['Name'], 'blueprint');
      assert.equal((await t.gw.gateway.runtime.deps.store.part(ASSET_STORE).group(aliceGroup))?.name, 'secret-plans');
      // Four refused CreateAssets (two calls each of two checks), recorded at no cost.
      const records = await createRecords(name, recordsBefore + 4);
      assert.equal(records.length, recordsBefore + 4);
      assert.equal(records.filter((r) => r.status === 200).length, intruder === BOB ? 1 : 0, 'only its own asset of before()');
      assert.ok(
        records.filter((r) => r.status !== 200).every((r) => r.status === 404 && (r.cost ?? 0n) === 0n),
        JSON.stringify(records.map((r) => [r.status, String(r.cost)])),
      );
      assert.equal(await balance('acme'), acmeBefore);
      assert.equal(await balance('other'), otherBefore);
    });

    it(`${who}: lists never show the other key's records, and a Filter.GroupIds of only its ids never reaches the library`, async () => {
      const calls = t.fake.calls.length;
      for (const action of ['ListAssetGroups', 'ListAssets']) {
        for (const filter of [{ GroupIds: [aliceGroup] }, { GroupIds: [aliceGroup, MISSING_GROUP] }, { GroupIds: [aliceGroup], Name: 'secret' }]) {
          const listed = await t.call(intruder, action, { Filter: filter, PageNumber: 1, PageSize: 10 });
          assert.equal(listed.status, 200, listed.text);
          assert.deepEqual(listed.body['Result'], { Items: [], TotalCount: 0, PageNumber: 1, PageSize: 10 }, `${action} ${JSON.stringify(filter)}`);
        }
      }
      assert.equal(t.fake.calls.length, calls, 'an empty intersection is answered by the gateway (the library would read it as every group)');

      const groups = await t.result(intruder, 'ListAssetGroups', {});
      const assets = await t.result(intruder, 'ListAssets', {});
      const searched = await t.result(intruder, 'ListAssetGroups', { Filter: { Name: 'secret' } });
      assert.ok(!ids(groups).includes(aliceGroup) && !ids(assets).includes(aliceAsset) && ids(searched).length === 0);
      if (intruder === BOB) {
        assert.deepEqual(ids(groups), [bobGroup]);
        assert.equal(groups['TotalCount'], 1);
        assert.deepEqual(ids(assets), [bobAsset]);
        assert.equal(assets['TotalCount'], 1);
        // Its own beside someone else's in the filter: only its own is listed, and only its own is asked for.
        const mixed = t.fake.calls.length;
        const both = await t.result(BOB, 'ListAssets', { Filter: { GroupIds: [aliceGroup, bobGroup] } });
        assert.deepEqual(ids(both), [bobAsset]);
        assert.equal(both['TotalCount'], 1);
        const sent = t.fake.calls.slice(mixed);
        assert.equal(sent.length, 1);
        assert.deepEqual((sent[0]?.body['Filter'] as Record<string, unknown>)['GroupIds'], [bobGroup]);
      } else {
        assert.deepEqual(ids(groups), []);
        assert.equal(groups['TotalCount'], 0);
        assert.deepEqual(ids(assets), []);
        assert.equal(assets['TotalCount'], 0);
      }
      // Whatever reached the library named only the intruder's own groups.
      for (const call of t.fake.calls.slice(calls)) {
        const sent = (call.body['Filter'] as Record<string, unknown>)['GroupIds'] as string[];
        assert.ok(sent.length > 0 && !sent.includes(aliceGroup), `${call.action} sent ${JSON.stringify(sent)}`);
      }
    });
  }

  it('CreateAssetGroup: a group of the same name by another key is its own; neither key sees the other one', async () => {
    const twin = String((await t.result(BOB, 'CreateAssetGroup', { Name: 'secret-plans' }))['Id']);
    assert.notEqual(twin, aliceGroup);
    const alices = await t.result(ALICE, 'ListAssetGroups', { Filter: { Name: 'secret-plans' } });
    assert.deepEqual(ids(alices), [aliceGroup]);
    assert.equal(alices['TotalCount'], 1);
    const bobs = await t.result(BOB, 'ListAssetGroups', { Filter: { Name: 'secret-plans' } });
    assert.deepEqual(ids(bobs), [twin]);
    assert.equal(bobs['TotalCount'], 1);
    // And the other way round: the maker of the first is as much a stranger to the new one.
    await refusedLikeMissing(ALICE, 'GetAssetGroup', (id) => ({ Id: id }), twin, MISSING_GROUP, 'NotFound.group_id');
    await refusedLikeMissing(ALICE_TWO, 'CreateAsset', (id) => Object.assign({ GroupId: id }, IMAGE), twin, MISSING_GROUP, 'NotFound.group_id');
    await refusedLikeMissing(ALICE, 'GetAsset', (id) => ({ Id: id }), bobAsset, MISSING_ASSET, 'NotFound.asset_id');
    // The owner still reaches its own.
    assert.equal((await t.result(BOB, 'GetAssetGroup', { Id: twin }))['Name'], 'secret-plans');
  });

  it('an id of an unknown format, a near miss of a real id, or one of the longest accepted length is just as missing', async () => {
    const odd = [
      'not-an-id',
      'x',
      '../../etc/passwd',
      "' OR '1'='1",
      '%',
      '组-1',
      aliceGroup.toUpperCase(),
      `${aliceGroup} `,
      aliceGroup.slice(0, -1),
      `${aliceGroup}x`.slice(0, 128),
      'g'.repeat(128),
      `${aliceGroup}-${'x'.repeat(128)}`.slice(0, 128),
    ];
    for (const id of odd) {
      await refusedLikeMissing(BOB, 'GetAssetGroup', (i) => ({ Id: i }), id, MISSING_GROUP, 'NotFound.group_id');
      await refusedLikeMissing(ALICE, 'GetAssetGroup', (i) => ({ Id: i }), id, MISSING_GROUP, 'NotFound.group_id');
      await refusedLikeMissing(ALICE, 'GetAsset', (i) => ({ Id: i }), id, MISSING_ASSET, 'NotFound.asset_id');
      await refusedLikeMissing(ALICE, 'CreateAsset', (i) => Object.assign({ GroupId: i }, IMAGE), id, MISSING_GROUP, 'NotFound.group_id');
    }
    // Longer than the schema's 128: refused as too long before anyone looks, so alike for a real id's prefix and for noise.
    const calls = t.fake.calls.length;
    const long = await t.call(BOB, 'GetAssetGroup', { Id: `${aliceGroup}${'x'.repeat(5000)}` });
    const noise = await t.call(BOB, 'GetAssetGroup', { Id: 'y'.repeat(5000 + aliceGroup.length) });
    assert.equal(t.fake.calls.length, calls);
    assert.equal(long.status, 400, long.text);
    assert.equal(errorOf(long).Code, 'InvalidParameter.Id');
    assert.deepEqual(shape(long, 'x'), shape(noise, 'x'));
    assert.ok(long.text.length < 2000, 'the long id is not echoed back');
  });
});

describe('asset isolation: lists and their pages count only the caller own (45 groups of one key, 3 of another)', () => {
  let t: AssetGateway;
  let a = '';
  let b = '';
  const aGroups: string[] = [];
  const bGroups: string[] = [];
  const aAssets: string[] = [];
  let bAsset = '';
  const newKey = async (name: string): Promise<string> => {
    const made = await t.admin('POST', '/admin/keys', { name, group: 'pro', account: 'acme' });
    assert.equal(made.status, 201, made.text);
    return String(made.body['key']);
  };

  before(async () => {
    t = await startAssetGateway();
    // Both of one account: what keeps them apart is the key, not the account.
    a = await newKey('pager-a');
    b = await newKey('pager-b');
    for (let i = 0; i < 45; i++) aGroups.push(String((await t.result(a, 'CreateAssetGroup', { Name: `a-${i}` }))['Id']));
    for (let i = 0; i < 3; i++) bGroups.push(String((await t.result(b, 'CreateAssetGroup', { Name: `b-${i}` }))['Id']));
    for (const groupId of aGroups.slice(0, 2)) aAssets.push(String((await t.result(a, 'CreateAsset', Object.assign({ GroupId: groupId }, IMAGE)))['Id']));
    bAsset = String((await t.result(b, 'CreateAsset', Object.assign({ GroupId: bGroups[0] }, IMAGE)))['Id']);
  });
  after(async () => {
    await t.stop();
  });

  it('ListAssetGroups by the owner of 45: pages of 20, 20, 5 then none, TotalCount 45 on each, all its own, none twice', async () => {
    const calls = t.fake.calls.length;
    const seen: string[] = [];
    for (const [number, size] of [
      [1, 20],
      [2, 20],
      [3, 5],
    ] as const) {
      const page = await t.result(a, 'ListAssetGroups', { PageNumber: number, PageSize: 20 });
      assert.equal(page['TotalCount'], 45);
      assert.equal(page['PageNumber'], number);
      assert.equal(page['PageSize'], 20);
      assert.equal(ids(page).length, size, `page ${number}`);
      seen.push(...ids(page));
    }
    assert.equal(new Set(seen).size, 45, 'no group on two pages');
    assert.deepEqual([...seen].sort(), [...aGroups].sort());
    // Newest first by default.
    assert.deepEqual(seen, [...aGroups].reverse());
    for (const call of t.fake.calls.slice(calls)) {
      const sent = (call.body['Filter'] as Record<string, unknown>)['GroupIds'] as string[];
      assert.ok(sent.length > 0 && sent.every((id) => aGroups.includes(id)), `${call.action} sent ${JSON.stringify(sent)}`);
    }
    const before = t.fake.calls.length;
    const beyond = await t.result(a, 'ListAssetGroups', { PageNumber: 4, PageSize: 20 });
    assert.deepEqual(beyond, { Items: [], TotalCount: 45, PageNumber: 4, PageSize: 20 });
    assert.equal(t.fake.calls.length, before, 'a page past the end asks the library nothing (an empty GroupIds lists everything)');
  });

  it('ListAssetGroups by the owner of 3: TotalCount 3; a Filter.GroupIds naming the other key ids is cut to its own', async () => {
    const own = await t.result(b, 'ListAssetGroups', { PageSize: 20 });
    assert.equal(own['TotalCount'], 3);
    assert.deepEqual([...ids(own)].sort(), [...bGroups].sort());
    const second = await t.result(b, 'ListAssetGroups', { PageNumber: 2, PageSize: 2 });
    assert.equal(second['TotalCount'], 3);
    assert.equal(ids(second).length, 1);

    const calls = t.fake.calls.length;
    const mixed = await t.result(b, 'ListAssetGroups', { Filter: { GroupIds: [aGroups[0], aGroups[10], aGroups[44], bGroups[1]] } });
    assert.deepEqual(ids(mixed), [bGroups[1]]);
    assert.equal(mixed['TotalCount'], 1);
    const sent = t.fake.calls.slice(calls);
    assert.equal(sent.length, 1);
    assert.deepEqual((sent[0]?.body['Filter'] as Record<string, unknown>)['GroupIds'], [bGroups[1]]);

    const before = t.fake.calls.length;
    const foreign = await t.result(b, 'ListAssetGroups', { Filter: { GroupIds: aGroups.slice(0, 30) } });
    assert.deepEqual(foreign, { Items: [], TotalCount: 0, PageNumber: 1, PageSize: 20 });
    const emptied = await t.result(b, 'ListAssetGroups', { Filter: { GroupIds: [] } });
    assert.equal(emptied['TotalCount'], 0, 'an empty GroupIds is nothing, not everything');
    assert.equal(t.fake.calls.length, before);
  });

  it('ListAssets: the other key ids in Filter.GroupIds give [] and TotalCount 0 with no call; without a filter only its own', async () => {
    const before = t.fake.calls.length;
    const foreign = await t.result(b, 'ListAssets', { Filter: { GroupIds: aGroups } });
    assert.deepEqual(foreign, { Items: [], TotalCount: 0, PageNumber: 1, PageSize: 20 });
    const emptied = await t.result(b, 'ListAssets', { Filter: { GroupIds: [] } });
    assert.deepEqual(emptied, { Items: [], TotalCount: 0, PageNumber: 1, PageSize: 20 });
    assert.equal(t.fake.calls.length, before, 'an empty intersection never reaches the library');

    const calls = t.fake.calls.length;
    const own = await t.result(b, 'ListAssets', {});
    assert.deepEqual(ids(own), [bAsset]);
    assert.equal(own['TotalCount'], 1);
    const sent = t.fake.calls.slice(calls);
    assert.equal(sent.length, 1);
    assert.deepEqual([...((sent[0]?.body['Filter'] as Record<string, unknown>)['GroupIds'] as string[])].sort(), [...bGroups].sort());

    const mixed = await t.result(b, 'ListAssets', { Filter: { GroupIds: [aGroups[0], aGroups[1], bGroups[0]] } });
    assert.deepEqual(ids(mixed), [bAsset]);
    assert.equal(mixed['TotalCount'], 1);

    const theirs = await t.result(a, 'ListAssets', { PageSize: 100 });
    assert.deepEqual([...ids(theirs)].sort(), [...aAssets].sort());
    assert.equal(theirs['TotalCount'], 2);
    // Every ListAssets that reached the library named only the caller's own groups, never an empty list.
    for (const call of t.fake.calls.slice(before).filter((c) => c.action === 'ListAssets')) {
      const groupIds = (call.body['Filter'] as Record<string, unknown>)['GroupIds'] as string[];
      assert.ok(groupIds.length > 0);
      assert.ok(groupIds.every((id) => bGroups.includes(id)) || groupIds.every((id) => aGroups.includes(id)), JSON.stringify(groupIds));
    }
  });
});
