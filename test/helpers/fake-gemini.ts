// A Gemini API upstream (generativelanguage.googleapis.com) on loopback, as the real one behaves: x-goog-api-key
// required (400 API_KEY_INVALID otherwise), generateContent, streamGenerateContent as SSE (`alt=sse`, CRLF-separated
// events, running usage totals, no [DONE]) or as one JSON array, countTokens, and the paged model list. What it
// answers is scripted by `reply` (parts as Google writes them: thoughts `{text, thought: true}`, `functionCall`,
// `thoughtSignature` on any part); every request's bytes are kept.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { LoopbackHttpServer, recordRequest, type RecordedRequest } from './loopback-http-server.js';

type Json = Record<string, unknown>;

/**
 * One answer: its parts, finish reason and usage (`usageApart`: streamed, the usage comes alone in a last event
 * after the finish, as Gemini 3 sends it); or an error status with Google's error body (bare, or in the one-element
 * array :streamGenerateContent often wraps it in).
 */
export type GeminiReply =
  | { readonly kind: 'answer'; readonly parts: readonly Json[]; readonly finishReason?: string; readonly usage: Json; readonly usageApart?: boolean }
  | { readonly kind: 'status'; readonly status: number; readonly body: Json | readonly Json[] };

export const GEMINI_USAGE: Json = {
  promptTokenCount: 1200,
  cachedContentTokenCount: 1000,
  candidatesTokenCount: 20,
  thoughtsTokenCount: 150,
  totalTokenCount: 1370,
};

export class FakeGemini extends LoopbackHttpServer {
  readonly requests: RecordedRequest[] = [];
  readonly models: string[] = ['gemini-2.5-pro', 'gemini-2.5-flash', 'gemini-3-pro-preview'];
  reply: (request: RecordedRequest) => GeminiReply = () => ({ kind: 'answer', parts: [{ text: 'Hello from Gemini.' }], usage: GEMINI_USAGE });
  /** The exact bytes of the last answer. */
  lastAnswer = Buffer.alloc(0);

  constructor(readonly key: string) {
    super();
  }

  protected override async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const recorded = await recordRequest(req);
    const url = new URL(recorded.path, 'http://x');
    if (req.headers['x-goog-api-key'] !== this.key) {
      return this.send(res, 400, { error: { code: 400, message: 'API key not valid. Please pass a valid API key.', status: 'INVALID_ARGUMENT' } });
    }
    if (req.method === 'GET' && url.pathname === '/v1beta/models') return this.list(res, url);
    this.requests.push(recorded);
    const match = /^\/v1beta\/models\/([^/:]+):(generateContent|streamGenerateContent|countTokens)$/.exec(url.pathname);
    if (match === null || req.method !== 'POST') return this.send(res, 404, { error: { code: 404, message: 'Not found.', status: 'NOT_FOUND' } });
    const model = decodeURIComponent(match[1] as string);
    if (match[2] === 'countTokens') return this.send(res, 200, { totalTokens: 42 });
    const reply = this.reply(recorded);
    if (reply.kind === 'status') return this.send(res, reply.status, reply.body);
    const events = this.events(model, reply);
    if (match[2] === 'generateContent') return this.send(res, 200, this.whole(model, reply));
    if (url.searchParams.get('alt') !== 'sse') return this.send(res, 200, events);
    this.lastAnswer = Buffer.from(events.map((event) => `data: ${JSON.stringify(event)}\r\n\r\n`).join(''));
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.end(this.lastAnswer);
  }

  private whole(model: string, reply: Extract<GeminiReply, { kind: 'answer' }>): Json {
    return {
      candidates: [{ content: { role: 'model', parts: reply.parts }, finishReason: reply.finishReason ?? 'STOP', index: 0 }],
      usageMetadata: reply.usage,
      modelVersion: model,
      responseId: 'resp-fake-1',
    };
  }

  /**
   * One event per part; running usage totals, the whole usage and the finish reason on the last (or the usage in an
   * event of its own after it).
   */
  private events(model: string, reply: Extract<GeminiReply, { kind: 'answer' }>): Json[] {
    const running = { promptTokenCount: reply.usage['promptTokenCount'], totalTokenCount: reply.usage['promptTokenCount'] };
    const events = reply.parts.map((part, i): Json => {
      const last = i === reply.parts.length - 1;
      return {
        candidates: [{ content: { role: 'model', parts: [part] }, ...(last ? { finishReason: reply.finishReason ?? 'STOP' } : {}), index: 0 }],
        usageMetadata: last && reply.usageApart !== true ? reply.usage : running,
        modelVersion: model,
        responseId: 'resp-fake-1',
      };
    });
    if (reply.usageApart === true) events.push({ usageMetadata: reply.usage, modelVersion: model, responseId: 'resp-fake-1' });
    return events;
  }

  private list(res: ServerResponse, url: URL): void {
    const size = Number(url.searchParams.get('pageSize') ?? '50');
    const start = Number(url.searchParams.get('pageToken') ?? '0');
    const page = this.models.slice(start, start + size);
    const body: Json = { models: page.map((id) => ({ name: `models/${id}`, supportedGenerationMethods: ['generateContent', 'countTokens'] })) };
    if (start + size < this.models.length) body['nextPageToken'] = String(start + size);
    this.send(res, 200, body);
  }

  private send(res: ServerResponse, status: number, body: unknown): void {
    this.lastAnswer = Buffer.from(JSON.stringify(body));
    res.writeHead(status, { 'content-type': 'application/json; charset=UTF-8' });
    res.end(this.lastAnswer);
  }
}
