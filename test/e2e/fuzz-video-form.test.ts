// Fuzzing the multipart form of OpenAI's `POST /v1/videos` (what the official SDK's videos.create sends) against
// the fake Ark: the SDK's form broken at arbitrary places (parts dropped, repeated, renamed, of wrong or huge or
// non-UTF-8 values, a file for a field and back, odd dispositions, huge part headers; then the envelope: boundary
// and content type lies, LF for CRLF, no closing delimiter, cut short, bytes damaged), and token soup with a
// multipart content type. Never a 5xx nor a hang; a refusal is OpenAI's error shape as JSON; a 2xx is a video
// object; only a 2xx reaches Ark's create route; the gateway is healthy afterwards. Runs: GATEWAY_FUZZ_RUNS
// (default 300 per property).

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import type { FakeArk } from '../helpers/fake-ark.js';
import { ALICE, SEEDANCE, startVideoGateway, startVideoPlanes, type VideoGateway, type VideoPlanes } from '../helpers/video-gateway.js';

const RUNS = Number(process.env['GATEWAY_FUZZ_RUNS'] ?? 300);
/** An answer slower than this is a hang: each case is one small form on loopback. */
const ANSWER_MS = 15_000;
/** The boundary undici (the SDK's fetch) writes, give or take its random digits. */
const SDK_BOUNDARY = '----formdata-undici-012345678901';
/** Stands for the form's boundary inside a value, so a value can end its part early. */
const B = '{B}';

/** Bytes as a latin1 ("binary") string: every damage is a string edit, and Buffer.from(s, 'latin1') sends it as is. */
type Bytes = string;
const utf8 = (text: string): Bytes => Buffer.from(text, 'utf8').toString('latin1');

type Disposition = 'quoted' | 'unquoted' | 'extended' | 'nameless' | 'attachment';

interface Part {
  readonly name: string;
  readonly value: Bytes;
  readonly file: { readonly filename: string; readonly type: string } | null;
  readonly disposition: Disposition;
  /** Header lines after the disposition (each ending in CRLF). */
  readonly headers: Bytes;
}

const field = (name: string, value: string): Part => ({ name, value: utf8(value), file: null, disposition: 'quoted', headers: '' });

const URLS = ['https://93.184.215.14/a.png', 'data:image/png;base64,iVBORw0KGgo='];
/** input_reference as a file, as the SDK sends an upload (the gateway takes images by URL only). */
const PNG_FILE: Part = { name: 'input_reference', value: '\x89PNG\r\n\x1a\n', file: { filename: 'a.png', type: 'image/png' }, disposition: 'quoted', headers: '' };

/** The SDK's form: model, prompt, seconds, size, and input_reference as a URL, an object's field, or a file. */
const sdkForm: fc.Arbitrary<Part[]> = fc
  .record(
    {
      model: fc.constantFrom(SEEDANCE, SEEDANCE, 'doubao-seedance-1-0-pro'),
      prompt: fc.oneof(fc.string({ minLength: 1, maxLength: 40 }), fc.constantFrom('a fox waves', 'ünïcödé 視頻 🎬', 'two\r\nlines')),
      seconds: fc.constantFrom('4', '8', '12', '5', '-1'),
      size: fc.constantFrom('1280x720', '720x1280', '1024x1792', '720p'),
      reference: fc.oneof(
        { arbitrary: fc.constant(null), weight: 3 },
        { arbitrary: fc.constantFrom(...URLS).map((url) => field('input_reference', url)), weight: 2 },
        { arbitrary: fc.constantFrom(...URLS).map((url) => field('input_reference[image_url]', url)), weight: 2 },
        { arbitrary: fc.constant(PNG_FILE), weight: 1 },
      ),
    },
    { requiredKeys: ['model', 'prompt', 'reference'] },
  )
  .map(({ model, prompt, seconds, size, reference }) => [
    field('model', model),
    field('prompt', prompt),
    ...(seconds === undefined ? [] : [field('seconds', seconds)]),
    ...(size === undefined ? [] : [field('size', size)]),
    ...(reference === null ? [] : [reference]),
  ]);

const NAMES = fc.oneof(
  fc.constantFrom('model', 'prompt', 'seconds', 'size', 'input_reference', 'input_reference[image_url]', 'input_reference[url]', 'Model', 'prompt ', 'metadata', 'metadata[resolution]'),
  fc.constantFrom('duration', 'images', 'image', '__proto__', 'constructor', 'toString', '', 'seconds[]', 'ｐrompt', 'n\u00e4me', 'a"b', 'x'.repeat(300)),
  fc.string({ maxLength: 10 }),
);

/** Built once: a value past the form reader's 1 MiB field limit, and one past the prompt's 20,000 characters. */
const HUGE_FIELD = 'a'.repeat(1024 * 1024 + 1);
const LONG_PROMPT = 'p'.repeat(20_001);

const VALUES: fc.Arbitrary<Bytes> = fc.oneof(
  fc.constantFrom('', ' ', '0', '-1', '61', '4.5', '1e1', 'true', 'null', '[]', '{"image_url":"https://93.184.215.14/a.png"}', '1280x720', '0x0', '99999x1', '720p', '4k').map(utf8),
  fc.constantFrom(SEEDANCE, 'sora-2', 'gpt-4o', 'doubao-seedance-*', '__proto__', ...URLS, 'asset://asset-20260101000000-zzzzz', 'http://10.0.0.1/a.png', '８', 'x\u0000y').map(utf8),
  // Non-UTF-8: lone continuation and lead bytes, a cut sequence, latin1 text; a value that ends its own part.
  fc.constantFrom('\xff\xfe\xfd', '\xc3', '\xe8\xa6', 'caf\xe9', `x\r\n--${B}\r\nContent-Disposition: form-data; name="prompt"\r\n\r\ny`, `\r\n--${B}--`, '\r\n'),
  fc.constantFrom(HUGE_FIELD, LONG_PROMPT, 'b'.repeat(3000)),
  fc.string({ maxLength: 20 }).map(utf8),
  fc.uint8Array({ maxLength: 16 }).map((bytes) => Buffer.from(bytes).toString('latin1')),
);

const HEADER_LINES: fc.Arbitrary<Bytes> = fc.oneof(
  fc.constantFrom('Content-Type: text/plain; charset=utf-8\r\n', 'Content-Type: text/plain; charset=latin1\r\n', 'Content-Transfer-Encoding: base64\r\n', 'Content-Type: application/json\r\n', 'X: \xff\r\n', 'no colon here\r\n', 'Content-Disposition: form-data; name="size"\r\n'),
  // Huge part headers: one long line, or very many short ones.
  fc.constantFrom(100, 20_000, 100_000).map((n) => `X-Pad: ${'h'.repeat(n)}\r\n`),
  fc.constantFrom(50, 2000).map((n) => 'X-Many: 1\r\n'.repeat(n)),
);

const FILES = fc.record({ filename: fc.constantFrom('a.png', '', 'x".png', '../../etc/passwd', 'é.png'), type: fc.constantFrom('image/png', 'application/octet-stream', 'text/plain', '') });

/** One edit of the parts; `at` picks a part modulo their number. */
type Edit =
  | { readonly kind: 'drop' | 'repeat' | 'toField'; readonly at: number }
  | { readonly kind: 'rename'; readonly at: number; readonly name: string }
  | { readonly kind: 'value'; readonly at: number; readonly value: Bytes }
  | { readonly kind: 'toFile'; readonly at: number; readonly file: { readonly filename: string; readonly type: string } }
  | { readonly kind: 'disposition'; readonly at: number; readonly disposition: Disposition }
  | { readonly kind: 'headers'; readonly at: number; readonly headers: Bytes }
  | { readonly kind: 'extra'; readonly at: number; readonly part: Part };

const at = fc.nat(15);
const edit: fc.Arbitrary<Edit> = fc.oneof(
  fc.record({ kind: fc.constantFrom('drop', 'repeat', 'toField'), at }),
  fc.record({ kind: fc.constant('rename'), at, name: NAMES }),
  fc.record({ kind: fc.constant('value'), at, value: VALUES }),
  fc.record({ kind: fc.constant('toFile'), at, file: FILES }),
  fc.record({ kind: fc.constant('disposition'), at, disposition: fc.constantFrom('unquoted', 'extended', 'nameless', 'attachment') }),
  fc.record({ kind: fc.constant('headers'), at, headers: HEADER_LINES }),
  fc.record({ kind: fc.constant('extra'), at, part: fc.record({ name: NAMES, value: VALUES, file: fc.option(FILES), disposition: fc.constant('quoted'), headers: fc.constant('') }) }),
) as fc.Arbitrary<Edit>;

function applyEdit(parts: readonly Part[], e: Edit): Part[] {
  const out = [...parts];
  if (e.kind === 'extra') {
    out.splice(e.at % (out.length + 1), 0, e.part);
    return out;
  }
  if (out.length === 0) return out;
  const i = e.at % out.length;
  const p = out[i] as Part;
  switch (e.kind) {
    case 'drop':
      out.splice(i, 1);
      break;
    case 'repeat':
      out.splice(i, 0, p);
      break;
    case 'toField':
      out[i] = { ...p, file: null };
      break;
    case 'rename':
      out[i] = { ...p, name: e.name };
      break;
    case 'value':
      out[i] = { ...p, value: e.value };
      break;
    case 'toFile':
      out[i] = { ...p, file: e.file };
      break;
    case 'disposition':
      out[i] = { ...p, disposition: e.disposition };
      break;
    case 'headers':
      out[i] = { ...p, headers: p.headers + e.headers };
  }
  return out;
}

/** How the form goes on the wire: its boundary, the content type said, and damage to the whole. */
interface Envelope {
  readonly boundary: string;
  readonly contentType: 'sdk' | 'quoted' | 'upper' | 'charset' | 'none' | 'empty' | 'wrong' | 'json' | 'text' | 'urlencoded' | 'mixed' | 'absent';
  readonly lineEnd: 'crlf' | 'lf' | 'cr';
  readonly preamble: Bytes;
  readonly epilogue: Bytes;
  readonly closed: boolean;
  readonly cut: number | null;
  /** [where, bytes removed, bytes put in] */
  readonly damage: readonly (readonly [number, number, Bytes])[];
}

const SDK_ENVELOPE: Envelope = { boundary: SDK_BOUNDARY, contentType: 'sdk', lineEnd: 'crlf', preamble: '', epilogue: '', closed: true, cut: null, damage: [] };

/** Mostly the SDK's envelope (so that many forms are answered), else one thing or more wrong with it. */
const envelope: fc.Arbitrary<Envelope> = fc.oneof(
  { arbitrary: fc.constant(SDK_ENVELOPE), weight: 5 },
  {
    arbitrary: fc.record({
      boundary: fc.constantFrom(SDK_BOUNDARY, 'fz', 'a'.repeat(70), 'b'.repeat(200), "'()+_,-./:=?", 'x'),
      contentType: fc.constantFrom('sdk', 'sdk', 'quoted', 'upper', 'charset', 'none', 'empty', 'wrong', 'json', 'text', 'urlencoded', 'mixed', 'absent'),
      lineEnd: fc.constantFrom('crlf', 'crlf', 'crlf', 'lf', 'cr'),
      preamble: fc.constantFrom('', '', 'preamble text\r\n', '\r\n'),
      epilogue: fc.constantFrom('', '', 'epilogue', '\r\n--x--\r\n'),
      closed: fc.constantFrom(true, true, true, false),
      cut: fc.option(fc.nat(), { freq: 3 }),
      damage: fc.array(fc.tuple(fc.nat(), fc.nat(4), fc.constantFrom('', '\r', '\n', '\r\n', '--', '\x00', '\xff', '"', ';', `--${B}`)), { maxLength: 2 }),
    }),
    weight: 4,
  },
);

function contentTypeOf(e: Envelope): string | null {
  const b = e.boundary;
  const types: Record<Envelope['contentType'], string | null> = {
    sdk: `multipart/form-data; boundary=${b}`,
    quoted: `multipart/form-data; boundary="${b}"`,
    upper: `MULTIPART/FORM-DATA; BOUNDARY=${b}`,
    charset: `multipart/form-data; charset=utf-8; boundary=${b}`,
    none: 'multipart/form-data',
    empty: 'multipart/form-data; boundary=',
    wrong: 'multipart/form-data; boundary=not-the-boundary',
    json: 'application/json',
    text: 'text/plain',
    urlencoded: 'application/x-www-form-urlencoded',
    mixed: `multipart/mixed; boundary=${b}`,
    absent: null,
  };
  return types[e.contentType];
}

function dispositionOf(p: Part): Bytes {
  const name = utf8(p.name);
  const head = { quoted: `form-data; name="${name}"`, unquoted: `form-data; name=${name}`, extended: `form-data; name*=utf-8''${encodeURIComponent(p.name)}`, nameless: 'form-data', attachment: `attachment; name="${name}"` }[p.disposition];
  return p.file === null ? head : `${head}; filename="${utf8(p.file.filename)}"`;
}

/** The parts as undici writes a FormData (SDK_ENVELOPE), then the envelope's damage. */
function wire(parts: readonly Part[], e: Envelope): { readonly body: Buffer; readonly contentType: string | null } {
  const b = e.boundary;
  let text = e.preamble;
  for (const p of parts) {
    const type = p.file === null ? '' : `Content-Type: ${p.file.type}\r\n`;
    text += `--${b}\r\nContent-Disposition: ${dispositionOf(p)}\r\n${type}${p.headers}\r\n${p.value.replaceAll(B, b)}\r\n`;
  }
  if (e.closed) text += `--${b}--\r\n${e.epilogue}`;
  if (e.lineEnd !== 'crlf') text = text.replaceAll('\r\n', e.lineEnd === 'lf' ? '\n' : '\r');
  for (const [where, remove, insert] of e.damage) {
    const i = where % (text.length + 1);
    text = text.slice(0, i) + insert.replaceAll(B, b) + text.slice(i + remove);
  }
  if (e.cut !== null) text = text.slice(0, e.cut % (text.length + 1));
  return { body: Buffer.from(text, 'latin1'), contentType: contentTypeOf(e) };
}

/** Token soup with a multipart content type: the pieces of a form in any order, and arbitrary bytes. */
const soup: fc.Arbitrary<{ readonly body: Buffer; readonly contentType: string }> = fc.record({
  body: fc
    .array(
      fc.oneof(
        fc.constantFrom('--fz', '--fz--', '\r\n', '\r\n\r\n', '\n', 'Content-Disposition: form-data; name="prompt"', 'Content-Disposition: form-data; name="model"', 'Content-Disposition: form-data', '; filename="a.png"', 'Content-Type: image/png', SEEDANCE, 'a fox', ':', '"', ';'),
        // Whole parts and the closing delimiter, so that some soups are forms the gateway answers.
        fc.constantFrom(`--fz\r\nContent-Disposition: form-data; name="model"\r\n\r\n${SEEDANCE}\r\n`, '--fz\r\nContent-Disposition: form-data; name="prompt"\r\n\r\na fox\r\n', '--fz--\r\n'),
        fc.uint8Array({ maxLength: 24 }).map((bytes) => Buffer.from(bytes).toString('latin1')),
      ),
      { maxLength: 24 },
    )
    .map((pieces) => Buffer.from(pieces.join(''), 'latin1')),
  contentType: fc.constantFrom('multipart/form-data; boundary=fz', 'multipart/form-data; boundary="fz"', 'multipart/form-data', 'multipart/form-data; boundary=', 'Multipart/Form-Data;boundary=fz;boundary=other', 'multipart/form-data; boundary=fz; charset=x-unknown'),
});

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Status classes seen by one property ('2xx', '4xx', '5xx'). */
type Seen = Map<string, number>;

function countLine(route: string, seen: Seen): string {
  const n = [...seen.values()].reduce((a, b) => a + b, 0);
  return `fuzz ${route}: ${n} cases, ${seen.get('2xx') ?? 0} answered 2xx, ${seen.get('4xx') ?? 0} refused 4xx, ${seen.get('5xx') ?? 0} 5xx`;
}

function assertReached(seen: Seen, runs: number, classes: Record<string, number>): void {
  for (const [kind, share] of Object.entries(classes)) {
    assert.ok((seen.get(kind) ?? 0) >= runs * share, `only ${seen.get(kind) ?? 0} of ${runs} answers were ${kind}: ${JSON.stringify([...seen])}`);
  }
}

/** An error answer as OpenAI's: JSON, {error:{message,type,param,code}} and nothing else. */
function assertOpenAIError(contentType: string, text: string): void {
  assert.match(contentType, /^application\/json/, 'an error not served as JSON');
  const json: unknown = JSON.parse(text);
  assert.ok(isObject(json) && isObject(json['error']), 'not an error body');
  assert.deepEqual(Object.keys(json), ['error']);
  const error = json['error'];
  assert.deepEqual(Object.keys(error), ['message', 'type', 'param', 'code']);
  assert.ok(typeof error['message'] === 'string' && error['message'] !== '' && typeof error['type'] === 'string', 'no message or type');
  assert.ok(error['param'] === null || typeof error['param'] === 'string', 'param neither null nor a text');
  assert.ok(error['code'] === null || typeof error['code'] === 'string', 'code neither null nor a text');
}

describe('fuzzing the multipart form of POST /v1/videos', () => {
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

  /** Create calls (POST) each fake has had, read on from where the last count stopped: the pollers' GETs pile up. */
  const counted = new Map<FakeArk, { index: number; posts: number }>();
  const postsTo = (ark: FakeArk): number => {
    const c = counted.get(ark) ?? { index: 0, posts: 0 };
    for (; c.index < ark.calls.length; c.index++) if (ark.calls[c.index]?.method === 'POST') c.posts++;
    counted.set(ark, c);
    return c.posts;
  };
  const creates = (): number => postsTo(planes.ark) + postsTo(planes.arkTwo);

  /** Sends one form and checks the answer; its status. */
  async function check(body: Buffer, contentType: string | null, seen: Seen): Promise<number> {
    const before = creates();
    const headers: Record<string, string> = { authorization: `Bearer ${ALICE}` };
    if (contentType !== null) headers['content-type'] = contentType;
    const res = await fetch(`${v.gw.url}/v1/videos`, { method: 'POST', headers, body, signal: AbortSignal.timeout(ANSWER_MS) });
    const text = await res.text();
    const kind = `${Math.floor(res.status / 100)}xx`;
    seen.set(kind, (seen.get(kind) ?? 0) + 1);
    try {
      assert.ok(res.status < 500, 'a 5xx');
      if (res.status >= 400) {
        assertOpenAIError(res.headers.get('content-type') ?? '', text);
        assert.equal(creates(), before, 'a refused form reached the upstream');
      } else {
        const json: unknown = JSON.parse(text);
        assert.ok(isObject(json) && json['object'] === 'video', 'not a video object');
        assert.equal(creates(), before + 1, 'an answered form made no single create call');
      }
    } catch (err) {
      const sent = body.toString('latin1');
      throw new Error(`${(err as Error).message}\nPOST /v1/videos (${contentType ?? 'no content type'}) ${JSON.stringify(sent.length > 1500 ? `${sent.slice(0, 1500)}...` : sent)}\n-> ${res.status} ${text.slice(0, 800)}`, { cause: err });
    }
    return res.status;
  }

  it("this file's form is the SDK's (undici's FormData), byte for byte but the boundary", async () => {
    const fields: [string, string][] = [['model', SEEDANCE], ['prompt', 'a "lighthouse"\nat dusk'], ['seconds', '8'], ['size', '1280x720'], ['input_reference[image_url]', 'https://93.184.215.14/a.png']];
    const data = new FormData();
    for (const [name, value] of fields) data.append(name, value);
    const sdk = new Request('http://127.0.0.1/', { method: 'POST', body: data });
    const boundary = /boundary=(\S+)/.exec(sdk.headers.get('content-type') ?? '')?.[1] ?? '';
    // undici writes a value's lone LF as CRLF; the fuzzed prompts keep theirs as generated.
    const mine = wire(fields.map(([name, value]) => field(name, value.replaceAll('\n', '\r\n'))), { ...SDK_ENVELOPE, boundary });
    assert.equal(mine.body.toString('latin1'), Buffer.from(await sdk.arrayBuffer()).toString('latin1'));
    assert.equal(mine.contentType, sdk.headers.get('content-type'));
  });

  it(`the SDK's form broken at arbitrary places, then its envelope (${RUNS} runs)`, async (t) => {
    const seen: Seen = new Map();
    const cases = fc.tuple(sdkForm, fc.oneof({ arbitrary: fc.constant([]), weight: 2 }, { arbitrary: fc.array(edit, { minLength: 1, maxLength: 3 }), weight: 3 }), envelope);
    await fc.assert(
      fc.asyncProperty(cases, async ([parts, edits, env]) => {
        const sent = wire(edits.reduce(applyEdit, parts), env);
        await check(sent.body, sent.contentType, seen);
      }),
      { numRuns: RUNS, includeErrorInReport: true },
    );
    t.diagnostic(countLine('/v1/videos form', seen));
    assertReached(seen, RUNS, { '2xx': 0.1, '4xx': 0.3 });
  });

  it(`token soup with a multipart content type (${RUNS} runs)`, async (t) => {
    const seen: Seen = new Map();
    await fc.assert(
      fc.asyncProperty(soup, async ({ body, contentType }) => {
        await check(body, contentType, seen);
      }),
      { numRuns: RUNS, includeErrorInReport: true },
    );
    t.diagnostic(countLine('/v1/videos multipart bytes', seen));
    assertReached(seen, RUNS, { '4xx': 0.5 });
  });

  // Regression, found by this fuzzing (the huge part headers above): busboy signals a malformed part header (over
  // 16 KiB, or a line that is no `name: value`) by an 'error' event without setting `errored`, and readMultipartForm
  // read `errored` only: the part was dropped and the rest of the form taken as if it had never been sent.
  const BAD_HEADERS: readonly [string, Bytes][] = [
    ['over 16 KiB of part headers', `X-Pad: ${'h'.repeat(17_000)}\r\n`],
    ['a part header line without a colon', 'no colon here\r\n'],
  ];
  for (const [what, headers] of BAD_HEADERS) {
    it(`a form with ${what} is refused, not read without that part`, async () => {
      for (const parts of [
        // Without `headers` a 400 (files are not taken here); with them, a task made as if no file had been sent.
        [field('model', SEEDANCE), field('prompt', 'p'), { ...PNG_FILE, headers }],
        // The caller's 12 s dropped: a 5 s task is made and billed in its place.
        [field('model', SEEDANCE), field('prompt', 'p'), { ...field('seconds', '12'), headers }],
      ]) {
        const sent = wire(parts, SDK_ENVELOPE);
        const before = creates();
        const status = await check(sent.body, sent.contentType, new Map());
        assert.equal(status, 400, `${what}: answered ${status}`);
        assert.equal(creates(), before);
      }
    });
  }

  it('the gateway is healthy afterwards: /healthz, and a JSON task and an SDK form are answered', async () => {
    assert.equal((await fetch(`${v.gw.url}/healthz`)).status, 200);
    assert.equal((await fetch(`${v.gw.url}/readyz`)).status, 200);
    const json = await v.request(ALICE, 'POST', '/v1/videos', { model: SEEDANCE, prompt: 'still here', seconds: '4', size: '1280x720' });
    assert.equal(json.status, 200, json.text);
    assert.equal(json.body['object'], 'video');
    const form = wire([field('model', SEEDANCE), field('prompt', 'still here'), field('seconds', '4')], SDK_ENVELOPE);
    assert.equal(await check(form.body, form.contentType, new Map()), 200);
  });
});
