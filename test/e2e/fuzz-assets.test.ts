// Fuzzing the asset library's routes (issue 28) against the fake Volcengine control plane: near-valid bodies of every
// action broken at arbitrary places, and arbitrary JSON. Never a 5xx; every refusal in Volcengine's envelope with an
// error code; a refused body sends nothing to the control plane; the gateway is healthy afterwards. Runs:
// GATEWAY_FUZZ_RUNS (default 300 per property).

import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import fc from 'fast-check';
import { ALICE, startAssetGateway, type AssetGateway } from '../helpers/asset-gateway.js';
import { anyJson, mutate, mutation, type Json } from '../helpers/fuzz-bodies.js';

const RUNS = Number(process.env['GATEWAY_FUZZ_RUNS'] ?? 300);
const ACTIONS = ['CreateAssetGroup', 'CreateAsset', 'GetAssetGroup', 'GetAsset', 'ListAssetGroups', 'ListAssets', 'UpdateAssetGroup', 'UpdateAsset', 'DeleteAsset', 'createAsset'];

let t: AssetGateway;
let group = '';

before(async () => {
  t = await startAssetGateway();
  group = String((await t.result(ALICE, 'CreateAssetGroup', { Name: 'fuzz' }))['Id']);
});

after(async () => {
  await t.stop();
});

const id = (): fc.Arbitrary<string> => fc.constantFrom(group, 'group-20260101000000-zzzzz', 'asset-20260101000000-zzzzz', '', 'x'.repeat(300));
const body: fc.Arbitrary<Json> = fc.record(
  {
    Name: fc.string({ maxLength: 70 }),
    Description: fc.string({ maxLength: 20 }),
    GroupId: id(),
    Id: id(),
    URL: fc.constantFrom('https://93.184.215.14/a.png', 'http://93.184.215.14/a.png', 'https://10.0.0.1/a.png', 'data:image/png;base64,AAAA', 'https://x.internal-test/a.png', ''),
    AssetType: fc.constantFrom('Image', 'Video', 'image', 'Audio'),
    PageNumber: fc.integer({ min: -1, max: 5 }),
    PageSize: fc.integer({ min: 0, max: 200 }),
    Filter: fc.record({ GroupIds: fc.array(id(), { maxLength: 3 }), Name: fc.string({ maxLength: 5 }) }, { requiredKeys: [] }),
  },
  { requiredKeys: [] },
) as fc.Arbitrary<Json>;

/** Status classes seen by the property running now, for its count line (which clears them). */
const seen = new Map<string, number>();
function counts(label: string): string {
  const line = `fuzz ${label}: ${[...seen.values()].reduce((a, b) => a + b, 0)} cases, ${seen.get('2xx') ?? 0} answered 2xx, ${seen.get('4xx') ?? 0} refused 4xx, ${seen.get('5xx') ?? 0} 5xx`;
  seen.clear();
  return line;
}

async function check(action: string, text: string): Promise<void> {
  const calls = t.fake.calls.length;
  const answer = await t.call(ALICE, action, text);
  const kind = `${Math.floor(answer.status / 100)}xx`;
  seen.set(kind, (seen.get(kind) ?? 0) + 1);
  try {
    assert.ok(answer.status < 500, 'a 5xx');
    const metadata = answer.body['ResponseMetadata'] as Record<string, unknown> | undefined;
    assert.ok(metadata !== undefined && typeof metadata['RequestId'] === 'string', 'no envelope');
    if (answer.status >= 400) {
      const error = metadata['Error'] as Record<string, unknown> | undefined;
      assert.ok(error !== undefined && typeof error['Code'] === 'string' && typeof error['Message'] === 'string', 'no error in the envelope');
      // Refused by the gateway (the body, the action, ownership): the library heard nothing.
      if (answer.status === 400 || answer.status === 404) assert.equal(t.fake.calls.length, calls, 'a refused body reached the library');
    } else {
      assert.ok(typeof answer.body['Result'] === 'object', 'no Result');
    }
  } catch (err) {
    throw new Error(`${(err as Error).message}: ${action} ${text.slice(0, 800)} -> ${answer.status} ${answer.text.slice(0, 500)}`, { cause: err });
  }
}

it(`every action: near-valid bodies broken at arbitrary places, and arbitrary JSON (${RUNS * 2} runs)`, async (ctx) => {
  await fc.assert(
    fc.asyncProperty(fc.constantFrom(...ACTIONS), fc.tuple(body, fc.array(mutation, { maxLength: 2 })), async (action, [sent, mutations]) => check(action, JSON.stringify(mutate(sent, mutations)))),
    { numRuns: RUNS, includeErrorInReport: true },
  );
  ctx.diagnostic(counts('asset actions, near-valid bodies broken'));
  await fc.assert(
    fc.asyncProperty(fc.constantFrom(...ACTIONS), anyJson, async (action, sent) => check(action, JSON.stringify(sent))),
    { numRuns: RUNS, includeErrorInReport: true },
  );
  ctx.diagnostic(counts('asset actions, arbitrary JSON'));
  assert.equal((await fetch(`${t.gw.url}/readyz`)).status, 200);
});
