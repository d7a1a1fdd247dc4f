// The Images API through the gateway, with the official openai SDK: generations (b64_json, url, stream) and edits
// (one image and a mask, two images as image[]), relayed to a fake OpenAI Images upstream. The multipart bytes the
// upstream receives are the bytes the client sent, and the answer the client gets is the bytes the upstream sent;
// usage records count images and tokens; bad input is refused in OpenAI's shape before anything goes upstream.

import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import OpenAI, { toFile } from 'openai';
import { PNG } from 'pngjs';
import { parseOpenAIError } from '../helpers/chat-requests.js';
import { freePort } from '../helpers/cli-process.js';
import { FAKE_IMAGE_USAGE, FakeOpenAIImages, fieldOf, tinyPng } from '../helpers/fake-openai-images.js';
import { LIMITED_KEY, TEST_KEY, configWith, startGatewayUnderTest, type GatewayUnderTest } from '../helpers/gateway-under-test.js';
import type { RecordedRequest } from '../helpers/loopback-http-server.js';
import { series } from '../helpers/metric-series.js';

/** What the client sent and got, as bytes: recorded by the fetch the SDK is given. */
interface Exchange {
  readonly contentType: string;
  readonly sent: Buffer;
  readonly received: Buffer;
}

let fake: FakeOpenAIImages;
let gw: GatewayUnderTest;
const exchanges: Exchange[] = [];

function imagesChannel(name: string, url: string, extra = ''): string {
  return `  - name: ${name}
    type: openai
    base_url: ${url}
    keys: ["sk-upstream-${name}-0123456789"]
    models: ["gpt-image-*", "dall-e-*"]
    cooldown_ms: 0
${extra}`;
}

before(async () => {
  fake = await new FakeOpenAIImages('img').start();
  gw = await startGatewayUnderTest(
    configWith(
      imagesChannel('img', fake.url, '    images:\n      max_n:\n        "gpt-image-*": 4\n') +
        `  - name: aliased
    type: openai
    base_url: ${fake.url}
    keys: ["sk-upstream-aliased-0123456789"]
    models: { "house-image": "gpt-image-1" }
`,
    ),
  );
});

beforeEach(() => {
  fake.reply = (req) => (req.body['stream'] === true || fieldOf(req, 'stream') === 'true' ? { kind: 'stream' } : { kind: 'images' });
});

after(async () => {
  await gw.stop();
  await fake.close();
});

/** The SDK on the gateway, through a fetch that keeps the exact bytes of each request and answer. */
function client(baseURL = `${gw.url}/v1`, key = TEST_KEY): OpenAI {
  const recording: typeof fetch = async (input, init) => {
    const request = new Request(input, init);
    const sent = Buffer.from(await request.arrayBuffer());
    const res = await fetch(request.url, { method: request.method, headers: request.headers, ...(sent.length > 0 ? { body: sent } : {}) });
    const received = Buffer.from(await res.clone().arrayBuffer());
    exchanges.push({ contentType: request.headers.get('content-type') ?? '', sent, received });
    return res;
  };
  return new OpenAI({ apiKey: key, baseURL, fetch: recording, maxRetries: 0 });
}

function lastExchange(): Exchange {
  const last = exchanges.at(-1);
  assert.ok(last !== undefined);
  return last;
}

/** The upstream got exactly the client's body and content type (a form's boundary included). */
function assertForwardedAsSent(): void {
  const { contentType, sent } = lastExchange();
  const upstream = fake.requests.at(-1);
  assert.ok(upstream !== undefined);
  assert.equal(upstream.headers['content-type'], contentType);
  assert.ok(upstream.raw.equals(sent), 'the upstream received other bytes than the client sent');
}

function decodePng(b64: string): PNG {
  return PNG.sync.read(Buffer.from(b64, 'base64'));
}

async function recordOf(route: string): Promise<Awaited<ReturnType<GatewayUnderTest['usage']>>[number]> {
  const record = (await gw.usage()).find((r) => r.route === route && r.requestId === lastRequestId);
  assert.ok(record !== undefined, `no usage record for ${route}`);
  return record;
}

let lastRequestId = '';

async function answerOf<T>(promise: { withResponse(): Promise<{ data: T; response: Response }> }): Promise<T> {
  const { data, response } = await promise.withResponse();
  lastRequestId = response.headers.get('x-request-id') ?? '';
  return data;
}

describe('the openai SDK through the gateway', () => {
  test('images.generate with b64_json: the upstream gets the client bytes, the SDK the upstream bytes, usage is recorded', async () => {
    const image = await answerOf(client().images.generate({ model: 'gpt-image-1', prompt: 'a lighthouse at dawn', n: 1, size: '1024x1024' }));
    assertForwardedAsSent();
    assert.ok(lastExchange().received.equals(fake.lastAnswer));
    assert.deepEqual(image, JSON.parse(fake.lastAnswer.toString()));
    assert.equal(decodePng(image.data?.[0]?.b64_json ?? '').width, 4);
    const record = await recordOf('/v1/images/generations');
    assert.equal(record.model, 'gpt-image-1');
    assert.equal(record.channel, 'img');
    assert.equal(record.status, 200);
    assert.equal(record.images, 1);
    assert.equal(record.promptTokens, FAKE_IMAGE_USAGE.input_tokens);
    assert.equal(record.completionTokens, FAKE_IMAGE_USAGE.output_tokens);
    assert.equal(record.inputImageTokens, FAKE_IMAGE_USAGE.input_tokens_details.image_tokens);
    assert.equal(record.outputImageTokens, FAKE_IMAGE_USAGE.output_tokens_details.image_tokens);
  });

  test('images.generate with url (dall-e-2): passed through, two images counted, no tokens', async () => {
    const image = await answerOf(client().images.generate({ model: 'dall-e-2', prompt: 'a lighthouse', response_format: 'url', n: 2 }));
    assertForwardedAsSent();
    assert.ok(lastExchange().received.equals(fake.lastAnswer));
    assert.deepEqual(
      image.data?.map((d) => d.url),
      ['https://images.example.test/img/0.png', 'https://images.example.test/img/1.png'],
    );
    const record = await recordOf('/v1/images/generations');
    assert.equal(record.images, 2);
    assert.equal(record.promptTokens, 0);
    assert.equal(record.outputImageTokens, 0);
  });

  test('images.edit with one image and a mask: the multipart bytes reach the upstream unchanged', async () => {
    const image = await answerOf(
      client().images.edit({
        model: 'gpt-image-1',
        image: await toFile(tinyPng(10), 'photo.png', { type: 'image/png' }),
        mask: await toFile(tinyPng(0), 'mask.png', { type: 'image/png' }),
        prompt: 'add a red balloon',
        size: '1024x1024',
      }),
    );
    assertForwardedAsSent();
    assert.match(lastExchange().contentType, /^multipart\/form-data; boundary=/);
    const raw = fake.requests.at(-1)?.raw.toString('latin1') ?? '';
    assert.match(raw, /name="image"; filename="photo.png"/);
    assert.match(raw, /name="mask"; filename="mask.png"/);
    assert.ok(lastExchange().received.equals(fake.lastAnswer));
    assert.deepEqual(image, JSON.parse(fake.lastAnswer.toString()));
    const record = await recordOf('/v1/images/edits');
    assert.equal(record.images, 1);
    assert.equal(record.inputImageTokens, FAKE_IMAGE_USAGE.input_tokens_details.image_tokens);
  });

  test('images.edit with two images sent as image[]: both files reach the upstream, bytes unchanged', async () => {
    await answerOf(
      client().images.edit({
        model: 'gpt-image-1',
        image: [await toFile(tinyPng(10), 'one.png', { type: 'image/png' }), await toFile(tinyPng(90), 'two.png', { type: 'image/png' })],
        prompt: 'put them side by side',
      }),
    );
    assertForwardedAsSent();
    const raw = fake.requests.at(-1)?.raw.toString('latin1') ?? '';
    assert.equal(raw.match(/name="image\[\]"; filename="(one|two)\.png"/g)?.length, 2);
  });

  test('a streamed generation passes through as SSE, byte for byte, and its completed event is counted', async () => {
    const events: string[] = [];
    const stream = await client().images.generate({ model: 'gpt-image-1', prompt: 'a fox', stream: true, partial_images: 1 });
    for await (const event of stream) events.push(event.type);
    assert.deepEqual(events, ['image_generation.partial_image', 'image_generation.completed']);
    assertForwardedAsSent();
    assert.ok(lastExchange().received.equals(fake.lastAnswer));
    const records = (await gw.usage()).filter((r) => r.route === '/v1/images/generations' && r.stream); // newest first
    const record = records[0];
    assert.equal(record?.images, 1);
    assert.equal(record?.completionTokens, FAKE_IMAGE_USAGE.output_tokens);
  });

  test('a streamed edit passes through as SSE and is counted', async () => {
    const events: string[] = [];
    const stream = await client().images.edit({
      model: 'gpt-image-1',
      image: await toFile(tinyPng(), 'p.png', { type: 'image/png' }),
      prompt: 'sketch it',
      stream: true,
    });
    for await (const event of stream) events.push(event.type);
    assert.deepEqual(events, ['image_edit.partial_image', 'image_edit.completed']);
    assertForwardedAsSent();
    assert.ok(lastExchange().received.equals(fake.lastAnswer));
    const record = (await gw.usage()).filter((r) => r.route === '/v1/images/edits' && r.stream)[0];
    assert.equal(record?.images, 1);
    assert.equal(record?.outputImageTokens, FAKE_IMAGE_USAGE.output_tokens_details.image_tokens);
  });

  test('without a model, OpenAI\'s default is routed, checked, billed and written into what the upstream gets', async () => {
    const res = await fetch(`${gw.url}/v1/images/generations`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
      body: '{"prompt":"x","background":"transparent"}',
    });
    assert.equal(res.status, 200, await res.text());
    assert.equal(fake.requests.at(-1)?.body['model'], 'gpt-image-1');
    const plain = await fetch(`${gw.url}/v1/images/edits`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': MULTIPART },
      body: form([['prompt', 'x'], ['image', PNG_PART]]),
    });
    assert.equal(plain.status, 200, await plain.text());
    assert.equal(fieldOf(fake.requests.at(-1) as RecordedRequest, 'model'), 'dall-e-2');
    const records = await gw.usage();
    const modelOf = (r: Response): string | undefined => records.find((record) => record.requestId === r.headers.get('x-request-id'))?.model;
    assert.deepEqual([modelOf(res), modelOf(plain)], ['gpt-image-1', 'dall-e-2']);
  });

  test('a client model name aliased by its channel is rewritten in the form, every other byte kept', async () => {
    await answerOf(
      client().images.edit({ model: 'house-image', image: await toFile(tinyPng(), 'p.png', { type: 'image/png' }), prompt: 'brighter' }),
    );
    const { sent } = lastExchange();
    const upstream = fake.requests.at(-1)?.raw ?? Buffer.alloc(0);
    const expected = sent.toString('latin1').replace(/(name="model"\r\n\r\n)house-image\r\n/, '$1gpt-image-1\r\n');
    assert.notEqual(expected, sent.toString('latin1'));
    assert.equal(upstream.toString('latin1'), expected);
    const record = await recordOf('/v1/images/edits');
    assert.equal(record.model, 'house-image');
    assert.equal(record.upstreamModel, 'gpt-image-1');
  });
});

/** A form as curl -F sends it, with our own boundary. */
function form(parts: readonly (readonly [name: string, value: string | { file: Buffer; filename: string }])[], boundary = 'gw-test-boundary'): Buffer {
  const chunks: Buffer[] = [];
  for (const [name, value] of parts) {
    if (typeof value === 'string') {
      chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`));
    } else {
      chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"; filename="${value.filename}"\r\nContent-Type: image/png\r\n\r\n`));
      chunks.push(value.file, Buffer.from('\r\n'));
    }
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return Buffer.concat(chunks);
}

const MULTIPART = 'multipart/form-data; boundary=gw-test-boundary';
const PNG_PART = { file: tinyPng(), filename: 'p.png' };

interface Refusal {
  readonly name: string;
  readonly path: '/v1/images/generations' | '/v1/images/edits';
  readonly body: string | Buffer;
  readonly contentType: string;
  readonly key?: string;
  readonly status: number;
  readonly param?: string | null;
  readonly code?: string;
  readonly message?: RegExp;
  /**
   * Refused after routing (a channel's cap), so metered as a failed request is: a record with the 400, as for
   * a model no channel serves. The others are refused before metering begins.
   */
  readonly recorded?: true;
}

const REFUSALS: readonly Refusal[] = [
  { name: 'generation: bad key', path: '/v1/images/generations', body: '{"model":"gpt-image-1","prompt":"x"}', contentType: 'application/json', key: 'sk-wrong-0123456789abcdefghij', status: 401 },
  { name: 'edit: bad key', path: '/v1/images/edits', body: form([['model', 'gpt-image-1'], ['prompt', 'x'], ['image', PNG_PART]]), contentType: MULTIPART, key: 'sk-wrong-0123456789abcdefghij', status: 401 },
  { name: 'generation: model outside the group', path: '/v1/images/generations', body: '{"model":"gpt-image-1","prompt":"x"}', contentType: 'application/json', key: LIMITED_KEY, status: 403 },
  { name: 'edit: model outside the group', path: '/v1/images/edits', body: form([['model', 'gpt-image-1'], ['prompt', 'x'], ['image', PNG_PART]]), contentType: MULTIPART, key: LIMITED_KEY, status: 403 },
  { name: 'generation: no prompt', path: '/v1/images/generations', body: '{"model":"gpt-image-1"}', contentType: 'application/json', status: 400, param: 'prompt', code: 'missing_required_parameter' },
  { name: 'generation: n is 0', path: '/v1/images/generations', body: '{"model":"gpt-image-1","prompt":"x","n":0}', contentType: 'application/json', status: 400, param: 'n' },
  { name: 'generation: n is a string', path: '/v1/images/generations', body: '{"model":"gpt-image-1","prompt":"x","n":"2"}', contentType: 'application/json', status: 400, param: 'n' },
  { name: 'generation: n is 1.5', path: '/v1/images/generations', body: '{"model":"gpt-image-1","prompt":"x","n":1.5}', contentType: 'application/json', status: 400, param: 'n' },
  { name: 'generation: n above the channel cap', path: '/v1/images/generations', body: '{"model":"gpt-image-1","prompt":"x","n":5}', contentType: 'application/json', status: 400, param: 'n', message: /at most 4 images/, recorded: true },
  { name: 'generation: not JSON', path: '/v1/images/generations', body: '{"model":', contentType: 'application/json', status: 400, code: 'invalid_json' },
  { name: 'generation: a form instead of JSON', path: '/v1/images/generations', body: form([['prompt', 'x']]), contentType: MULTIPART, status: 415, code: 'unsupported_media_type' },
  { name: 'generation: text/plain', path: '/v1/images/generations', body: '{"model":"gpt-image-1","prompt":"x"}', contentType: 'text/plain', status: 415, code: 'unsupported_media_type' },
  { name: 'edit: a JSON body', path: '/v1/images/edits', body: '{"model":"gpt-image-1","prompt":"x","image":"data:image/png;base64,AAAA"}', contentType: 'application/json', status: 400, param: 'image', message: /multipart\/form-data/ },
  { name: 'edit: text/plain', path: '/v1/images/edits', body: 'prompt=x', contentType: 'text/plain', status: 415, code: 'unsupported_media_type' },
  { name: 'edit: no image', path: '/v1/images/edits', body: form([['model', 'gpt-image-1'], ['prompt', 'x']]), contentType: MULTIPART, status: 400, param: 'image', code: 'missing_required_parameter' },
  { name: 'edit: image sent as text', path: '/v1/images/edits', body: form([['model', 'gpt-image-1'], ['prompt', 'x'], ['image', 'photo.png']]), contentType: MULTIPART, status: 400, param: 'image', message: /expected a file/ },
  { name: 'edit: image[] sent as text', path: '/v1/images/edits', body: form([['model', 'gpt-image-1'], ['prompt', 'x'], ['image[]', 'a.png']]), contentType: MULTIPART, status: 400, param: 'image[]', message: /expected a file/ },
  { name: 'edit: mask sent as text', path: '/v1/images/edits', body: form([['model', 'gpt-image-1'], ['prompt', 'x'], ['image', PNG_PART], ['mask', 'm.png']]), contentType: MULTIPART, status: 400, param: 'mask' },
  { name: 'edit: no prompt', path: '/v1/images/edits', body: form([['model', 'gpt-image-1'], ['image', PNG_PART]]), contentType: MULTIPART, status: 400, param: 'prompt' },
  { name: 'edit: n is not a number', path: '/v1/images/edits', body: form([['model', 'gpt-image-1'], ['prompt', 'x'], ['n', 'two'], ['image', PNG_PART]]), contentType: MULTIPART, status: 400, param: 'n' },
  { name: 'edit: n above the channel cap', path: '/v1/images/edits', body: form([['model', 'gpt-image-1'], ['prompt', 'x'], ['n', '9'], ['image', PNG_PART]]), contentType: MULTIPART, status: 400, param: 'n', message: /at most 4 images/, recorded: true },
  { name: 'edit: model sent twice', path: '/v1/images/edits', body: form([['model', 'dall-e-2'], ['model', 'gpt-image-1'], ['prompt', 'x'], ['image', PNG_PART]]), contentType: MULTIPART, status: 400, param: 'model', message: /more than once/ },
  { name: 'edit: n sent twice', path: '/v1/images/edits', body: form([['model', 'gpt-image-1'], ['n', '1'], ['n', '10'], ['prompt', 'x'], ['image', PNG_PART]]), contentType: MULTIPART, status: 400, param: 'n', message: /more than once/ },
  { name: 'edit: stream is neither true nor false', path: '/v1/images/edits', body: form([['model', 'gpt-image-1'], ['stream', '1'], ['prompt', 'x'], ['image', PNG_PART]]), contentType: MULTIPART, status: 400, param: 'stream' },
  {
    name: 'edit: a part whose name the gateway and busboy read differently',
    path: '/v1/images/edits',
    body: Buffer.concat([
      Buffer.from(`--gw-test-boundary\r\nContent-Disposition: form-data; name*=utf-8''model\r\n\r\ngpt-image-1\r\n`),
      form([['model', 'gpt-image-1'], ['prompt', 'x'], ['image', PNG_PART]]),
    ]),
    contentType: MULTIPART,
    status: 400,
    message: /multipart body could not be read/,
  },
  { name: 'edit: a form cut short', path: '/v1/images/edits', body: form([['model', 'gpt-image-1'], ['prompt', 'x'], ['image', PNG_PART]]).subarray(0, 200), contentType: MULTIPART, status: 400, message: /multipart body could not be read/ },
  { name: 'edit: a form without its boundary', path: '/v1/images/edits', body: form([['prompt', 'x'], ['image', PNG_PART]]), contentType: 'multipart/form-data', status: 400, message: /multipart body could not be read/ },
  // configWith sets server.body_limit to 64 KiB.
  { name: 'generation: over the body limit', path: '/v1/images/generations', body: JSON.stringify({ model: 'gpt-image-1', prompt: 'x'.repeat(70_000) }), contentType: 'application/json', status: 413 },
  { name: 'edit: over the body limit', path: '/v1/images/edits', body: form([['model', 'gpt-image-1'], ['prompt', 'x'], ['image', { file: Buffer.alloc(70_000, 1), filename: 'big.png' }]]), contentType: MULTIPART, status: 413 },
];

describe('bad input on the image routes', () => {
  for (const refusal of REFUSALS) {
    test(`${refusal.name}: ${refusal.status} in OpenAI's shape, nothing sent upstream, no usage written`, async () => {
      const upstreamBefore = fake.requests.length;
      const usageBefore = (await gw.usage()).length;
      const res = await fetch(`${gw.url}${refusal.path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${refusal.key ?? TEST_KEY}`, 'content-type': refusal.contentType },
        body: refusal.body,
      });
      const text = await res.text();
      assert.equal(res.status, refusal.status, text);
      const error = parseOpenAIError(text);
      if (refusal.param !== undefined) assert.equal(error.param, refusal.param, text);
      if (refusal.code !== undefined) assert.equal(error.code, refusal.code, text);
      if (refusal.message !== undefined) assert.match(error.message, refusal.message);
      assert.equal(fake.requests.length, upstreamBefore, 'the upstream was called');
      const usage = await gw.usage();
      if (refusal.recorded === true) {
        assert.equal(usage.length, usageBefore + 1);
        assert.equal(usage.find((r) => r.requestId === res.headers.get('x-request-id'))?.status, 400);
      } else {
        assert.equal(usage.length, usageBefore, 'usage was written');
      }
    });
  }
});

describe('failover on the image routes', () => {
  let first: FakeOpenAIImages;
  let second: FakeOpenAIImages;
  let pair: GatewayUnderTest;
  let closedUrl = '';

  before(async () => {
    first = await new FakeOpenAIImages('first').start();
    second = await new FakeOpenAIImages('second').start();
    closedUrl = `http://127.0.0.1:${await freePort()}`;
  });

  after(async () => {
    await pair?.stop();
    await first.close();
    await second.close();
  });

  async function startPair(firstUrl: string): Promise<void> {
    await pair?.stop();
    pair = await startGatewayUnderTest(configWith(imagesChannel('first', firstUrl, '    priority: 10\n') + imagesChannel('second', second.url)));
  }

  test('a first channel that refuses connections: the edit goes to the second, the same bytes', async () => {
    await startPair(closedUrl);
    const before = second.requests.length;
    await answerOf(
      client(`${pair.url}/v1`).images.edit({ model: 'gpt-image-1', image: await toFile(tinyPng(), 'p.png', { type: 'image/png' }), prompt: 'x' }),
    );
    assert.equal(second.requests.length, before + 1);
    assert.ok(second.requests.at(-1)?.raw.equals(lastExchange().sent));
    const record = (await pair.usage())[0];
    assert.equal(record?.channel, 'second');
    assert.equal(record?.images, 1);
  });

  test('a channel capped below n is passed over for one that takes it; at or below the cap it serves', async () => {
    await pair?.stop();
    pair = await startGatewayUnderTest(
      configWith(imagesChannel('first', first.url, '    priority: 10\n    images:\n      max_n: 2\n') + imagesChannel('second', second.url)),
    );
    first.reply = () => ({ kind: 'images' });
    const [firstBefore, secondBefore] = [first.requests.length, second.requests.length];
    const three = await answerOf(client(`${pair.url}/v1`).images.generate({ model: 'gpt-image-1', prompt: 'x', n: 3 }));
    assert.equal(three.data?.length, 3);
    assert.deepEqual([first.requests.length, second.requests.length], [firstBefore, secondBefore + 1]);
    await answerOf(client(`${pair.url}/v1`).images.generate({ model: 'gpt-image-1', prompt: 'x', n: 2 }));
    assert.deepEqual([first.requests.length, second.requests.length], [firstBefore + 1, secondBefore + 1]);
  });

  test('drop_params removes a text field from the form, every other byte kept', async () => {
    await pair?.stop();
    pair = await startGatewayUnderTest(configWith(imagesChannel('second', second.url, '    drop_params: [user]\n')));
    const body = form([['model', 'gpt-image-1'], ['user', 'alice'], ['prompt', 'x'], ['image', PNG_PART]]);
    const res = await fetch(`${pair.url}/v1/images/edits`, { method: 'POST', headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': MULTIPART }, body });
    assert.equal(res.status, 200, await res.text());
    const expected = body.toString('latin1').replace('--gw-test-boundary\r\nContent-Disposition: form-data; name="user"\r\n\r\nalice\r\n', '');
    assert.equal(second.requests.at(-1)?.raw.toString('latin1'), expected);
  });

  test('a first channel that answers 500: the generation goes to the second', async () => {
    await startPair(first.url);
    first.reply = () => ({ kind: 'status', status: 500 });
    const firstBefore = first.requests.length;
    const image = await answerOf(client(`${pair.url}/v1`).images.generate({ model: 'gpt-image-1', prompt: 'x' }));
    assert.equal(first.requests.length, firstBefore + 1);
    assert.equal(second.requests.at(-1)?.path, '/v1/images/generations');
    assert.equal(image.data?.length, 1);
    assert.equal((await pair.usage())[0]?.channel, 'second');
  });
});

test('/metrics counts requests on both image routes', async () => {
  const text = await (await fetch(`${gw.url}/metrics`)).text();
  const requests = series(text, 'gateway_requests_total');
  const on = (route: string): number =>
    Object.entries(requests)
      .filter(([labels]) => labels.includes(`route="${route}"`))
      .reduce((sum, [, value]) => sum + value, 0);
  assert.ok(on('/v1/images/generations') >= 3, text);
  assert.ok(on('/v1/images/edits') >= 3, text);
  const images = series(text, 'gateway_images_total');
  assert.ok((images['{model="gpt-image-*",channel="img"}'] ?? 0) >= 4, text);
  assert.ok((series(text, 'gateway_tokens_total')['{model="gpt-image-*",channel="img",kind="output_image"}'] ?? 0) >= FAKE_IMAGE_USAGE.output_tokens, text);
});
