// A fake Anthropic upstream on loopback: real HTTP, the real event sequence (message_start with usage,
// content_block_start/delta/stop, ping, cumulative message_delta usage, message_stop), errors in
// Anthropic's shape, count_tokens, and scriptable failures.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { LoopbackHttpServer, recordRequest, streamFrames, type RecordedRequest } from './loopback-http-server.js';

export type RecordedAnthropicRequest = RecordedRequest;

export interface AnthropicUsage {
  readonly input: number;
  readonly output: number;
  readonly cacheRead?: number;
  readonly cacheWrite?: number;
  readonly thinking?: number;
}

export const DEFAULT_ANTHROPIC_USAGE: AnthropicUsage = { input: 21, output: 9, cacheRead: 640, cacheWrite: 128 };

/** Content blocks of a reply; streamed as the real API streams each type. */
export type FakeBlock =
  | { readonly type: 'text'; readonly text: string }
  | { readonly type: 'thinking'; readonly thinking: string; readonly signature: string }
  | { readonly type: 'tool_use'; readonly id: string; readonly name: string; readonly input: Record<string, unknown> };

export type FakeAnthropicReply =
  | { readonly kind: 'message'; readonly content?: readonly FakeBlock[]; readonly usage?: AnthropicUsage; readonly stopReason?: string }
  | {
      readonly kind: 'stream';
      readonly content?: readonly FakeBlock[];
      readonly usage?: AnthropicUsage;
      readonly stopReason?: string;
      readonly delayMs?: number;
      /** Destroy the connection after this many frames. */
      readonly breakAfter?: number;
      /** Send this `event: error` frame after this many frames (status already 200), then end. */
      readonly errorAfter?: number;
    }
  | { readonly kind: 'status'; readonly status: number; readonly errorType?: string; readonly body?: unknown; readonly headers?: Record<string, string> }
  | { readonly kind: 'hang' };

export function anthropicUsageJson(u: AnthropicUsage): Record<string, unknown> {
  return {
    input_tokens: u.input,
    cache_creation_input_tokens: u.cacheWrite ?? 0,
    cache_read_input_tokens: u.cacheRead ?? 0,
    output_tokens: u.output,
    ...(u.thinking === undefined ? {} : { output_tokens_details: { thinking_tokens: u.thinking } }),
  };
}

function event(name: string, data: unknown): string {
  return `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;
}

/** Splits a string into pieces of at most `size` characters (whole code points), as deltas arrive. */
function pieces(text: string, size: number): string[] {
  const chars = [...text];
  const out: string[] = [];
  for (let i = 0; i < chars.length; i += size) out.push(chars.slice(i, i + size).join(''));
  return out.length === 0 ? [''] : out;
}

/** The SSE frames the real API sends for this reply, in order. */
export function anthropicStreamFrames(model: string, content: readonly FakeBlock[], usage: AnthropicUsage, stopReason: string): string[] {
  const frames = [
    event('message_start', {
      type: 'message_start',
      message: {
        id: 'msg_fake01',
        type: 'message',
        role: 'assistant',
        model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { ...anthropicUsageJson({ ...usage, output: 1 }), output_tokens_details: undefined },
      },
    }),
  ];
  content.forEach((block, index) => {
    if (block.type === 'text') {
      frames.push(event('content_block_start', { type: 'content_block_start', index, content_block: { type: 'text', text: '' } }));
      if (index === 0) frames.push(event('ping', { type: 'ping' }));
      for (const text of pieces(block.text, 4)) {
        frames.push(event('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'text_delta', text } }));
      }
    } else if (block.type === 'thinking') {
      frames.push(event('content_block_start', { type: 'content_block_start', index, content_block: { type: 'thinking', thinking: '', signature: '' } }));
      if (index === 0) frames.push(event('ping', { type: 'ping' }));
      for (const thinking of pieces(block.thinking, 6)) {
        frames.push(event('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'thinking_delta', thinking } }));
      }
      frames.push(event('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'signature_delta', signature: block.signature } }));
    } else {
      frames.push(event('content_block_start', { type: 'content_block_start', index, content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} } }));
      const json = JSON.stringify(block.input);
      for (const partial of ['', ...pieces(json, 5)]) {
        frames.push(event('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: partial } }));
      }
    }
    frames.push(event('content_block_stop', { type: 'content_block_stop', index }));
  });
  const finalUsage: Record<string, unknown> = { output_tokens: usage.output };
  if (usage.thinking !== undefined) finalUsage['output_tokens_details'] = { thinking_tokens: usage.thinking };
  frames.push(event('message_delta', { type: 'message_delta', delta: { stop_reason: stopReason, stop_sequence: null }, usage: finalUsage }));
  frames.push(event('message_stop', { type: 'message_stop' }));
  return frames;
}

const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  529: 'overloaded_error',
};

/** What a fake answers unless told otherwise: a stream to a stream request, else a message. */
export const defaultAnthropicReply = (req: RecordedAnthropicRequest): FakeAnthropicReply =>
  req.body['stream'] === true ? { kind: 'stream' } : { kind: 'message' };

export class FakeAnthropic extends LoopbackHttpServer {
  readonly requests: RecordedAnthropicRequest[] = [];
  /** The exact bytes of the last stream sent, for byte-equality checks. */
  lastStreamBytes: Buffer = Buffer.alloc(0);
  closedEarly = 0;
  reply: (req: RecordedAnthropicRequest) => FakeAnthropicReply = defaultAnthropicReply;

  constructor(readonly name = 'fake-anthropic') {
    super();
  }

  protected override async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const recorded = await recordRequest(req);
    const { body } = recorded;
    this.requests.push(recorded);
    res.on('close', () => {
      if (!res.writableFinished) this.closedEarly++;
    });
    const reply = this.reply(recorded);
    const model = typeof body['model'] === 'string' ? body['model'] : 'unknown';
    const headers = { 'content-type': 'application/json', 'request-id': `req_${this.name}` };
    if (reply.kind === 'hang') return;
    if (reply.kind === 'status') {
      const type = reply.errorType ?? ERROR_TYPES[reply.status] ?? 'api_error';
      res.writeHead(reply.status, { ...headers, ...reply.headers });
      res.end(JSON.stringify(reply.body ?? { type: 'error', error: { type, message: `fake ${this.name} says ${reply.status}` } }));
      return;
    }
    if ((req.url ?? '').startsWith('/v1/messages/count_tokens')) {
      res.writeHead(200, headers);
      res.end(JSON.stringify({ input_tokens: 1234 }));
      return;
    }
    const content = reply.content ?? [{ type: 'text', text: `reply from ${this.name}` }];
    const usage = reply.usage ?? DEFAULT_ANTHROPIC_USAGE;
    const stopReason = reply.stopReason ?? (content.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn');
    if (reply.kind === 'message') {
      res.writeHead(200, headers);
      res.end(
        JSON.stringify({
          id: 'msg_fake01',
          type: 'message',
          role: 'assistant',
          model,
          content,
          stop_reason: stopReason,
          stop_sequence: null,
          usage: anthropicUsageJson(usage),
        }),
      );
      return;
    }
    let frames = anthropicStreamFrames(model, content, usage, stopReason);
    if (reply.errorAfter !== undefined) {
      // The upstream's own in-band error, after which it ends the stream.
      frames = [...frames.slice(0, reply.errorAfter), event('error', { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } })];
    }
    this.lastStreamBytes = await streamFrames(res, { 'request-id': `req_${this.name}` }, frames, reply);
  }
}

/** A channel block for configWith(): type anthropic, claude-* models, no cool-down (tests decide failures). */
export function anthropicChannel(name: string, url: string, extra = ''): string {
  return `  - name: ${name}
    type: anthropic
    base_url: ${url}
    keys: ["sk-ant-upstream-${name}"]
    models: ["claude-*"]
    cooldown_ms: 0
${extra}`;
}
