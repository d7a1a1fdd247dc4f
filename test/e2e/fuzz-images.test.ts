// Fuzzing the image routes over loopback on the mock channel: near-valid generation bodies broken at arbitrary
// places, and edit forms with fields and files shuffled, repeated, mistyped or cut short. No body is answered with
// a 5xx, every refusal is in OpenAI's error shape, and every 2xx answer is a JSON object or a clean event stream.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { PNG } from 'pngjs';
import { mutate, mutation, type Json } from '../helpers/fuzz-bodies.js';
import { TEST_KEY, configWith, startGatewayUnderTest, type GatewayUnderTest } from '../helpers/gateway-under-test.js';
import { splitSse } from '../helpers/sse-text.js';

let gw: GatewayUnderTest;

before(async () => {
  gw = await startGatewayUnderTest(configWith('  - name: demo\n    type: mock\n    models: ["demo-*", "dall-e-*"]\n'));
});

after(async () => {
  await gw.stop();
});

function png(side: number): Buffer {
  const image = new PNG({ width: side, height: side });
  image.data.fill(200);
  return PNG.sync.write(image);
}

const REPORT = { includeErrorInReport: true } as const;
/** Small pictures keep the mock's drawing cheap. */
const SIZES = ['8x8', '16x16', '12x20', 'auto-not-a-size', ''];

const generation: fc.Arbitrary<Json> = fc.record(
  {
    model: fc.constantFrom('demo-image', 'dall-e-2', 'gpt-image-1'),
    prompt: fc.string({ maxLength: 40 }),
    n: fc.integer({ min: 1, max: 3 }),
    size: fc.constantFrom(...SIZES.slice(0, 3)),
    response_format: fc.constantFrom('b64_json', 'url'),
    stream: fc.boolean(),
    partial_images: fc.integer({ min: 0, max: 2 }),
  },
  { requiredKeys: ['prompt'] },
);

type Part = readonly [name: string, value: string | { readonly file: Buffer }];

const part: fc.Arbitrary<Part> = fc.oneof(
  fc.tuple(fc.constantFrom('model', 'prompt', 'n', 'size', 'stream', 'user', 'mask', 'image', 'image[]', ''), fc.oneof(fc.constantFrom('demo-image', 'true', 'false', '2', '0', '-1', 'x', ...SIZES), fc.string({ maxLength: 12 }))),
  fc.tuple(fc.constantFrom('image', 'image[]', 'mask', 'prompt', 'other'), fc.constantFrom(png(4), png(9), Buffer.from('not a png'), Buffer.alloc(0)).map((file) => ({ file }))),
);

/** A form of `parts` in curl's encoding, then cut after `cut` bytes when given. */
function form(parts: readonly Part[], cut: number | null): Buffer {
  const chunks: Buffer[] = [];
  for (const [name, value] of parts) {
    if (typeof value === 'string') {
      chunks.push(Buffer.from(`--fz\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`));
    } else {
      chunks.push(Buffer.from(`--fz\r\nContent-Disposition: form-data; name="${name}"; filename="f.png"\r\nContent-Type: image/png\r\n\r\n`), value.file, Buffer.from('\r\n'));
    }
  }
  chunks.push(Buffer.from('--fz--\r\n'));
  const whole = Buffer.concat(chunks);
  return cut === null ? whole : whole.subarray(0, cut % (whole.length + 1));
}

/** Near-valid edits: a prompt and an image first (so many are answered), then what fast-check adds. */
const edit: fc.Arbitrary<Buffer> = fc
  .tuple(
    fc.array(part, { maxLength: 4 }),
    fc.constantFrom(true, true, true, false),
    fc.oneof({ arbitrary: fc.constant(null), weight: 3 }, { arbitrary: fc.nat(), weight: 1 }),
  )
  .map(([more, valid, cut]) => form([...(valid ? ([['model', 'demo-image'], ['prompt', 'p'], ['size', '8x8'], ['image', { file: png(4) }]] as Part[]) : []), ...more], cut));

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

type Seen = Map<string, number>;

function counts(route: string, seen: Seen): string {
  return `fuzz ${route}: ${[...seen.values()].reduce((a, b) => a + b, 0)} cases, ${seen.get('2xx') ?? 0} answered 2xx, ${seen.get('4xx') ?? 0} refused 4xx, ${seen.get('5xx') ?? 0} 5xx`;
}

async function check(path: string, body: Buffer | string, contentType: string, seen: Seen): Promise<void> {
  const res = await fetch(`${gw.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': contentType }, body });
  const text = await res.text();
  const kind = `${Math.floor(res.status / 100)}xx`;
  seen.set(kind, (seen.get(kind) ?? 0) + 1);
  try {
    assert.ok(res.status < 500, 'a 5xx');
    if (res.status >= 400) {
      const json: unknown = JSON.parse(text);
      assert.ok(isObject(json) && isObject(json['error']), 'not an error body');
      assert.deepEqual(Object.keys(json['error']), ['message', 'type', 'param', 'code']);
    } else if ((res.headers.get('content-type') ?? '').includes('text/event-stream')) {
      for (const frame of splitSse(text)) {
        assert.ok(frame.data !== null && isObject(JSON.parse(frame.data)) && frame.event !== 'error', 'a bad or error frame');
      }
    } else {
      assert.ok(isObject(JSON.parse(text)), 'not a JSON object');
    }
  } catch (err) {
    const sent = (typeof body === 'string' ? body : body.toString('latin1')).slice(0, 1500);
    throw new Error(`${(err as Error).message}\nPOST ${path} ${sent}\n-> ${res.status} ${text.slice(0, 500)}`, { cause: err });
  }
}

describe('the image routes under fuzzing', () => {
  it('/v1/images/generations: near-valid bodies broken at arbitrary places, never a 5xx (400 runs)', async (t) => {
    const seen: Seen = new Map();
    const broken = fc.tuple(generation, fc.array(mutation, { minLength: 0, maxLength: 3 }));
    await fc.assert(
      fc.asyncProperty(broken, ([body, mutations]) => check('/v1/images/generations', JSON.stringify(mutate(body, mutations)), 'application/json', seen)),
      { numRuns: 400, ...REPORT },
    );
    t.diagnostic(counts('/v1/images/generations', seen));
    assert.ok((seen.get('2xx') ?? 0) >= 40 && (seen.get('4xx') ?? 0) >= 40, JSON.stringify([...seen]));
  });

  it('/v1/images/edits: forms shuffled, repeated, mistyped or cut short, never a 5xx (400 runs)', async (t) => {
    const seen: Seen = new Map();
    await fc.assert(
      fc.asyncProperty(edit, (body) => check('/v1/images/edits', body, 'multipart/form-data; boundary=fz', seen)),
      { numRuns: 400, ...REPORT },
    );
    t.diagnostic(counts('/v1/images/edits', seen));
    assert.ok((seen.get('2xx') ?? 0) >= 20 && (seen.get('4xx') ?? 0) >= 40, JSON.stringify([...seen]));
  });
});
