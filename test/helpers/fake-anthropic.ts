// A fake Anthropic upstream on loopback: real HTTP, the real event sequence (message_start with usage,
// content_block_start/delta/stop, ping, cumulative message_delta usage, message_stop), errors in
// Anthropic's shape, count_tokens, and scriptable failures.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { FakeModelList } from './fake-model-list.js';
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
      /** The in-band error's message ("Overloaded" unless told). */
      readonly errorMessage?: string;
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

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const IMAGE_MEDIA_TYPES = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp']);

/** What the real API says about one content block, or null when it accepts it. */
function blockProblem(block: unknown, where: string, role: string): string | null {
  if (!isObject(block) || typeof block['type'] !== 'string') return `${where}: each content block needs a type`;
  switch (block['type']) {
    case 'text':
      if (typeof block['text'] !== 'string') return `${where}.text: Field required`;
      return block['text'] === '' ? `${where}: text content blocks must be non-empty` : null;
    case 'image': {
      const source = block['source'];
      if (!isObject(source)) return `${where}.source: Field required`;
      if (source['type'] === 'base64') {
        if (typeof source['media_type'] !== 'string' || !IMAGE_MEDIA_TYPES.has(source['media_type'])) {
          return `${where}.source.media_type: Input should be 'image/jpeg', 'image/png', 'image/gif' or 'image/webp'`;
        }
        return typeof source['data'] === 'string' && source['data'] !== '' ? null : `${where}.source.data: Field required`;
      }
      if (source['type'] === 'url') return typeof source['url'] === 'string' ? null : `${where}.source.url: Field required`;
      return `${where}.source.type: Input tag '${String(source['type'])}' does not match any of the expected tags`;
    }
    case 'tool_use':
      if (role !== 'assistant') return `${where}: tool_use blocks may only be in assistant messages`;
      if (typeof block['id'] !== 'string' || typeof block['name'] !== 'string') return `${where}: tool_use needs id and name`;
      return isObject(block['input']) ? null : `${where}.input: Input should be a valid dictionary`;
    case 'tool_result': {
      if (role !== 'user') return `${where}: tool_result blocks may only be in user messages`;
      if (typeof block['tool_use_id'] !== 'string') return `${where}.tool_use_id: Field required`;
      const content = block['content'];
      if (content === undefined || typeof content === 'string') return null;
      if (!Array.isArray(content)) return `${where}.content: Input should be a valid list`;
      for (const [i, inner] of content.entries()) {
        const problem = blockProblem(inner, `${where}.content.${i}`, 'user');
        if (problem !== null) return problem;
      }
      return null;
    }
    case 'thinking':
      if (role !== 'assistant') return `${where}: thinking blocks may only be in assistant messages`;
      if (typeof block['thinking'] !== 'string') return `${where}.thinking: Field required`;
      return typeof block['signature'] === 'string' && block['signature'] !== '' ? null : `${where}.signature: Field required`;
    case 'redacted_thinking':
      return typeof block['data'] === 'string' && block['data'] !== '' ? null : `${where}.data: Field required`;
    default:
      return `${where}: Input tag '${block['type']}' found using 'type' does not match any of the expected tags`;
  }
}

function blocksOf(message: Record<string, unknown>): unknown[] {
  return Array.isArray(message['content']) ? message['content'] : [];
}

function idsOf(blocks: readonly unknown[], type: string, field: string): string[] {
  return blocks.filter(isObject).filter((b) => b['type'] === type).map((b) => String(b[field]));
}

/**
 * The first reason the real Messages API would answer 400 invalid_request_error to this body, or null. Only
 * rules of the public API (its own wording where known), so a translating gateway is held to what Anthropic
 * itself enforces; consecutive messages of one role are accepted, as the API merges them, and so are Claude
 * Code's role "system" messages.
 */
export function anthropicRequestProblem(body: Record<string, unknown>): string | null {
  if (typeof body['model'] !== 'string' || body['model'] === '') return 'model: Field required';
  const maxTokens = body['max_tokens'];
  if (typeof maxTokens !== 'number' || !Number.isInteger(maxTokens) || maxTokens < 1) return 'max_tokens: Field required';
  if (body['stream'] !== undefined && typeof body['stream'] !== 'boolean') return 'stream: Input should be a valid boolean';
  const system = body['system'];
  if (system !== undefined && typeof system !== 'string') {
    if (!Array.isArray(system)) return 'system: Input should be a valid list';
    for (const [i, block] of system.entries()) {
      if (!isObject(block) || block['type'] !== 'text' || typeof block['text'] !== 'string') return `system.${i}: Input should be a text block`;
      if (block['text'] === '') return `system.${i}: text content blocks must be non-empty`;
    }
  }
  const messages = body['messages'];
  if (!Array.isArray(messages) || messages.length === 0) return 'messages: at least one message is required';
  for (const [i, message] of messages.entries()) {
    if (!isObject(message)) return `messages.${i}: Input should be a valid dictionary`;
    const role = message['role'];
    // Claude Code sends role "system" messages inside messages[] and the API takes them (clients.md).
    if (role !== 'user' && role !== 'assistant' && role !== 'system') {
      return `messages.${i}.role: Input should be 'user', 'assistant' or 'system'`;
    }
    if (i === 0 && role !== 'user') return 'messages: first message must use the "user" role';
    const content = message['content'];
    if (typeof content === 'string') {
      if (content === '' && !(role === 'assistant' && i === messages.length - 1)) return `messages.${i}: content must be non-empty`;
      continue;
    }
    if (!Array.isArray(content)) return `messages.${i}.content: Input should be a valid list`;
    if (content.length === 0 && !(role === 'assistant' && i === messages.length - 1)) return `messages.${i}: all messages must have non-empty content`;
    for (const [j, block] of content.entries()) {
      const problem = blockProblem(block, `messages.${i}.content.${j}`, role);
      if (problem !== null) return problem;
    }
    // Every tool_use is answered in the very next message, and every tool_result answers the one before.
    const uses = role === 'assistant' ? idsOf(content, 'tool_use', 'id') : [];
    const next = messages[i + 1];
    if (uses.length > 0 && isObject(next)) {
      const answered = new Set(next['role'] === 'user' ? idsOf(blocksOf(next), 'tool_result', 'tool_use_id') : []);
      const missing = uses.filter((id) => !answered.has(id));
      if (missing.length > 0) {
        return (
          `messages.${i + 1}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(', ')}. ` +
          'Each `tool_use` block must have a corresponding `tool_result` block in the next message.'
        );
      }
    }
    const results = role === 'user' ? idsOf(content, 'tool_result', 'tool_use_id') : [];
    if (results.length > 0) {
      const previous = messages[i - 1];
      const asked = new Set(isObject(previous) && previous['role'] === 'assistant' ? idsOf(blocksOf(previous), 'tool_use', 'id') : []);
      const unexpected = results.filter((id) => !asked.has(id));
      if (unexpected.length > 0) {
        return (
          `messages.${i}.content.0: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${unexpected.join(', ')}. ` +
          'Each `tool_result` block must have a corresponding `tool_use` block in the previous message.'
        );
      }
    }
  }
  const tools = body['tools'];
  if (tools !== undefined) {
    if (!Array.isArray(tools)) return 'tools: Input should be a valid list';
    const names = new Set<string>();
    for (const [i, tool] of tools.entries()) {
      if (!isObject(tool)) return `tools.${i}: Input should be a valid dictionary`;
      if (typeof tool['name'] !== 'string' || !/^[a-zA-Z0-9_-]{1,128}$/.test(tool['name'])) {
        return `tools.${i}.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'`;
      }
      if (names.has(tool['name'])) return 'tools: Tool names must be unique.';
      names.add(tool['name']);
      if (tool['type'] === undefined || tool['type'] === 'custom') {
        const schema = tool['input_schema'];
        if (!isObject(schema)) return `tools.${i}.custom.input_schema: Field required`;
        if (schema['type'] !== 'object') return `tools.${i}.custom.input_schema.type: Input should be 'object'`;
      }
    }
  }
  const toolChoice = body['tool_choice'];
  if (toolChoice !== undefined && (!Array.isArray(tools) || tools.length === 0) && !(isObject(toolChoice) && toolChoice['type'] === 'none')) {
    return 'tool_choice: tool_choice may only be specified while providing tools.';
  }
  const thinking = body['thinking'];
  if (isObject(thinking) && thinking['type'] === 'enabled') {
    const budget = thinking['budget_tokens'];
    if (typeof budget !== 'number' || budget < 1024) return 'thinking.enabled.budget_tokens: Input should be greater than or equal to 1024';
    if (budget >= maxTokens) return '`max_tokens` must be greater than `thinking.budget_tokens`.';
    if (body['temperature'] !== undefined && body['temperature'] !== 1) return '`temperature` may only be set to 1 when thinking is enabled.';
    if (body['top_p'] !== undefined) return '`top_p` cannot be set when thinking is enabled.';
  }
  return null;
}

/** What a fake Anthropic upstream lists on GET /v1/models unless a test sets `modelList.ids`. */
export const DEFAULT_ANTHROPIC_MODELS: readonly string[] = ['claude-sonnet-4-5-20250929', 'claude-opus-4-1-20250805', 'claude-haiku-4-5-20251001'];

export class FakeAnthropic extends LoopbackHttpServer {
  readonly requests: RecordedAnthropicRequest[] = [];
  /** GET /v1/models (the gateway's model discovery), paged like the real API; not counted in `requests`. */
  readonly modelList = new FakeModelList('anthropic', DEFAULT_ANTHROPIC_MODELS);
  /**
   * Check POST /v1/messages bodies as the real API does (anthropicRequestProblem) and answer 400
   * invalid_request_error to a bad one, whatever `reply` says. Off by default.
   */
  strict = false;
  /** The problems found in strict mode, one per rejected request, in order. */
  readonly rejected: string[] = [];
  /** The exact bytes of the last stream sent, for byte-equality checks. */
  lastStreamBytes: Buffer = Buffer.alloc(0);
  closedEarly = 0;
  reply: (req: RecordedAnthropicRequest) => FakeAnthropicReply = defaultAnthropicReply;

  constructor(readonly name = 'fake-anthropic') {
    super();
  }

  protected override async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (await this.modelList.handle(req, res)) return;
    const recorded = await recordRequest(req);
    const { body } = recorded;
    this.requests.push(recorded);
    res.on('close', () => {
      if (!res.writableFinished) this.closedEarly++;
    });
    const path = recorded.path.split('?')[0];
    const problem = this.strict && recorded.method === 'POST' && path === '/v1/messages' ? anthropicRequestProblem(body) : null;
    if (problem !== null) this.rejected.push(problem);
    const reply: FakeAnthropicReply =
      problem === null
        ? this.reply(recorded)
        : { kind: 'status', status: 400, body: { type: 'error', error: { type: 'invalid_request_error', message: problem } } };
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
      frames = [
        ...frames.slice(0, reply.errorAfter),
        event('error', { type: 'error', error: { type: 'overloaded_error', message: reply.errorMessage ?? 'Overloaded' } }),
      ];
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
