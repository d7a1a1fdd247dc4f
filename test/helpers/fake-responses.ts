// A fake OpenAI Responses upstream on loopback: real HTTP, the real event sequence (response.created,
// response.in_progress, per output item output_item.added, its deltas, output_item.done, then
// response.completed with usage; every frame `event: <type>` + `data:` with a monotonic sequence_number from 0,
// no [DONE]), POST /v1/responses/compact (the user messages kept and one opaque compaction item), errors in
// OpenAI's shape and scriptable failures (HTTP statuses, a broken connection, an in-band response.failed).

import type { IncomingMessage, ServerResponse } from 'node:http';
import { FakeModelList } from './fake-model-list.js';
import { LoopbackHttpServer, recordRequest, streamFrames, type RecordedRequest } from './loopback-http-server.js';

export type { RecordedRequest };

export interface ResponsesUsage {
  readonly input: number;
  readonly output: number;
  readonly cached?: number;
  /** input_tokens_details.cache_write_tokens (written only when set, as providers that report it do). */
  readonly cacheWrite?: number;
  readonly reasoning?: number;
}

export const DEFAULT_RESPONSES_USAGE: ResponsesUsage = { input: 900, output: 120, cached: 768, reasoning: 64 };

/** The output items of a reply, in order; streamed as the real API streams each type. */
export type FakeOutputItem =
  | { readonly type: 'reasoning'; readonly id: string; readonly summary: readonly string[]; readonly encryptedContent: string }
  | { readonly type: 'function_call'; readonly id: string; readonly callId: string; readonly name: string; readonly arguments: string }
  | { readonly type: 'message'; readonly id: string; readonly text: string }
  | { readonly type: 'compaction'; readonly id: string; readonly encryptedContent: string };

export type FakeResponsesReply =
  | { readonly kind: 'response'; readonly output?: readonly FakeOutputItem[]; readonly usage?: ResponsesUsage }
  | {
      readonly kind: 'stream';
      readonly output?: readonly FakeOutputItem[];
      readonly usage?: ResponsesUsage;
      readonly delayMs?: number;
      /** Destroy the connection after this many frames. */
      readonly breakAfter?: number;
      /** After this many frames (status already 200), send `response.failed` with this error and end the stream. */
      readonly failAfter?: number;
      readonly failure?: ResponsesFailure;
    }
  | { readonly kind: 'status'; readonly status: number; readonly body?: unknown; readonly headers?: Record<string, string> }
  | { readonly kind: 'hang' };

/** The `error` of a failed response, as the API writes it ({code, message}). */
export interface ResponsesFailure {
  readonly code: string;
  readonly message: string;
}

export const DEFAULT_RESPONSES_FAILURE: ResponsesFailure = { code: 'server_error', message: 'The model failed to generate a response.' };

export const RESPONSE_ID = 'resp_fake0001';
export const COMPACTION_ID = 'resp_cmp_fake0001';
export const CREATED_AT = 1760000000;

/** The usage object of a response (and of /compact), as the real API writes it. */
export function responsesUsageJson(u: ResponsesUsage): Record<string, unknown> {
  return {
    input_tokens: u.input,
    input_tokens_details: { cached_tokens: u.cached ?? 0, ...(u.cacheWrite === undefined ? {} : { cache_write_tokens: u.cacheWrite }) },
    output_tokens: u.output,
    output_tokens_details: { reasoning_tokens: u.reasoning ?? 0 },
    total_tokens: u.input + u.output,
  };
}

const OUTPUT_TEXT_EMPTY = { type: 'output_text', annotations: [], logprobs: [], text: '' };

/** An output item as it stands once done. */
export function outputItemJson(item: FakeOutputItem): Record<string, unknown> {
  switch (item.type) {
    case 'reasoning':
      return {
        id: item.id,
        type: 'reasoning',
        summary: item.summary.map((text) => ({ type: 'summary_text', text })),
        encrypted_content: item.encryptedContent,
      };
    case 'function_call':
      return { id: item.id, type: 'function_call', status: 'completed', arguments: item.arguments, call_id: item.callId, name: item.name };
    case 'message':
      return {
        id: item.id,
        type: 'message',
        status: 'completed',
        content: [{ ...OUTPUT_TEXT_EMPTY, text: item.text }],
        role: 'assistant',
      };
    case 'compaction':
      return { id: item.id, type: 'compaction', encrypted_content: item.encryptedContent };
  }
}

/** The response object: in progress (no output, no usage), completed, or failed (its error set, no output). */
export function responseJson(
  body: Record<string, unknown>,
  status: 'in_progress' | 'completed' | 'failed',
  output: readonly FakeOutputItem[],
  usage: ResponsesUsage,
  failure: ResponsesFailure = DEFAULT_RESPONSES_FAILURE,
): Record<string, unknown> {
  const done = status === 'completed';
  return {
    id: RESPONSE_ID,
    object: 'response',
    created_at: CREATED_AT,
    status,
    background: false,
    error: status === 'failed' ? { code: failure.code, message: failure.message } : null,
    incomplete_details: null,
    instructions: body['instructions'] ?? null,
    max_output_tokens: body['max_output_tokens'] ?? null,
    model: typeof body['model'] === 'string' ? body['model'] : 'unknown',
    output: done ? output.map(outputItemJson) : [],
    parallel_tool_calls: body['parallel_tool_calls'] ?? true,
    previous_response_id: null,
    prompt_cache_key: body['prompt_cache_key'] ?? null,
    reasoning: { effort: 'medium', summary: 'auto' },
    service_tier: 'default',
    store: body['store'] ?? true,
    temperature: 1,
    text: { format: { type: 'text' }, verbosity: 'medium' },
    tool_choice: 'auto',
    tools: [],
    top_p: 1,
    truncation: 'disabled',
    usage: done ? responsesUsageJson(usage) : null,
    metadata: {},
  };
}

/** Splits a string into pieces of at most `size` characters (whole code points), as deltas arrive. */
function pieces(text: string, size: number): string[] {
  const chars = [...text];
  const out: string[] = [];
  for (let i = 0; i < chars.length; i += size) out.push(chars.slice(i, i + size).join(''));
  return out.length === 0 ? [''] : out;
}

/** The SSE frames the real API sends for this reply, in order, sequence_number 0, 1, 2, ... */
export function responsesStreamFrames(body: Record<string, unknown>, output: readonly FakeOutputItem[], usage: ResponsesUsage): string[] {
  const frames: string[] = [];
  const emit = (type: string, fields: Record<string, unknown>): void => {
    frames.push(`event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: frames.length, ...fields })}\n\n`);
  };
  emit('response.created', { response: responseJson(body, 'in_progress', output, usage) });
  emit('response.in_progress', { response: responseJson(body, 'in_progress', output, usage) });
  output.forEach((item, output_index) => {
    const item_id = item.id;
    switch (item.type) {
      case 'reasoning':
        emit('response.output_item.added', { output_index, item: { id: item_id, type: 'reasoning', summary: [] } });
        item.summary.forEach((text, summary_index) => {
          const at = { item_id, output_index, summary_index };
          emit('response.reasoning_summary_part.added', { ...at, part: { type: 'summary_text', text: '' } });
          for (const delta of pieces(text, 7)) emit('response.reasoning_summary_text.delta', { ...at, delta, obfuscation: 'x1' });
          emit('response.reasoning_summary_text.done', { ...at, text });
          emit('response.reasoning_summary_part.done', { ...at, part: { type: 'summary_text', text } });
        });
        break;
      case 'function_call':
        emit('response.output_item.added', {
          output_index,
          item: { id: item_id, type: 'function_call', status: 'in_progress', arguments: '', call_id: item.callId, name: item.name },
        });
        for (const delta of pieces(item.arguments, 5)) emit('response.function_call_arguments.delta', { item_id, output_index, delta, obfuscation: 'x2' });
        emit('response.function_call_arguments.done', { item_id, output_index, name: item.name, arguments: item.arguments });
        break;
      case 'message': {
        emit('response.output_item.added', {
          output_index,
          item: { id: item_id, type: 'message', status: 'in_progress', content: [], role: 'assistant' },
        });
        const at = { item_id, output_index, content_index: 0 };
        emit('response.content_part.added', { ...at, part: OUTPUT_TEXT_EMPTY });
        for (const delta of pieces(item.text, 4)) emit('response.output_text.delta', { ...at, delta, logprobs: [], obfuscation: 'x3' });
        emit('response.output_text.done', { ...at, text: item.text, logprobs: [] });
        emit('response.content_part.done', { ...at, part: { ...OUTPUT_TEXT_EMPTY, text: item.text } });
        break;
      }
      case 'compaction':
        emit('response.output_item.added', { output_index, item: outputItemJson(item) });
        break;
    }
    emit('response.output_item.done', { output_index, item: outputItemJson(item) });
  });
  emit('response.completed', { response: responseJson(body, 'completed', output, usage) });
  return frames;
}

/** The first `after` frames of the stream, then the terminal `response.failed` the API sends when generation fails. */
export function responsesFailedStreamFrames(
  body: Record<string, unknown>,
  output: readonly FakeOutputItem[],
  usage: ResponsesUsage,
  after: number,
  failure: ResponsesFailure,
): string[] {
  const frames = responsesStreamFrames(body, output, usage).slice(0, after);
  const type = 'response.failed';
  const data = { type, sequence_number: frames.length, response: responseJson(body, 'failed', output, usage, failure) };
  frames.push(`event: ${type}\ndata: ${JSON.stringify(data)}\n\n`);
  return frames;
}

/** The /compact answer: the user (and developer) messages of the input, then the compaction item(s). */
export function compactionJson(body: Record<string, unknown>, output: readonly FakeOutputItem[] | undefined, usage: ResponsesUsage): Record<string, unknown> {
  const input = body['input'];
  const kept: unknown[] =
    typeof input === 'string'
      ? [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: input }] }]
      : Array.isArray(input)
        ? input.filter((item: unknown) => {
            const role = typeof item === 'object' && item !== null ? (item as Record<string, unknown>)['role'] : undefined;
            return role === 'user' || role === 'developer';
          })
        : [];
  const compaction = output ?? [{ type: 'compaction', id: 'cmp_fake0001', encryptedContent: 'gAAAAB-fake-compaction+/=opaque' }];
  return {
    id: COMPACTION_ID,
    object: 'response.compaction',
    created_at: CREATED_AT + 100,
    output: [...kept, ...compaction.map(outputItemJson)],
    usage: responsesUsageJson(usage),
  };
}

/** What a fake answers unless told otherwise: a stream to a stream request, else a whole response. */
export const defaultResponsesReply = (req: RecordedRequest): FakeResponsesReply =>
  req.body['stream'] === true && !req.path.startsWith('/v1/responses/compact') ? { kind: 'stream' } : { kind: 'response' };

export class FakeResponses extends LoopbackHttpServer {
  readonly requests: RecordedRequest[] = [];
  /** GET /v1/models (the gateway's model discovery); not counted in `requests`. */
  readonly modelList = new FakeModelList('openai', ['gpt-5.4', 'gpt-5.4-mini', 'codex-mini-latest']);
  /** The exact bytes of the last stream sent (up to the break, for breakAfter), for byte-equality checks. */
  lastStreamBytes: Buffer = Buffer.alloc(0);
  /** The exact bytes of the last whole (non-stream) body sent. */
  lastBodyBytes: Buffer = Buffer.alloc(0);
  /** Responses whose client (the gateway) closed the connection before the response ended. */
  closedEarly = 0;
  reply: (req: RecordedRequest) => FakeResponsesReply = defaultResponsesReply;

  constructor(readonly name = 'fake-responses') {
    super();
  }

  /** The default output: a short reasoning item and a message naming this fake. */
  defaultOutput(): FakeOutputItem[] {
    return [
      { type: 'reasoning', id: 'rs_fake01', summary: ['Thinking about it.'], encryptedContent: `gAAAAB-reasoning-${this.name}` },
      { type: 'message', id: 'msg_fake01', text: `reply from ${this.name}` },
    ];
  }

  protected override async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (await this.modelList.handle(req, res)) return;
    const recorded = await recordRequest(req);
    this.requests.push(recorded);
    res.on('close', () => {
      if (!res.writableFinished) this.closedEarly++;
    });
    const path = recorded.path.split('?')[0] ?? recorded.path;
    const headers = { 'content-type': 'application/json', 'x-request-id': `req_upstream_${this.name}` };
    if (recorded.method !== 'POST' || (path !== '/v1/responses' && path !== '/v1/responses/compact')) {
      res.writeHead(404, headers);
      res.end(JSON.stringify({ error: { message: `fake ${this.name}: no route ${recorded.method} ${path}`, type: 'invalid_request_error', param: null, code: null } }));
      return;
    }
    const reply = this.reply(recorded);
    if (reply.kind === 'hang') return;
    if (reply.kind === 'status') {
      res.writeHead(reply.status, { ...headers, ...reply.headers });
      res.end(
        JSON.stringify(reply.body ?? { error: { message: `fake ${this.name} says ${reply.status}`, type: 'server_error', param: null, code: null } }),
      );
      return;
    }
    const usage = reply.usage ?? DEFAULT_RESPONSES_USAGE;
    if (path === '/v1/responses/compact') {
      this.sendBody(res, headers, compactionJson(recorded.body, reply.output, usage));
      return;
    }
    const output = reply.output ?? this.defaultOutput();
    if (reply.kind === 'response') {
      this.sendBody(res, headers, responseJson(recorded.body, 'completed', output, usage));
      return;
    }
    const frames =
      reply.failAfter === undefined
        ? responsesStreamFrames(recorded.body, output, usage)
        : responsesFailedStreamFrames(recorded.body, output, usage, reply.failAfter, reply.failure ?? DEFAULT_RESPONSES_FAILURE);
    this.lastStreamBytes = await streamFrames(res, { 'x-request-id': headers['x-request-id'] ?? '' }, frames, reply);
  }

  private sendBody(res: ServerResponse, headers: Record<string, string>, json: Record<string, unknown>): void {
    const bytes = Buffer.from(JSON.stringify(json), 'utf8');
    this.lastBodyBytes = bytes;
    res.writeHead(200, headers);
    res.end(bytes);
  }
}

/** A channel block for configWith(): type openai, gpt-* models, no cool-down (tests decide failures). */
export function responsesChannel(name: string, url: string, extra = ''): string {
  return `  - name: ${name}
    type: openai
    base_url: ${url}
    keys: ["sk-upstream-${name}"]
    models: ["gpt-*"]
    cooldown_ms: 0
${extra}`;
}
