// The control plane's signer against the official @volcengine/openapi Signer (same request, same date), and one
// known answer written down, so a change in both at once still shows.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { signControlRequest } from '../../../core/providers/volcengine/sign.js';
import { OfficialSigner } from '../../helpers/fake-volcengine.js';

interface Case {
  readonly name: string;
  readonly host: string;
  readonly path: string;
  readonly action: string;
  readonly body: string;
  readonly region: string;
  readonly date: string;
}

const AK = 'AKLTexampleaccesskeyid';
const SK = 'exampleSecretAccessKey==';
/** sha256 of no bytes: the SDK adds no X-Content-Sha256 for an empty body, the gateway always sends one. */
const EMPTY_SHA256 = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';

const CASES: readonly Case[] = [
  { name: 'a group', host: 'ark.cn-beijing.volcengineapi.com', path: '/', action: 'CreateAssetGroup',
    body: '{"Name":"demo","ProjectName":"default"}', region: 'cn-beijing', date: '2026-04-10T12:00:00Z' },
  { name: 'an empty body', host: 'ark.cn-beijing.volcengineapi.com', path: '/', action: 'ListAssetGroups', body: '', region: 'cn-beijing', date: '2026-01-01T00:00:00Z' },
  { name: 'a unicode body', host: 'ark.cn-beijing.volcengineapi.com', path: '/', action: 'UpdateAsset',
    body: '{"Id":"asset-1","Name":"猫 🐈 café"}', region: 'cn-beijing', date: '2026-11-26T23:59:59Z' },
  { name: 'BytePlus', host: 'ark.ap-southeast-1.byteplusapi.com', path: '/', action: 'GetAsset',
    body: '{"Id":"asset-20260410114236-8cdfz"}', region: 'ap-southeast-1', date: '2027-02-28T08:30:15Z' },
  { name: 'a loopback port and a path prefix', host: '127.0.0.1:40123', path: '/volc/', action: 'ListAssets',
    body: '{"Filter":{"GroupIds":["g"]},"PageSize":100}', region: 'cn-shanghai', date: '2026-06-15T18:05:09Z' },
];

function ours(c: Case, accessKeyId: string, secretAccessKey: string): Record<string, string> {
  return signControlRequest({
    host: c.host,
    path: c.path,
    query: { Version: '2024-01-01', Action: c.action },
    body: Buffer.from(c.body, 'utf8'),
    contentType: 'application/json',
    accessKeyId,
    secretAccessKey,
    region: c.region,
    service: 'ark',
    date: new Date(c.date),
  });
}

function official(c: Case): Record<string, string> {
  const headers: Record<string, string> = { 'Content-Type': 'application/json', Host: c.host };
  if (c.body === '') headers['X-Content-Sha256'] = EMPTY_SHA256;
  const signer = new OfficialSigner({
    method: 'POST',
    path: c.path,
    query: { Action: c.action, Version: '2024-01-01' },
    headers,
    body: c.body,
    region: c.region,
    service: 'ark',
    accessKeyId: AK,
    secretAccessKey: SK,
  });
  signer.addAuthorization({ accessKeyId: AK, secretKey: SK }, new Date(c.date));
  return signer.request.headers as Record<string, string>;
}

describe('signControlRequest', () => {
  for (const c of CASES) {
    it(`signs as the official SDK does: ${c.name}`, () => {
      const mine = ours(c, AK, SK);
      const theirs = official(c);
      assert.equal(mine['X-Date'], theirs['X-Date']);
      assert.equal(mine['X-Content-Sha256'], theirs['X-Content-Sha256']);
      assert.equal(mine['Content-Type'], 'application/json');
      assert.equal(mine['Authorization'], theirs['Authorization']);
    });
  }

  it('matches the known answer (computed once with the official Signer, and again by hand in Python)', () => {
    const headers = ours(CASES[0] as Case, AK, SK);
    assert.deepEqual(headers, {
      'X-Date': '20260410T120000Z',
      'X-Content-Sha256': '631d6293368873ac076b377b5418e93cb9fe0b6b7bb2590faf0574d9b45a1356',
      'Content-Type': 'application/json',
      Authorization:
        'HMAC-SHA256 Credential=AKLTexampleaccesskeyid/20260410/cn-beijing/ark/request, SignedHeaders=content-type;host;x-content-sha256;x-date, ' +
        'Signature=10f475085c144a4d10c49d35d53c190701eaf15e467fd747cd2ecc40fd95cc08',
    });
  });

  it('drops the milliseconds of the date, and another secret gives another signature', () => {
    const c = CASES[0] as Case;
    const withMs = ours({ name: c.name, host: c.host, path: c.path, action: c.action, body: c.body, region: c.region, date: '2026-04-10T12:00:00.987Z' }, AK, SK);
    assert.equal(withMs['Authorization'], ours(c, AK, SK)['Authorization']);
    assert.notEqual(ours(c, AK, `${SK}x`)['Authorization'], withMs['Authorization']);
  });
});
