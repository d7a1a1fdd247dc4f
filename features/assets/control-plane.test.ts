// The Volcengine asset library client against the fake control plane (signatures checked with the official SDK) and
// against servers that refuse, hang or answer something that is not an envelope.

import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { AssetLibrary } from './library.js';
import { GatewayError } from '../../core/errors.js';
import { createVolcengineLibrary } from './control-plane.js';
import { startFakeVolcengine, type FakeVolcengine } from '../../test/helpers/fake-volcengine.js';
import { until } from '../../test/helpers/poll.js';

const AK = 'AKLTgatewaytestaccesskey0001';
const SK = 'gatewayTestSecretAccessKey/0001==';
const PROJECT = 'channel-project';

function library(url: string, overrides: { secretAccessKey?: string; timeoutMs?: number; now?: () => Date } = {}): AssetLibrary {
  const control = { url, region: 'cn-beijing', accessKeyId: AK, secretAccessKey: overrides.secretAccessKey ?? SK, projectName: PROJECT };
  const options = { control, timeoutMs: overrides.timeoutMs ?? 5_000 };
  return createVolcengineLibrary(overrides.now === undefined ? options : Object.assign(options, { now: overrides.now }));
}

function resultOf(body: Readonly<Record<string, unknown>>): Record<string, unknown> {
  assert.equal(typeof body['Result'], 'object', JSON.stringify(body));
  return body['Result'] as Record<string, unknown>;
}

function errorOf(body: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const meta = body['ResponseMetadata'] as Record<string, unknown>;
  return meta['Error'] as Record<string, unknown>;
}

/** The call fails with `code`, and nothing the error carries names the key id or the secret. */
async function assertFails(promise: Promise<unknown>, code: string): Promise<void> {
  await assert.rejects(promise, (err: unknown) => {
    assert.ok(err instanceof GatewayError, String(err));
    assert.equal(err.code, code, err.message);
    const told = [err.message, err.stack ?? '', String(err.cause), (err.cause as Error | undefined)?.stack ?? ''].join('\n');
    assert.ok(!told.includes(AK) && !told.includes(SK), told);
    assert.ok(!told.includes('HMAC-SHA256'), told);
    return true;
  });
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function shut(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

describe('volcengine control plane against the fake', () => {
  let fake: FakeVolcengine;
  let lib: AssetLibrary;

  before(async () => {
    fake = await startFakeVolcengine({ accessKeyId: AK, secretAccessKey: SK, processingMs: 50 });
    lib = library(fake.url);
  });
  after(async () => {
    await lib.close();
    await fake.close();
  });

  it('creates a group and an asset, reads them back, signed and in the channel project', async () => {
    const calls = fake.calls.length;
    const group = await lib.call('CreateAssetGroup', { Name: 'cats', Description: 'tabby', ProjectName: 'someone-else' });
    assert.equal(group.status, 200);
    const groupId = resultOf(group.body)['Id'] as string;
    assert.match(groupId, /^group-\d{14}-[a-z0-9]{5}$/);
    const meta = group.body['ResponseMetadata'] as Record<string, unknown>;
    assert.equal(meta['Action'], 'CreateAssetGroup');
    assert.equal(meta['Version'], '2024-01-01');

    const created = await lib.call('CreateAsset', { GroupId: groupId, URL: 'https://example.com/cat.png', AssetType: 'Image', Name: 'cat' });
    const assetId = resultOf(created.body)['Id'] as string;
    assert.match(assetId, /^asset-\d{14}-[a-z0-9]{5}$/);
    const processing = resultOf((await lib.call('GetAsset', { Id: assetId })).body);
    assert.equal(processing['Status'], 'Processing');
    assert.equal(processing['GroupId'], groupId);
    assert.equal(processing['ProjectName'], PROJECT);
    const active = await until(
      'the asset to be Active',
      async () => {
        const asset = resultOf((await lib.call('GetAsset', { Id: assetId })).body);
        return asset['Status'] === 'Active' ? asset : undefined;
      },
      { timeoutMs: 3_000, intervalMs: 20 },
    );
    assert.match(active['UpdateTime'] as string, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);

    const readGroup = resultOf((await lib.call('GetAssetGroup', { Id: groupId })).body);
    assert.deepEqual(
      [readGroup['Name'], readGroup['Description'], readGroup['GroupType'], readGroup['ProjectName']],
      ['cats', 'tabby', 'AIGC', PROJECT],
    );
    const made = fake.calls.slice(calls);
    assert.ok(made.length >= 5);
    assert.ok(made.every((call) => call.signed && call.body['ProjectName'] === PROJECT), JSON.stringify(made));
    assert.equal(fake.groups.get(groupId)?.ProjectName, PROJECT);
  });

  it('resolves an error envelope: unknown ids, a failed download, a queued failure', async () => {
    const missing = await lib.call('GetAssetGroup', { Id: 'group-20260101000000-zzzzz' });
    assert.equal(missing.status, 404);
    assert.equal(missing.body['Result'], undefined);
    assert.deepEqual(errorOf(missing.body), { Code: 'NotFound.group_id', Message: 'The specified asset_group group-20260101000000-zzzzz is not found.' });
    assert.equal(errorOf((await lib.call('GetAsset', { Id: 'asset-x' })).body)['Code'], 'NotFound.asset_id');
    assert.equal((await lib.call('CreateAsset', { URL: 'https://example.com/a.png', AssetType: 'Image' })).status, 400);

    const groupId = resultOf((await lib.call('CreateAssetGroup', { Name: 'broken' })).body)['Id'] as string;
    const assetId = resultOf((await lib.call('CreateAsset', { GroupId: groupId, URL: 'https://example.com/download-fails.mp4', AssetType: 'Video' })).body)['Id'];
    const failed = await until(
      'the asset to fail',
      async () => {
        const asset = resultOf((await lib.call('GetAsset', { Id: assetId })).body);
        return asset['Status'] === 'Processing' ? undefined : asset;
      },
      { timeoutMs: 3_000, intervalMs: 20 },
    );
    assert.equal(failed['Status'], 'Failed');
    assert.equal((failed['Error'] as Record<string, unknown>)['Code'], 'DownloadFailed');

    fake.failNext('ListAssets', 403, 'SubscriptionRequired', 'The asset API needs a plan.');
    const refused = await lib.call('ListAssets', {});
    assert.equal(refused.status, 403);
    assert.equal(errorOf(refused.body)['Code'], 'SubscriptionRequired');
    assert.equal((await lib.call('ListAssets', {})).status, 200);
  });

  it('lists with filters and pages, newest first; an empty GroupIds filters nothing', async () => {
    const a = resultOf((await lib.call('CreateAssetGroup', { Name: 'list-a' })).body)['Id'] as string;
    const b = resultOf((await lib.call('CreateAssetGroup', { Name: 'list-b' })).body)['Id'] as string;
    for (const group of [a, b, b]) await lib.call('CreateAsset', { GroupId: group, URL: 'https://example.com/x.png', AssetType: 'Image' });
    const inB = resultOf((await lib.call('ListAssets', { Filter: { GroupType: 'AIGC', GroupIds: [b] } })).body);
    assert.equal(inB['TotalCount'], 2);
    const everything = resultOf((await lib.call('ListAssets', { Filter: { GroupType: 'AIGC', GroupIds: [] } })).body);
    assert.equal(everything['TotalCount'], fake.assets.size);
    const page = resultOf((await lib.call('ListAssetGroups', { Filter: { Name: 'list-' }, PageNumber: 1, PageSize: 1 })).body);
    assert.deepEqual([page['TotalCount'], page['PageNumber'], page['PageSize']], [2, 1, 1]);
    assert.equal((page['Items'] as Record<string, unknown>[])[0]?.['Id'], b);
    assert.equal((await lib.call('ListAssetGroups', { PageSize: 101 })).status, 400);
  });

  it('updates a group and an asset (Result {})', async () => {
    const groupId = resultOf((await lib.call('CreateAssetGroup', { Name: 'old' })).body)['Id'] as string;
    const updated = await lib.call('UpdateAssetGroup', { Id: groupId, Name: 'new', Description: 'd' });
    assert.deepEqual(resultOf(updated.body), {});
    assert.equal(fake.groups.get(groupId)?.Name, 'new');
    const assetId = resultOf((await lib.call('CreateAsset', { GroupId: groupId, URL: 'https://example.com/x.mp3', AssetType: 'Audio' })).body)['Id'] as string;
    assert.deepEqual(resultOf((await lib.call('UpdateAsset', { Id: assetId, Name: 'renamed' })).body), {});
    assert.equal(fake.assets.get(assetId)?.Name, 'renamed');
  });

  it('works with a trailing slash on the URL', async () => {
    const slashed = library(`${fake.url}/`);
    try {
      assert.equal((await slashed.call('ListAssetGroups', {})).status, 200);
    } finally {
      await slashed.close();
    }
  });

  it('a wrong secret or a stale clock gets the 401 SignatureDoesNotMatch envelope, resolved', async () => {
    for (const overrides of [{ secretAccessKey: `${SK}wrong` }, { now: () => new Date(Date.now() - 20 * 60 * 1000) }]) {
      const bad = library(fake.url, overrides);
      try {
        const calls = fake.calls.length;
        const answer = await bad.call('CreateAssetGroup', { Name: 'nope' });
        assert.equal(answer.status, 401);
        assert.equal(answer.body['Result'], undefined);
        const meta = answer.body['ResponseMetadata'] as Record<string, unknown>;
        assert.deepEqual([meta['Service'], meta['Region'], meta['Action']], ['ark', 'cn-beijing', 'CreateAssetGroup']);
        assert.equal(errorOf(answer.body)['Code'], 'SignatureDoesNotMatch');
        assert.equal(errorOf(answer.body)['CodeN'], 100010);
        assert.equal(fake.calls[calls]?.signed, false);
        assert.ok(![...fake.groups.values()].some((group) => group.Name === 'nope'));
      } finally {
        await bad.close();
      }
    }
  });

  it('an aborted signal is GW_ERR_CLIENT_CLOSED', async () => {
    await assertFails(lib.call('ListAssets', {}, AbortSignal.abort()), 'GW_ERR_CLIENT_CLOSED');
  });
});

describe('volcengine control plane when no envelope comes', () => {
  it('a refused connection is GW_ERR_UPSTREAM_UNAVAILABLE', async () => {
    const server = createServer();
    const url = await listen(server);
    await shut(server);
    const lib = library(url);
    try {
      await assertFails(lib.call('GetAsset', { Id: 'asset-x' }), 'GW_ERR_UPSTREAM_UNAVAILABLE');
    } finally {
      await lib.close();
    }
  });

  it('a server that never answers is GW_ERR_UPSTREAM_TIMEOUT, or GW_ERR_CLIENT_CLOSED when the caller gives up first', async () => {
    const server = createServer(() => undefined);
    const url = await listen(server);
    const lib = library(url, { timeoutMs: 150 });
    const patient = library(url);
    try {
      await assertFails(lib.call('GetAsset', { Id: 'asset-x' }), 'GW_ERR_UPSTREAM_TIMEOUT');
      await assertFails(patient.call('GetAsset', { Id: 'asset-x' }, AbortSignal.timeout(50)), 'GW_ERR_CLIENT_CLOSED');
    } finally {
      await Promise.all([lib.close(), patient.close()]);
      await shut(server);
    }
  });

  it('an answer that is not a JSON object, or too large, is GW_ERR_UPSTREAM_ERROR', async () => {
    const bodies = ['<html>502 Bad Gateway</html>', '[1,2]', 'null', `{"x":"${'a'.repeat(4 * 1024 * 1024)}"}`];
    let next = 0;
    const server = createServer((req, res) => {
      req.resume();
      res.writeHead(next === 0 ? 502 : 200, { 'content-type': 'application/json' });
      res.end(bodies[next++]);
    });
    const lib = library(await listen(server));
    try {
      for (let i = 0; i < bodies.length; i++) await assertFails(lib.call('ListAssets', {}), 'GW_ERR_UPSTREAM_ERROR');
    } finally {
      await lib.close();
      await shut(server);
    }
  });
});
