// A gateway whose asset library is the fake Volcengine control plane (test/helpers/fake-volcengine.ts), for the asset
// tests: keys of two accounts, a CreateAsset price, and a resolver that answers without DNS.

import type { Logger } from '../../core/logging/logger.js';
import { startFakeVolcengine, type FakeVolcengine } from './fake-volcengine.js';
import { startGatewayUnderTest, TEST_KEY, type GatewayUnderTest } from './gateway-under-test.js';

export const ADMIN = 'test-admin-token-0123456789';
export const ALICE = 'sk-alice-0123456789abcdefgh';
export const ALICE_TWO = 'sk-alice2-0123456789abcdefg';
export const BOB = 'sk-bob-0123456789abcdefghij';
export const BROKE = 'sk-broke-0123456789abcdefgh';
export { TEST_KEY };
export const AK = 'AKLTtestaccesskey0123456789';
export const SK = 'dGVzdHNlY3JldGtleTAxMjM0NTY3ODk=';
export const PROJECT = 'proj-secret-7';
/** The channel's data-plane key (Ark's API key for video tasks). */
export const ARK_KEY = 'ark-data-plane-key-0123456789';
/** The CreateAsset price: 0.002 in nano-units. */
export const ASSET_PRICE = 2_000_000n;

/** Names resolve without DNS: `*.internal-test` to a private address, anything else to a public one. */
export async function testResolver(host: string): Promise<readonly string[]> {
  if (host.endsWith('.internal-test')) return ['10.1.2.3'];
  if (host.endsWith('.unresolvable-test')) throw new Error('ENOTFOUND');
  return ['93.184.215.14'];
}

export function assetConfig(fakeUrl: string, extra = ''): string {
  return `server:
  port: 0
  host: 127.0.0.1
  admin_token: ${ADMIN}
store:
  url: sqlite:./gateway.db
pricing:
  calls:
    videogen.asset.CreateAsset: "0.002"
groups:
  pro: { models: ["*"] }
accounts:
  - name: acme
  - name: other
  - name: empty
keys:
  - { name: alice, key: ${ALICE}, group: pro, account: acme }
  - { name: alice-two, key: ${ALICE_TWO}, group: pro, account: acme }
  - { name: bob, key: ${BOB}, group: pro, account: other }
  - { name: broke, key: ${BROKE}, group: pro, account: empty }
  - { name: free, key: ${TEST_KEY}, group: pro }
channels:
  - name: ark
    type: volcengine
    base_url: https://ark.cn-beijing.volces.com/api/v3
    keys: ["${ARK_KEY}"]
    control:
      url: ${fakeUrl}
      region: cn-beijing
      access_key_id: ${AK}
      secret_access_key: ${SK}
      project_name: ${PROJECT}
    models: ["doubao-seedance-*"]
    cooldown_ms: 0
    assets: true
${extra}`;
}

export interface AssetAnswer {
  readonly status: number;
  readonly body: Record<string, unknown>;
  readonly headers: Headers;
  readonly text: string;
}

export interface AssetGateway {
  readonly fake: FakeVolcengine;
  readonly gw: GatewayUnderTest;
  /** POST /v1/videogen/asset/<action> with `key` (none: no Authorization header). */
  call(key: string | null, action: string, body?: unknown): Promise<AssetAnswer>;
  admin(method: string, path: string, body?: unknown): Promise<AssetAnswer>;
  /** The Result of a successful call; throws with the answer otherwise. */
  result(key: string, action: string, body?: unknown): Promise<Record<string, unknown>>;
  stop(): Promise<void>;
}

async function read(response: Response): Promise<AssetAnswer> {
  const text = await response.text();
  let body: Record<string, unknown> = {};
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    // Not JSON: the test sees `text`.
  }
  return { status: response.status, body, headers: response.headers, text };
}

/** `keys`: more declared keys (`  - { name: ..., key: ..., group: pro }\n`); `clock`: the calendar clock periodic budgets read. */
export async function startAssetGateway(
  options: { readonly processingMs?: number; readonly extra?: string; readonly logger?: Logger; readonly keys?: string; readonly clock?: () => number } = {},
): Promise<AssetGateway> {
  const fake = await startFakeVolcengine({ accessKeyId: AK, secretAccessKey: SK, processingMs: options.processingMs ?? 200 });
  const yaml = assetConfig(fake.url, options.extra).replace('\nchannels:\n', `\n${options.keys ?? ''}channels:\n`);
  const gw = await startGatewayUnderTest(
    yaml,
    Object.assign({ resolveHost: testResolver }, options.logger === undefined ? {} : { logger: options.logger }, options.clock === undefined ? {} : { clock: options.clock }),
  );
  const call = async (key: string | null, action: string, body?: unknown): Promise<AssetAnswer> => {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (key !== null) headers['authorization'] = `Bearer ${key}`;
    return read(await fetch(`${gw.url}/v1/videogen/asset/${action}`, { method: 'POST', headers, body: body === undefined ? '{}' : typeof body === 'string' ? body : JSON.stringify(body) }));
  };
  // Money for the metered keys (broke's account stays empty).
  for (const account of ['acme', 'other']) {
    const credited = await fetch(`${gw.url}/admin/accounts/${account}/credit`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ amount: '1.00', idempotency_key: `start-${account}` }),
    });
    if (credited.status !== 201) throw new Error(`credit ${account}: ${credited.status} ${await credited.text()}`);
  }
  return {
    fake,
    gw,
    call,
    async admin(method, path, body) {
      const init: RequestInit = { method, headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' } };
      if (body !== undefined) init.body = JSON.stringify(body);
      return read(await fetch(`${gw.url}${path}`, init));
    },
    async result(key, action, body) {
      const answer = await call(key, action, body);
      if (answer.status !== 200) throw new Error(`${action} answered ${answer.status}: ${answer.text}`);
      return answer.body['Result'] as Record<string, unknown>;
    },
    async stop() {
      await gw.stop();
      await fake.close();
    },
  };
}

/** The envelope's error code and message. */
export function errorOf(answer: AssetAnswer): { readonly Code: string; readonly Message: string } {
  const metadata = answer.body['ResponseMetadata'] as Record<string, unknown> | undefined;
  return (metadata?.['Error'] ?? { Code: '', Message: '' }) as { Code: string; Message: string };
}
