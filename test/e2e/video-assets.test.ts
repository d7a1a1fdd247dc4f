// asset:// links in video tasks, checked before any upstream call: the caller's own Active asset passes and pins the
// task to the channel that holds it; another key's asset, an unknown id, an asset of an unbound group, one still
// Processing (after one refresh from its library), and a mix of two libraries' assets are refused, naming the link;
// an asset whose channel the operator disabled is out of service (503), not the caller's mistake.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { until } from '../helpers/poll.js';
import { ALICE, BOB, SEEDANCE, startVideoGateway, startVideoPlanes, type VideoGateway, type VideoPlanes } from '../helpers/video-gateway.js';
import { ASSET_STORE } from '../../features/assets/store-part.js';

const IMAGE = { URL: 'https://93.184.215.14/hero.png', AssetType: 'Image' };

describe('asset:// links in video tasks', () => {
  let planes: VideoPlanes;
  let v: VideoGateway;
  const asset = (key: string, action: string, body: unknown) => v.request(key, 'POST', `/v1/videogen/asset/${action}`, body);
  const result = async (key: string, action: string, body: unknown): Promise<Record<string, unknown>> => {
    const answer = await asset(key, action, body);
    assert.equal(answer.status, 200, answer.text);
    return answer.body['Result'] as Record<string, unknown>;
  };
  /** An asset of `key`'s, Active (its library's Processing time waited out and seen through GetAsset). */
  const activeAsset = async (key: string): Promise<string> => {
    const group = String((await result(key, 'CreateAssetGroup', { Name: 'refs' }))['Id']);
    const id = String((await result(key, 'CreateAsset', Object.assign({ GroupId: group }, IMAGE)))['Id']);
    await until('Active', async () => ((await result(key, 'GetAsset', { Id: id }))['Status'] === 'Active' ? true : undefined), { timeoutMs: 5000, intervalMs: 50 });
    return id;
  };
  const task = (key: string, ...links: string[]) =>
    v.request(key, 'POST', '/v1/video/generations', {
      model: SEEDANCE,
      prompt: 'the hero waves',
      metadata: { content: links.map((id) => ({ type: 'image_url', image_url: { url: `asset://${id}` }, role: 'reference_image' })) },
    });
  // Creates only: the poller reads the tasks of earlier tests from Ark at any time.
  const upstreamCalls = (): number => [...planes.ark.calls, ...planes.arkTwo.calls].filter((c) => c.method === 'POST').length;
  const refusedAs = async (answer: { status: number; body: Record<string, unknown> }, code: string, link: string): Promise<string> => {
    assert.equal(answer.status, 400, JSON.stringify(answer.body));
    const error = answer.body['error'] as Record<string, unknown>;
    assert.equal(error['code'], code);
    assert.ok(String(error['message']).includes(`asset://${link}`), `the message names the link: ${String(error['message'])}`);
    return String(error['message']);
  };

  before(async () => {
    planes = await startVideoPlanes();
    v = await startVideoGateway(planes);
  });
  after(async () => {
    await v.stop();
    await planes.close();
  });

  test("an own Active asset passes, in the Ark body as sent, and the task runs on its library's channel", async () => {
    const id = await activeAsset(ALICE);
    const created = await task(ALICE, id);
    assert.equal(created.status, 200, created.text);
    const sent = [...planes.ark.tasks.values()].pop()?.request as Record<string, unknown>;
    assert.deepEqual((sent['content'] as unknown[])[1], { type: 'image_url', image_url: { url: `asset://${id}` }, role: 'reference_image' });
  });

  test("another key's asset is answered exactly as an unknown one, before any upstream call", async () => {
    const bobs = await activeAsset(BOB);
    const calls = upstreamCalls();
    const foreign = await refusedAs(await task(ALICE, bobs), 'invalid_asset_reference', bobs);
    const unknown = await refusedAs(await task(ALICE, 'asset-20260101000000-zzzzz'), 'invalid_asset_reference', 'asset-20260101000000-zzzzz');
    assert.equal(foreign.replace(bobs, 'X'), unknown.replace('asset-20260101000000-zzzzz', 'X'), 'no existence leak');
    // A link in images[] and in input_reference is checked too.
    const inImages = await v.request(ALICE, 'POST', '/v1/video/generations', { model: SEEDANCE, prompt: 'x', images: [`asset://${bobs}`] });
    await refusedAs(inImages, 'invalid_asset_reference', bobs);
    const inReference = await v.request(ALICE, 'POST', '/v1/videos', { model: SEEDANCE, prompt: 'x', input_reference: `asset://${bobs}` });
    await refusedAs(inReference, 'invalid_asset_reference', bobs);
    assert.equal(upstreamCalls(), calls);
  });

  test('an asset still Processing is refused as not ready after one refresh; Active, it passes', async () => {
    const group = String((await result(ALICE, 'CreateAssetGroup', { Name: 'fresh' }))['Id']);
    const id = String((await result(ALICE, 'CreateAsset', Object.assign({ GroupId: group }, IMAGE)))['Id']);
    const gets = (): number => planes.control.calls.filter((c) => c.action === 'GetAsset').length;
    const before = gets();
    const calls = upstreamCalls();
    const message = await refusedAs(await task(ALICE, id), 'asset_not_ready', id);
    assert.match(message, /not ready yet/);
    assert.equal(gets(), before + 1, 'read once from its library');
    assert.equal(upstreamCalls(), calls);
    // The library says Active after its processing time: the next task's refresh sees it.
    await until('the library says Active', () => (planes.control.assets.get(id)?.Status === 'Active' ? true : undefined), { timeoutMs: 5000, intervalMs: 20 });
    assert.equal((await task(ALICE, id)).status, 200);
  });

  test("an unbound group's asset is refused for every key until the operator rebinds it to one", async () => {
    const made = await v.admin('POST', '/admin/keys', { name: 'rotating-video-1', group: 'pro', account: 'acme' });
    const next = await v.admin('POST', '/admin/keys', { name: 'rotating-video-2', group: 'pro', account: 'acme' });
    const id = await activeAsset(String(made.body['key']));
    const groupId = String((await v.gw.gateway.runtime.deps.store.part(ASSET_STORE).asset(id))?.groupId);
    assert.equal((await v.admin('DELETE', `/admin/keys/${String(made.body['id'])}`)).status, 200);
    const calls = upstreamCalls();
    for (const key of [String(next.body['key']), ALICE]) await refusedAs(await task(key, id), 'invalid_asset_reference', id);
    assert.equal(upstreamCalls(), calls);
    assert.equal((await v.admin('POST', `/admin/asset-groups/${groupId}/bind`, { key: String(next.body['id']) })).status, 200);
    assert.equal((await task(String(next.body['key']), id)).status, 200);
    await refusedAs(await task(ALICE, id), 'invalid_asset_reference', id);
  });

  test("a second library's asset takes the task to its channel; links into two libraries are a 400", async () => {
    const first = await activeAsset(ALICE);
    // New groups go to the first library by priority; one of the second's is registered as a rotation would leave it.
    const store = v.gw.gateway.runtime.deps.store.part(ASSET_STORE);
    const now = Date.now();
    await store.addGroup({ id: 'group-20261127000000-two00', channel: 'ark-two', keyId: 'config:alice', account: 'acme', bound: true, name: 'second', createdAt: now, updatedAt: now });
    await store.addAsset({ id: 'asset-20261127000000-two00', groupId: 'group-20261127000000-two00', channel: 'ark-two', assetType: 'Image', status: 'Active', createdAt: now, updatedAt: now });
    const arkCreates = planes.ark.calls.filter((c) => c.method === 'POST').length;
    const onSecond = await task(ALICE, 'asset-20261127000000-two00');
    assert.equal(onSecond.status, 200, onSecond.text);
    assert.equal(planes.arkTwo.calls.filter((c) => c.method === 'POST').length, 1, 'ran on the channel holding the asset, though the other has the higher priority');
    assert.equal(planes.ark.calls.filter((c) => c.method === 'POST').length, arkCreates);

    const calls = upstreamCalls();
    const mixed = await task(ALICE, first, 'asset-20261127000000-two00');
    await refusedAs(mixed, 'asset_channel_mismatch', 'asset-20261127000000-two00');
    assert.equal(upstreamCalls(), calls);
  });

  test('an asset on a channel the operator disabled: 503 model_unavailable (out of service), not the caller\'s 400; no upstream call', async () => {
    const overrides = v.gw.gateway.runtime.current.services.router.overrides;
    overrides.set(new Map([['ark-two', { disabled: true, weight: null }]]));
    try {
      const calls = upstreamCalls();
      const refused = await task(ALICE, 'asset-20261127000000-two00');
      assert.equal(refused.status, 503, refused.text);
      assert.equal((refused.body['error'] as Record<string, unknown>)['code'], 'model_unavailable');
      assert.equal(upstreamCalls(), calls);
    } finally {
      overrides.set(new Map());
    }
    assert.equal((await task(ALICE, 'asset-20261127000000-two00')).status, 200, 'enabled again: served');
  });
});
