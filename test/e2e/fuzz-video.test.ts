// Fuzzing the video task routes over loopback against the fake Ark data plane: near-valid task bodies of both shapes
// broken at arbitrary places, and arbitrary JSON. Never a 5xx; a refusal is in OpenAI's error shape, naming the field
// when the body is an object; a 2xx is a video object; and no refused body reaches the upstream (the fake's create
// calls grow only with the 2xx answers). Runs: GATEWAY_FUZZ_RUNS (default 300 per property; CI's).

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { anyJson, mutate, mutation, type Json } from '../helpers/fuzz-bodies.js';
import { ALICE, SEEDANCE, startVideoGateway, startVideoPlanes, type VideoGateway, type VideoPlanes } from '../helpers/video-gateway.js';

const RUNS = Number(process.env['GATEWAY_FUZZ_RUNS'] ?? 300);
const URL_TEXT = fc.constantFrom('https://93.184.215.14/a.png', 'asset://asset-20260101000000-zzzzz', 'data:image/png;base64,iVBORw0KGgo=', '');

const generations: fc.Arbitrary<Json> = fc.record(
  {
    model: fc.constantFrom(SEEDANCE, 'doubao-seedance-1-0-pro', 'gpt-4o'),
    prompt: fc.string({ maxLength: 40 }),
    seconds: fc.oneof(fc.integer({ min: -2, max: 20 }), fc.constantFrom('5', '-1', 'x')),
    size: fc.constantFrom('1280x720', '720p', '1x1', 'big'),
    images: fc.array(fc.oneof(URL_TEXT, fc.record({ url: URL_TEXT, role: fc.constantFrom('first_frame', 'reference_image', 'hero') })), { maxLength: 3 }),
    metadata: fc.record(
      {
        resolution: fc.constantFrom('480p', '720p', '1080p', '4k'),
        ratio: fc.constantFrom('16:9', '9:16'),
        duration: fc.integer({ min: -1, max: 16 }),
        watermark: fc.boolean(),
        seed: fc.integer(),
        content: fc.array(fc.record({ type: fc.constantFrom('image_url', 'video_url', 'text', 'toString'), image_url: fc.record({ url: URL_TEXT }), role: fc.constantFrom('reference_image') }), { maxLength: 2 }),
      },
      { requiredKeys: [] },
    ),
  },
  { requiredKeys: ['model'] },
) as fc.Arbitrary<Json>;

const openai: fc.Arbitrary<Json> = fc.record(
  {
    model: fc.constantFrom(SEEDANCE, 'sora-2'),
    prompt: fc.string({ maxLength: 40 }),
    seconds: fc.constantFrom('4', '8', '12', 'x', 4),
    size: fc.constantFrom('720x1280', '1280x720', 'wide'),
    input_reference: fc.oneof(URL_TEXT, fc.record({ image_url: URL_TEXT })),
  },
  { requiredKeys: ['prompt'] },
) as fc.Arbitrary<Json>;

describe('fuzzing the video routes', () => {
  let planes: VideoPlanes;
  let v: VideoGateway;
  before(async () => {
    planes = await startVideoPlanes();
    v = await startVideoGateway(planes, { credit: '100000.00' });
  });
  after(async () => {
    await v.stop();
    await planes.close();
  });

  const counts = (route: string, seen: Map<number, number>): string =>
    `fuzz ${route}: ${[...seen.values()].reduce((a, b) => a + b, 0)} cases, ${seen.get(2) ?? 0} answered 2xx, ${seen.get(4) ?? 0} refused 4xx, ${seen.get(5) ?? 0} 5xx`;
  const creates = (): number => planes.ark.calls.filter((c) => c.method === 'POST').length + planes.arkTwo.calls.filter((c) => c.method === 'POST').length;

  async function check(path: string, body: string, seen: Map<number, number>, objectBody: boolean): Promise<void> {
    const before = creates();
    const answer = await v.request(ALICE, 'POST', path, body);
    seen.set(Math.floor(answer.status / 100), (seen.get(Math.floor(answer.status / 100)) ?? 0) + 1);
    try {
      assert.ok(answer.status < 500, 'a 5xx');
      if (answer.status >= 400) {
        const error = answer.body['error'] as Record<string, unknown> | undefined;
        assert.ok(error !== undefined && typeof error['message'] === 'string' && typeof error['type'] === 'string', 'not an OpenAI error body');
        assert.deepEqual(Object.keys(answer.body), ['error']);
        if (objectBody && answer.status === 400) assert.equal(typeof error['param'], 'string', 'the refusal names no field');
        assert.equal(creates(), before, 'a refused body reached the upstream');
      } else {
        assert.equal(answer.body['object'], 'video');
        assert.equal(creates(), before + 1);
      }
    } catch (err) {
      throw new Error(`${(err as Error).message}\nPOST ${path} ${body.slice(0, 1500)}\n-> ${answer.status} ${answer.text.slice(0, 800)}`, { cause: err });
    }
  }

  for (const [path, arbitrary] of [
    ['/v1/video/generations', generations],
    ['/v1/videos', openai],
  ] as const) {
    it(`${path}: near-valid bodies broken at arbitrary places (${RUNS} runs)`, async (t) => {
      const seen = new Map<number, number>();
      await fc.assert(
        fc.asyncProperty(fc.tuple(arbitrary, fc.array(mutation, { minLength: 0, maxLength: 2 })), async ([body, mutations]) => {
          const sent = mutate(body, mutations);
          await check(path, JSON.stringify(sent), seen, typeof sent === 'object' && sent !== null && !Array.isArray(sent));
        }),
        { numRuns: RUNS, includeErrorInReport: true },
      );
      t.diagnostic(counts(path, seen));
      assert.ok((seen.get(2) ?? 0) > 0 && (seen.get(4) ?? 0) > 0, `answers and refusals both reached: ${JSON.stringify([...seen])}`);
    });
  }

  it(`arbitrary JSON on both routes (${RUNS} runs)`, async (t) => {
    const seen = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('/v1/video/generations', '/v1/videos'), anyJson, async (path, body) => {
        await check(path, JSON.stringify(body), seen, false);
      }),
      { numRuns: RUNS, includeErrorInReport: true },
    );
    t.diagnostic(counts('video routes, arbitrary JSON', seen));
  });

  it('the gateway is healthy afterwards', async () => {
    assert.equal((await fetch(`${v.gw.url}/healthz`)).status, 200);
    assert.equal((await fetch(`${v.gw.url}/readyz`)).status, 200);
  });
});
