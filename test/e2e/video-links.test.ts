// Every link of a video task is checked before anything is sent, and the body Ark gets is rebuilt from the checked
// values (issue 40, findings 3 and 4). Ark's parser matches JSON keys without regard to case, the last one winning:
// a second `URL`, an `Image_URL` sibling, an `IMAGE_URL` type, or an `asset://` in a text must not carry another key's
// asset past the check. URLs anywhere in the request are held to CreateAsset's rules (https only, public addresses,
// names resolved). Each refusal is a 400 in OpenAI's shape, and Ark's create route is not called.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { until } from '../helpers/poll.js';
import { ALICE, BOB, SEEDANCE, startVideoGateway, startVideoPlanes, type VideoGateway, type VideoPlanes } from '../helpers/video-gateway.js';

const PUBLIC = 'https://93.184.215.14/a.png';

describe('the links of a video task', () => {
  let planes: VideoPlanes;
  let v: VideoGateway;
  let mine = '';
  let bobs = '';
  const creates = (): number => [...planes.ark.calls, ...planes.arkTwo.calls].filter((c) => c.method === 'POST').length;
  const asset = async (key: string, action: string, body: unknown): Promise<Record<string, unknown>> => {
    const answer = await v.request(key, 'POST', `/v1/videogen/asset/${action}`, body);
    assert.equal(answer.status, 200, answer.text);
    return answer.body['Result'] as Record<string, unknown>;
  };
  const activeAsset = async (key: string): Promise<string> => {
    const group = String((await asset(key, 'CreateAssetGroup', { Name: 'refs' }))['Id']);
    const id = String((await asset(key, 'CreateAsset', { GroupId: group, URL: PUBLIC, AssetType: 'Image' }))['Id']);
    await until('Active', async () => ((await asset(key, 'GetAsset', { Id: id }))['Status'] === 'Active' ? true : undefined), { timeoutMs: 5000, intervalMs: 50 });
    return id;
  };
  /** Refused with a 400 in OpenAI's shape, naming a field, and nothing reached Ark's create route. */
  const refused = async (path: string, body: unknown, code?: string): Promise<Record<string, unknown>> => {
    const before = creates();
    const answer = await v.request(ALICE, 'POST', path, body);
    assert.equal(answer.status, 400, `${JSON.stringify(body)} -> ${answer.text}`);
    const error = answer.body['error'] as Record<string, unknown>;
    assert.equal(typeof error['message'], 'string');
    assert.equal(typeof error['param'], 'string', answer.text);
    if (code !== undefined) assert.equal(error['code'], code, answer.text);
    assert.equal(creates(), before, `${JSON.stringify(body)} reached Ark`);
    return error;
  };
  const generations = (extra: Record<string, unknown>) => Object.assign({ model: SEEDANCE, prompt: 'the hero waves' }, extra);
  const content = (...items: unknown[]) => generations({ metadata: { content: items } });

  before(async () => {
    planes = await startVideoPlanes();
    v = await startVideoGateway(planes);
    mine = await activeAsset(ALICE);
    bobs = await activeAsset(BOB);
  });
  after(async () => {
    await v.stop();
    await planes.close();
  });

  test("a second key differing only by case cannot carry another key's asset", async () => {
    const path = '/v1/video/generations';
    await refused(path, content({ type: 'image_url', image_url: { url: PUBLIC, URL: `asset://${bobs}` }, role: 'reference_image' }));
    await refused(path, content({ type: 'image_url', image_url: { url: PUBLIC }, Image_URL: { url: `asset://${bobs}` } }));
    await refused(path, content({ type: 'IMAGE_URL', IMAGE_URL: { url: `asset://${bobs}` } }));
    await refused(path, content({ type: 'image_url', image_url: { url: PUBLIC }, Role: 'first_frame', role: 'reference_image' }));
    await refused(path, generations({ images: [{ url: PUBLIC, URL: `asset://${bobs}` }] }));
    await refused(path, generations({ images: [PUBLIC], Images: [`asset://${bobs}`] }));
    await refused(path, generations({ metadata: { content: [], Content: [{ type: 'image_url', image_url: { url: `asset://${bobs}` } }] } }));
    await refused('/v1/videos', { model: SEEDANCE, prompt: 'x', input_reference: { image_url: PUBLIC, Image_url: `asset://${bobs}` } });
    // Two fields for one thing: the one not read would carry a link nobody checked.
    await refused(path, generations({ images: [PUBLIC], image: `asset://${bobs}` }));
    await refused('/v1/videos', { model: SEEDANCE, prompt: 'x', input_reference: PUBLIC, 'input_reference[image_url]': `asset://${bobs}` });
  });

  test('items and fields with keys Ark does not document are refused, not forwarded', async () => {
    const path = '/v1/video/generations';
    await refused(path, content({ type: 'image_url', image_url: { url: PUBLIC }, detail: `asset://${bobs}` }));
    await refused(path, content({ type: 'text', text: 'x', image_url: { url: `asset://${bobs}` } }));
    await refused(path, content({ type: 'image_url', image_url: { url: PUBLIC, file: `asset://${bobs}` } }));
    await refused(path, generations({ metadata: { tools: [{ type: 'web_search', url: `asset://${bobs}` }] } }));
    await refused(path, generations({ metadata: { seed: { url: `asset://${bobs}` } } }));
    await refused(path, generations({ metadata: { safety_identifier: `asset://${bobs}` } }));
  });

  test("an asset:// link in a text is held to ownership: another key's is refused as unknown", async () => {
    const path = '/v1/video/generations';
    await refused(path, content({ type: 'text', text: `the hero of asset://${bobs} waves` }), 'invalid_asset_reference');
    await refused(path, generations({ prompt: `see ASSET://${bobs}` }), 'invalid_asset_reference');
    await refused('/v1/videos', { model: SEEDANCE, prompt: `like asset://${bobs}` }, 'invalid_asset_reference');
    // A sentence's end after the link is not part of the id: the link is still held to ownership.
    await refused('/v1/videos', { model: SEEDANCE, prompt: `like asset://${bobs}.` }, 'invalid_asset_reference');
  });

  test("internal and non-https URLs are refused wherever they are, by CreateAsset's rules", async () => {
    const path = '/v1/video/generations';
    for (const url of ['http://169.254.169.254/latest/meta-data/', 'file:///etc/passwd', 'http://127.0.0.1:6379/', 'https://127.0.0.1/x.png', 'https://[::1]/x.png', 'https://cdn.internal-test/x.png', 'https://localhost/x.png', 'gopher://93.184.215.14/', ' asset://x']) {
      const error = await refused(path, generations({ images: [url] }));
      assert.equal(error['param'], 'images[0]', url);
    }
    await refused(path, generations({ images: [{ url: 'http://169.254.169.254/latest/meta-data/', role: 'first_frame' }] }), 'invalid_url');
    await refused(path, content({ type: 'video_url', video_url: { url: 'http://[::1]:8080/admin' }, role: 'reference_video' }), 'invalid_url');
    await refused(path, content({ type: 'audio_url', audio_url: { url: 'https://10.0.0.5/a.mp3' }, role: 'reference_audio' }), 'invalid_url');
    await refused(path, content({ type: 'image_url', image_url: { url: 'https://user:pw@93.184.215.14/a.png' } }), 'invalid_url');
    await refused('/v1/videos', { model: SEEDANCE, prompt: 'x', input_reference: 'http://10.0.0.5/x' }, 'invalid_url');
    await refused('/v1/videos', { model: SEEDANCE, prompt: 'x', input_reference: { image_url: 'https://cdn.internal-test/x' } }, 'invalid_url');
    // Each host name is resolved before the task is taken: at most 8 of them.
    const hosts = Array.from({ length: 9 }, (_, i) => `https://cdn${i}.example.com/a.png`);
    assert.equal((await refused(path, generations({ images: hosts }), 'invalid_url'))['param'], 'images[8]');
    // OpenAI's SDK form.
    const form = new FormData();
    form.set('model', SEEDANCE);
    form.set('prompt', 'x');
    form.set('input_reference', 'http://10.0.0.5/x');
    const before = creates();
    const answer = await fetch(`${v.gw.url}/v1/videos`, { method: 'POST', headers: { authorization: `Bearer ${ALICE}` }, body: form });
    assert.equal(answer.status, 400);
    assert.equal(((await answer.json()) as { error: { code: string } }).error.code, 'invalid_url');
    assert.equal(creates(), before);
    // And through the SDK itself, whose `input_reference: {image_url}` goes as the form's `input_reference[image_url]`.
    const client = new OpenAI({ apiKey: ALICE, baseURL: `${v.gw.url}/v1`, maxRetries: 0 });
    for (const image_url of ['http://10.0.0.5/x', 'https://169.254.169.254/latest/meta-data/', `asset://${bobs}`]) {
      await assert.rejects(client.videos.create({ model: SEEDANCE, prompt: 'x', input_reference: { image_url } }), (err: unknown) => {
        assert.ok(err instanceof OpenAI.APIError && err.status === 400, String(err));
        assert.ok(err.code === 'invalid_url' || err.code === 'invalid_asset_reference', String(err.code));
        return true;
      });
    }
    assert.equal(creates(), before);
  });

  test('a good body reaches Ark rebuilt: links in their checked form, fields as read', async () => {
    const before = creates();
    const answer = await v.request(
      ALICE,
      'POST',
      '/v1/video/generations',
      generations({
        prompt: `the hero of asset://${mine}. He waves (no other asset:// here)`,
        images: ['https://CDN.Example.com/a.png', { url: `ASSET://${mine}`, role: 'first_frame' }, { image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } }],
        metadata: {
          ratio: '16:9',
          seed: 7,
          watermark: false,
          tools: [{ type: 'web_search' }],
          callback_url: 'https://93.184.215.14/cb',
          content: [
            { type: 'video_url', video_url: { url: 'https://cdn.example.com/v.mp4' }, role: 'reference_video' },
            { type: 'audio_url', audio_url: { url: `asset://${mine}` }, role: 'reference_audio' },
            { type: 'text', text: 'then bows' },
          ],
        },
      }),
    );
    assert.equal(answer.status, 200, answer.text);
    assert.equal(creates(), before + 1);
    const sent = [...planes.ark.tasks.values()].pop()?.request as Record<string, unknown>;
    assert.deepEqual(sent['content'], [
      { type: 'text', text: `the hero of asset://${mine}. He waves (no other asset:// here)` },
      { type: 'image_url', image_url: { url: 'https://cdn.example.com/a.png' }, role: 'reference_image' },
      { type: 'image_url', image_url: { url: `asset://${mine}` }, role: 'first_frame' },
      { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' }, role: 'reference_image' },
      { type: 'video_url', video_url: { url: 'https://cdn.example.com/v.mp4' }, role: 'reference_video' },
      { type: 'audio_url', audio_url: { url: `asset://${mine}` }, role: 'reference_audio' },
      { type: 'text', text: 'then bows' },
    ]);
    const { content: _content, execution_expires_after: expires, ...fields } = sent;
    assert.equal(typeof expires, 'number');
    assert.deepEqual(fields, { model: SEEDANCE, ratio: '16:9', seed: 7, watermark: false, tools: [{ type: 'web_search' }], resolution: '720p', duration: 5 });
  });
  // A body over 8 KiB is read as a skeleton whose long nested strings are left undecoded: the task must be built from
  // the whole body, or a long text, a signed URL or a data: image would be sent (or refused) as a placeholder.
  test('a large body reaches Ark whole: long texts, long URLs and data: images as sent', async () => {
    const before = creates();
    const text = 'then bows '.repeat(40);
    const signed = `https://cdn.example.com/a.png?sig=${'a'.repeat(400)}`;
    const image = `data:image/png;base64,${'A'.repeat(11 * 1024)}`;
    const answer = await v.request(
      ALICE,
      'POST',
      '/v1/video/generations',
      generations({
        prompt: `the hero waves ${'slowly '.repeat(1300)}`,
        images: [{ url: image }],
        metadata: { content: [{ type: 'image_url', image_url: { url: signed } }, { type: 'text', text }] },
      }),
    );
    assert.equal(answer.status, 200, answer.text);
    assert.equal(creates(), before + 1);
    const sent = [...planes.ark.tasks.values()].pop()?.request as Record<string, unknown>;
    const items = sent['content'] as { type: string; text?: string; image_url?: { url: string } }[];
    assert.deepEqual(
      items.map((item) => item.text ?? item.image_url?.url),
      [`the hero waves ${'slowly '.repeat(1300)}`, image, signed, text],
    );
  });
});
