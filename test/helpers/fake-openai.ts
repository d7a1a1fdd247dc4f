// A fake OpenAI upstream on loopback: real HTTP, real SSE framing, usage like the real API, scriptable failures.
// Replies may carry tool calls (streamed as `tool_calls` deltas keyed by index, arguments in pieces) and
// reasoning (the non-standard `reasoning_content` of DeepSeek, vLLM and others), as those providers send them.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { FakeModelList } from './fake-model-list.js';
import { LoopbackHttpServer, recordRequest, streamFrames, type RecordedRequest } from './loopback-http-server.js';

export type { RecordedRequest };

/** A function call the fake model makes; `arguments` is the JSON text, streamed in pieces. */
export interface FakeToolCall {
  readonly id: string;
  readonly name: string;
  readonly arguments: string;
}

/** What the fake model says, shared by completions and streams. */
interface FakeContent {
  readonly usage?: FakeUsage;
  /** Report no usage at all, as some OpenAI-compatible servers do (no `usage`, include_usage ignored). */
  readonly withoutUsage?: boolean;
  readonly toolCalls?: readonly FakeToolCall[];
  /** `finish_reason`; "tool_calls" when there are tool calls, else "stop". */
  readonly finishReason?: string;
}

export type FakeReply =
  | (FakeContent & {
      readonly kind: 'completion';
      /** The message content; with tool calls and no text, null as the real API sends it. */
      readonly text?: string;
      /** `message.reasoning_content`, as DeepSeek sends it. */
      readonly reasoning?: string;
    })
  | (FakeContent & {
      readonly kind: 'stream';
      /** `delta.content` pieces; with tool calls and no pieces, no text at all. */
      readonly pieces?: readonly string[];
      /** `delta.reasoning_content` pieces, sent before the text and the tool calls. */
      readonly reasoningPieces?: readonly string[];
      readonly delayMs?: number;
      readonly breakAfter?: number;
    })
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

/** Splits a string into pieces of at most `size` characters (whole code points), as deltas arrive. */
export function splitPieces(text: string, size: number): string[] {
  const chars = [...text];
  const out: string[] = [];
  for (let i = 0; i < chars.length; i += size) out.push(chars.slice(i, i + size).join(''));
  return out;
}

/** What a fake answers unless told otherwise: a stream to a stream request, else a completion. */
export const defaultReply = (req: RecordedRequest): FakeReply => (req.body['stream'] === true ? { kind: 'stream' } : { kind: 'completion' });

/** What a fake OpenAI upstream lists on GET /v1/models unless a test sets `modelList.ids`. */
export const DEFAULT_OPENAI_MODELS: readonly string[] = ['gpt-4o', 'gpt-4o-mini', 'o3-mini', 'text-embedding-3-small'];

export class FakeOpenAI extends LoopbackHttpServer {
  readonly requests: RecordedRequest[] = [];
  /** GET /v1/models (the gateway's model discovery); not counted in `requests`. */
  readonly modelList = new FakeModelList('openai', DEFAULT_OPENAI_MODELS);
  /** The exact bytes of the last stream sent. */
  lastStreamBytes: Buffer = Buffer.alloc(0);
  /** Responses whose client (the gateway) closed the connection before the response ended. */
  closedEarly = 0;
  /** Requests being answered now, and the most there were at once. */
  open = 0;
  maxOpen = 0;
  private readonly closeWaiters: (() => void)[] = [];
  reply: (req: RecordedRequest) => FakeReply = defaultReply;
  /** Awaited before each answer: a test holds answers back, to have requests in flight at once. */
  gate: ((req: RecordedRequest) => Promise<void>) | null = null;

  constructor(readonly name = 'fake') {
    super();
  }

  /** Resolves once a response was closed early by the gateway. */
  nextEarlyClose(): Promise<void> {
    return new Promise((resolve) => this.closeWaiters.push(resolve));
  }

  protected override async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (await this.modelList.handle(req, res)) return;
    const recorded = await recordRequest(req);
    const { body } = recorded;
    this.requests.push(recorded);
    this.open++;
    this.maxOpen = Math.max(this.maxOpen, this.open);
    res.on('close', () => {
      this.open--;
      if (!res.writableFinished) {
        this.closedEarly++;
        for (const waiter of this.closeWaiters.splice(0)) waiter();
      }
    });
    if (this.gate !== null) await this.gate(recorded);
    const reply = this.reply(recorded);
    const model = typeof body['model'] === 'string' ? body['model'] : 'unknown';
    if (reply.kind === 'hang') return;
    if (reply.kind === 'status') {
      res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
      res.end(JSON.stringify(reply.body ?? { error: { message: `fake ${this.name} says ${reply.status}`, type: 'server_error', param: null, code: null } }));
      return;
    }
    if (reply.kind === 'completion') {
      const toolCalls = reply.toolCalls ?? [];
      const message: Record<string, unknown> = {
        role: 'assistant',
        content: reply.text ?? (toolCalls.length > 0 ? null : `reply from ${this.name}`),
        refusal: null,
      };
      if (reply.reasoning !== undefined) message['reasoning_content'] = reply.reasoning;
      if (toolCalls.length > 0) {
        message['tool_calls'] = toolCalls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } }));
      }
      const json = {
        id: 'chatcmpl-fake1',
        object: 'chat.completion',
        created: 1760000000,
        model,
        choices: [{ index: 0, message, logprobs: null, finish_reason: finishReasonOf(reply) }],
        ...(reply.withoutUsage === true ? {} : { usage: usageJson(reply.usage ?? DEFAULT_USAGE) }),
        system_fingerprint: 'fp_fake',
      };
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(json));
      return;
    }
    await this.stream(res, body, model, reply);
  }

  private async stream(res: ServerResponse, body: Record<string, unknown>, model: string, reply: Extract<FakeReply, { kind: 'stream' }>): Promise<void> {
    const includeUsage = reply.withoutUsage !== true && (body['stream_options'] as { include_usage?: boolean } | undefined)?.include_usage === true;
    const toolCalls = reply.toolCalls ?? [];
    const reasoning = reply.reasoningPieces ?? [];
    const pieces = reply.pieces ?? (toolCalls.length > 0 || reasoning.length > 0 ? [] : ['Hel', 'lo ', 'from ', this.name, ' — ✓']);
    const chunk = (choices: unknown[], usage: unknown = null): string => {
      const c: Record<string, unknown> = { id: 'chatcmpl-fake2', object: 'chat.completion.chunk', created: 1760000000, model, system_fingerprint: 'fp_fake', choices };
      if (includeUsage) c['usage'] = usage;
      return `data: ${JSON.stringify(c)}\n\n`;
    };
    const delta = (d: Record<string, unknown>, finishReason: string | null = null): string => chunk([{ index: 0, delta: d, logprobs: null, finish_reason: finishReason }]);
    // The first chunk opens the assistant message: content "" before text, null before reasoning or tool calls
    // (as the real APIs send it).
    const noTextFirst = reasoning.length > 0 || (pieces.length === 0 && toolCalls.length > 0);
    const frames = [delta({ role: 'assistant', content: noTextFirst ? null : '' })];
    for (const p of reasoning) frames.push(delta({ content: null, reasoning_content: p }));
    for (const p of pieces) frames.push(delta({ content: p }));
    toolCalls.forEach((call, index) => {
      frames.push(delta({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }] }));
      for (const part of splitPieces(call.arguments, 7)) frames.push(delta({ tool_calls: [{ index, function: { arguments: part } }] }));
    });
    frames.push(delta({}, finishReasonOf(reply)));
    if (includeUsage) frames.push(chunk([], usageJson(reply.usage ?? DEFAULT_USAGE)));
    frames.push('data: [DONE]\n\n');
    this.lastStreamBytes = await streamFrames(res, {}, frames, reply);
  }
}

function finishReasonOf(reply: FakeContent): string {
  return reply.finishReason ?? ((reply.toolCalls ?? []).length > 0 ? 'tool_calls' : 'stop');
}
