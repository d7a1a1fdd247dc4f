// A fake OpenAI upstream on loopback: real HTTP, real SSE framing, usage like the real API, scriptable failures.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { LoopbackHttpServer, recordRequest, streamFrames, type RecordedRequest } from './loopback-http-server.js';

export type { RecordedRequest };

export type FakeReply =
  | { readonly kind: 'completion'; readonly text?: string; readonly usage?: FakeUsage }
  | { readonly kind: 'stream'; readonly pieces?: readonly string[]; readonly usage?: FakeUsage; readonly delayMs?: number; readonly breakAfter?: number }
  | { readonly kind: 'status'; readonly status: number; readonly body?: unknown; readonly headers?: Record<string, string> }
  | { readonly kind: 'hang' };

export interface FakeUsage {
  readonly prompt: number;
  readonly completion: number;
  readonly cached?: number;
  readonly reasoning?: number;
}

export const DEFAULT_USAGE: FakeUsage = { prompt: 31, completion: 7, cached: 12, reasoning: 2 };

function usageJson(u: FakeUsage): Record<string, unknown> {
  return {
    prompt_tokens: u.prompt,
    completion_tokens: u.completion,
    total_tokens: u.prompt + u.completion,
    prompt_tokens_details: { cached_tokens: u.cached ?? 0, audio_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: u.reasoning ?? 0, audio_tokens: 0 },
  };
}

/** What a fake answers unless told otherwise: a stream to a stream request, else a completion. */
export const defaultReply = (req: RecordedRequest): FakeReply => (req.body['stream'] === true ? { kind: 'stream' } : { kind: 'completion' });

export class FakeOpenAI extends LoopbackHttpServer {
  readonly requests: RecordedRequest[] = [];
  /** Responses whose client (the gateway) closed the connection before the response ended. */
  closedEarly = 0;
  private readonly closeWaiters: (() => void)[] = [];
  reply: (req: RecordedRequest) => FakeReply = defaultReply;

  constructor(readonly name = 'fake') {
    super();
  }

  /** Resolves once a response was closed early by the gateway. */
  nextEarlyClose(): Promise<void> {
    return new Promise((resolve) => this.closeWaiters.push(resolve));
  }

  protected override async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const recorded = await recordRequest(req);
    const { body } = recorded;
    this.requests.push(recorded);
    res.on('close', () => {
      if (!res.writableFinished) {
        this.closedEarly++;
        for (const waiter of this.closeWaiters.splice(0)) waiter();
      }
    });
    const reply = this.reply(recorded);
    const model = typeof body['model'] === 'string' ? body['model'] : 'unknown';
    if (reply.kind === 'hang') return;
    if (reply.kind === 'status') {
      res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
      res.end(JSON.stringify(reply.body ?? { error: { message: `fake ${this.name} says ${reply.status}`, type: 'server_error', param: null, code: null } }));
      return;
    }
    if (reply.kind === 'completion') {
      const json = {
        id: 'chatcmpl-fake1',
        object: 'chat.completion',
        created: 1760000000,
        model,
        choices: [{ index: 0, message: { role: 'assistant', content: reply.text ?? `reply from ${this.name}`, refusal: null }, logprobs: null, finish_reason: 'stop' }],
        usage: usageJson(reply.usage ?? DEFAULT_USAGE),
        system_fingerprint: 'fp_fake',
      };
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(json));
      return;
    }
    await this.stream(res, body, model, reply);
  }

  private async stream(res: ServerResponse, body: Record<string, unknown>, model: string, reply: Extract<FakeReply, { kind: 'stream' }>): Promise<void> {
    const includeUsage = (body['stream_options'] as { include_usage?: boolean } | undefined)?.include_usage === true;
    const pieces = reply.pieces ?? ['Hel', 'lo ', 'from ', this.name, ' — ✓'];
    const chunk = (choices: unknown[], usage: unknown = null): string => {
      const c: Record<string, unknown> = { id: 'chatcmpl-fake2', object: 'chat.completion.chunk', created: 1760000000, model, system_fingerprint: 'fp_fake', choices };
      if (includeUsage) c['usage'] = usage;
      return `data: ${JSON.stringify(c)}\n\n`;
    };
    const frames = [
      chunk([{ index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }]),
      ...pieces.map((p) => chunk([{ index: 0, delta: { content: p }, logprobs: null, finish_reason: null }])),
      chunk([{ index: 0, delta: {}, logprobs: null, finish_reason: 'stop' }]),
      ...(includeUsage ? [chunk([], usageJson(reply.usage ?? DEFAULT_USAGE))] : []),
      'data: [DONE]\n\n',
    ];
    await streamFrames(res, {}, frames, reply);
  }
}
