// A fake OpenAI Images upstream: /v1/images/generations and /v1/images/edits as the real API answers them (the
// GPT image models' b64_json with a usage object, dall-e's url, SSE partial and completed events, errors), and a
// record of every request's exact bytes and content type.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { PNG } from 'pngjs';
import { FakeModelList } from './fake-model-list.js';
import { LoopbackHttpServer, recordRequest, streamFrames, type RecordedRequest } from './loopback-http-server.js';

export type FakeImageReply =
  | { readonly kind: 'images' }
  | { readonly kind: 'stream' }
  | { readonly kind: 'status'; readonly status: number }
  | { readonly kind: 'hang' };

/** The usage object the fake reports for the GPT image models. */
export const FAKE_IMAGE_USAGE = {
  input_tokens: 50,
  input_tokens_details: { text_tokens: 38, image_tokens: 12 },
  output_tokens: 4160,
  output_tokens_details: { text_tokens: 0, image_tokens: 4160 },
  total_tokens: 4210,
} as const;

/** A small valid PNG (4x4, one colour), the picture the fake "makes". */
export function tinyPng(red = 200): Buffer {
  const png = new PNG({ width: 4, height: 4 });
  for (let i = 0; i < png.data.length; i += 4) {
    png.data[i] = red;
    png.data[i + 1] = 80;
    png.data[i + 2] = 40;
    png.data[i + 3] = 255;
  }
  return PNG.sync.write(png);
}

export class FakeOpenAIImages extends LoopbackHttpServer {
  /** The image requests (the gateway's GET /v1/models, its model discovery, is answered apart). */
  readonly requests: RecordedRequest[] = [];
  readonly modelList = new FakeModelList('openai', ['gpt-image-1', 'dall-e-3']);
  /** The exact bytes of the last answer body sent. */
  lastAnswer: Buffer = Buffer.alloc(0);
  reply: (req: RecordedRequest) => FakeImageReply = (req) => (isStream(req) ? { kind: 'stream' } : { kind: 'images' });

  constructor(readonly name = 'images') {
    super();
  }

  protected override async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (await this.modelList.handle(req, res)) return;
    const recorded = await recordRequest(req);
    this.requests.push(recorded);
    const reply = this.reply(recorded);
    if (reply.kind === 'hang') return;
    if (reply.kind === 'status') {
      this.send(res, reply.status, { error: { message: `fake ${this.name} says ${reply.status}`, type: 'server_error', param: null, code: null } });
      return;
    }
    const edit = recorded.path.startsWith('/v1/images/edits');
    const model = modelOf(recorded);
    const b64 = tinyPng().toString('base64');
    if (reply.kind === 'stream') {
      const prefix = edit ? 'image_edit' : 'image_generation';
      const frames = [
        `event: ${prefix}.partial_image\ndata: ${JSON.stringify({ type: `${prefix}.partial_image`, b64_json: b64, partial_image_index: 0, created_at: 1760000000, size: '1024x1024' })}\n\n`,
        `event: ${prefix}.completed\ndata: ${JSON.stringify({ type: `${prefix}.completed`, b64_json: b64, created_at: 1760000000, size: '1024x1024', output_format: 'png', usage: FAKE_IMAGE_USAGE })}\n\n`,
      ];
      this.lastAnswer = await streamFrames(res, {}, frames, {});
      return;
    }
    const n = Number(fieldOf(recorded, 'n') ?? 1);
    const dallE = model.startsWith('dall-e');
    const asUrl = fieldOf(recorded, 'response_format') === 'url' || (dallE && fieldOf(recorded, 'response_format') === undefined);
    const data = Array.from({ length: n }, (_, i) => (asUrl ? { url: `https://images.example.test/${this.name}/${i}.png`, revised_prompt: null } : { b64_json: b64, revised_prompt: null }));
    const answer: Record<string, unknown> = { created: 1760000000, data };
    if (!dallE) Object.assign(answer, { background: 'opaque', output_format: 'png', quality: 'high', size: '1024x1024', usage: FAKE_IMAGE_USAGE });
    this.send(res, 200, answer);
  }

  private send(res: ServerResponse, status: number, value: unknown): void {
    const body = Buffer.from(JSON.stringify(value));
    this.lastAnswer = body;
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': String(body.length) });
    res.end(body);
  }
}

function isStream(req: RecordedRequest): boolean {
  return req.body['stream'] === true || fieldOf(req, 'stream') === 'true';
}

function modelOf(req: RecordedRequest): string {
  return fieldOf(req, 'model') ?? 'dall-e-2';
}

/** A field of a JSON body, or a text field of a multipart form (read naively: the fake's own tests send simple ones). */
export function fieldOf(req: RecordedRequest, name: string): string | undefined {
  const value = req.body[name];
  if (value !== undefined) return String(value);
  const text = req.raw.toString('latin1');
  const found = new RegExp(`name="${name.replace(/[[\]]/g, '\\$&')}"\\r\\n\\r\\n([^\\r]*)\\r\\n`).exec(text);
  return found?.[1];
}
