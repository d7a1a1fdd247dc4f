// The mock channel's Images API: /v1/images/generations and /v1/images/edits, answered with real PNGs drawn
// offline (mock-draw.ts), as `b64_json` or as a `url` the gateway serves for an hour (core/providers/mock/image-files.ts); with
// `stream: true`, partial-image events and a completed event per image, as OpenAI streams them.

import { setTimeout as sleep } from 'node:timers/promises';
import busboy from 'busboy';
import { openaiFields } from '../../core/formats/openai-chat/fields.js';
import { encodeError } from '../../core/formats/openai-chat/errors.js';
import type { MockFiles, UpstreamRequest, UpstreamResponse } from '../../core/providers/provider.js';
import { drawImage, editImage, mockSizeOf, readSource, type ImageSize } from './mock-draw.js';
import { MOCK_IMAGE_PATH } from '../../core/providers/mock/image-files.js';
import { jsonResponse, renderedResponse, sseResponse } from '../../core/providers/mock/respond.js';
import { GatewayError } from '../../core/errors.js';

/** The Images API's own bound on `n`. */
const MAX_N = 10;

interface ImageJob {
  readonly kind: 'generation' | 'edit';
  readonly fields: Readonly<Record<string, unknown>>;
  /** The edit's first uploaded image; null for a generation. */
  readonly source: Buffer | null;
}

/** POST /v1/images/generations: a JSON body. */
export function answerGenerations(request: UpstreamRequest, files: MockFiles): Promise<UpstreamResponse> {
  return answerJob(request, async () => readGeneration(request), files);
}

/** POST /v1/images/edits: a multipart form with the image to edit. */
export function answerEdits(request: UpstreamRequest, files: MockFiles): Promise<UpstreamResponse> {
  return answerJob(request, () => readEdit(request), files);
}

async function answerJob(request: UpstreamRequest, read: () => Promise<ImageJob>, files: MockFiles): Promise<UpstreamResponse> {
  let job: ImageJob;
  try {
    job = await read();
  } catch (err) {
    if (!(err instanceof GatewayError)) throw err;
    return renderedResponse(encodeError(err));
  }
  const { fields } = job;
  let n: number;
  let partials: number;
  try {
    n = integerField(fields, 'n', 1, MAX_N, 1);
    partials = integerField(fields, 'partial_images', 0, 3, 0);
  } catch (err) {
    if (!(err instanceof GatewayError)) throw err;
    return renderedResponse(encodeError(err));
  }
  // The gateway checked prompt and model; what else the real API would judge, the mock reads leniently.
  const prompt = typeof fields['prompt'] === 'string' ? fields['prompt'] : '';
  const model = typeof fields['model'] === 'string' ? fields['model'] : 'dall-e-2';
  const size = mockSizeOf(fields['size']);
  // An upload is decoded once for all n pictures (or drawn from, when the mock cannot decode it).
  const source = job.source === null ? null : (readSource(job.source) ?? job.source);
  const pictures = Array.from({ length: n }, (_, i) => (source === null ? drawImage(prompt, i, size) : editImage(source, prompt, i, size)));
  const usage = usageOf(model, prompt, job, size, n);
  const created = Math.floor(Date.now() / 1000);
  if (fields['stream'] === true || fields['stream'] === 'true') {
    return sseResponse(streamImages(job.kind, pictures, size, usage, created, partials, request));
  }
  // GPT image models always answer b64_json; dall-e answers url unless asked for b64_json (wire-formats.md, 4.1).
  const asUrl = fields['response_format'] === 'url' || (fields['response_format'] === undefined && model.startsWith('dall-e'));
  const data = pictures.map((png) => (asUrl ? { url: urlOf(request, files.add(png)) } : { b64_json: png.toString('base64') }));
  const answer: Record<string, unknown> = { created, data };
  if (usage !== null) Object.assign(answer, { size: `${size.width}x${size.height}`, output_format: 'png', usage });
  return jsonResponse(answer);
}

/** An integer field (a JSON number, or a form's digits) from `min` to `max`; `fallback` when absent; else the API's 400. */
function integerField(fields: Readonly<Record<string, unknown>>, name: string, min: number, max: number, fallback: number): number {
  const value = fields[name];
  if (value === undefined || value === null) return fallback;
  const number = typeof value === 'number' ? value : typeof value === 'string' && /^-?\d{1,9}$/.test(value) ? Number(value) : NaN;
  if (!Number.isInteger(number) || number < min || number > max) {
    throw new GatewayError('GW_ERR_REQUEST_INVALID_FIELD', `Invalid value for '${name}': expected an integer from ${min} to ${max}.`, { param: name });
  }
  return number;
}

function readGeneration(request: UpstreamRequest): ImageJob {
  let body: unknown;
  try {
    body = JSON.parse(request.body.joined().toString('utf8'));
  } catch (err) {
    throw new GatewayError('GW_ERR_REQUEST_INVALID_JSON', `We could not parse the JSON body of your request: ${(err as Error).message}.`);
  }
  const fields = openaiFields.object(body, '');
  if (openaiFields.string(fields['prompt'], 'prompt') === '') throw openaiFields.missing('prompt');
  return { kind: 'generation', fields, source: null };
}

/** The edit's fields and first image, read from its multipart form. */
function readEdit(request: UpstreamRequest): Promise<ImageJob> {
  return new Promise((resolve, reject) => {
    const fields: Record<string, unknown> = {};
    let source: Buffer | null = null;
    let taken = false;
    const chunks: Buffer[] = [];
    let parser: busboy.Busboy;
    try {
      parser = busboy({ headers: { 'content-type': request.contentType ?? '' } });
    } catch (err) {
      reject(new GatewayError('GW_ERR_REQUEST_INVALID_FIELD', `The multipart body could not be read: ${(err as Error).message}.`));
      return;
    }
    parser.on('field', (name, value) => {
      fields[name] ??= value;
    });
    parser.on('file', (name, stream) => {
      const first = !taken && (name === 'image' || name === 'image[]');
      if (first) taken = true;
      // The gateway read this form before it came here; a part cut short would still not crash the process.
      stream.on('error', () => undefined);
      stream.on('data', (chunk: Buffer) => {
        if (first) chunks.push(chunk);
      });
      stream.on('end', () => {
        if (first) source = Buffer.concat(chunks);
      });
    });
    parser.on('error', (err: Error) => reject(new GatewayError('GW_ERR_REQUEST_INVALID_FIELD', `The multipart body could not be read: ${err.message}.`)));
    parser.on('close', () => {
      if (source === null) reject(new GatewayError('GW_ERR_REQUEST_MISSING_FIELD', "Missing required parameter: 'image'.", { param: 'image' }));
      else resolve({ kind: 'edit', fields, source });
    });
    parser.end(request.body.joined());
  });
}

/** Where the gateway serves a kept file: its own address, as the client reached it. */
function urlOf(request: UpstreamRequest, name: string): string {
  const host = request.clientHeaders['host'];
  const proto = request.clientHeaders['x-forwarded-proto'];
  return `${proto === 'https' ? 'https' : 'http'}://${typeof host === 'string' ? host : '127.0.0.1'}${MOCK_IMAGE_PATH}${name}`;
}

/** The GPT image models' usage object (dall-e reports none): text tokens of the prompt, image tokens per picture. */
function usageOf(model: string, prompt: string, job: ImageJob, size: ImageSize, n: number): Record<string, unknown> | null {
  if (model.startsWith('dall-e')) return null;
  const textTokens = Math.max(1, Math.ceil(prompt.length / 4));
  const inputImageTokens = job.source === null ? 0 : 323;
  const outputImageTokens = n * Math.ceil((size.width * size.height) / 1000);
  return {
    input_tokens: textTokens + inputImageTokens,
    input_tokens_details: { text_tokens: textTokens, image_tokens: inputImageTokens },
    output_tokens: outputImageTokens,
    output_tokens_details: { text_tokens: 0, image_tokens: outputImageTokens },
    total_tokens: textTokens + inputImageTokens + outputImageTokens,
  };
}

function frame(event: string, value: Record<string, unknown>): Buffer {
  return Buffer.from(`event: ${event}\ndata: ${JSON.stringify({ type: event, ...value })}\n\n`);
}

async function* streamImages(
  kind: ImageJob['kind'],
  pictures: readonly Buffer[],
  size: ImageSize,
  usage: Record<string, unknown> | null,
  created: number,
  partials: number,
  request: UpstreamRequest,
): AsyncGenerator<Uint8Array> {
  const prefix = kind === 'edit' ? 'image_edit' : 'image_generation';
  const delay = request.channel.mock.chunkDelayMs;
  const common = { created_at: created, size: `${size.width}x${size.height}`, quality: 'auto', background: 'opaque', output_format: 'png' };
  for (const [i, png] of pictures.entries()) {
    const b64 = png.toString('base64');
    for (let p = 0; p < Math.min(3, Math.max(0, partials)); p++) {
      if (delay > 0) await sleep(delay, undefined, { signal: request.abort.signal });
      yield frame(`${prefix}.partial_image`, { b64_json: b64, partial_image_index: p, ...common });
    }
    if (delay > 0) await sleep(delay, undefined, { signal: request.abort.signal });
    // One usage object per request, in its first completed event (the others report none).
    yield frame(`${prefix}.completed`, { b64_json: b64, ...common, ...(i === 0 && usage !== null ? { usage } : {}) });
  }
}
