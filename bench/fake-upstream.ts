// The benchmark's fake upstream: an OpenAI- and Anthropic-compatible server on loopback that does as little
// work as possible, so that what a target adds on top of it is what gets measured.
//
//   POST /v1/chat/completions  non-stream: a fixed chat.completion with usage (bytes built once);
//                              stream (`"stream": true` in the body): N chunks, D ms apart, a finish chunk,
//                              a usage chunk and `data: [DONE]`
//   POST /v1/messages          non-stream: a fixed Anthropic message; stream: the real event sequence
//                              (message_start ... N content_block_delta ... message_delta, message_stop)
//   POST /v1/traces            {} (an OTLP/HTTP collector's stand-in for a gateway with telemetry on: spans dropped)
//   GET  /healthz              {"status":"ok"}
//
// The body is read to the end but never parsed: whether a request streams is found by a byte search for the
// `"stream"` key (a `"stream"` inside a JSON string is escaped as `\"stream\"`, so it cannot match).
// N and D come from --chunks / --chunk-delay-ms (defaults 20 and 0) and may be overridden per request with
// the headers `x-fake-chunks` and `x-fake-chunk-delay-ms` (the gateway forwards end-to-end headers).
// Usage: node --import tsx bench/fake-upstream.ts --port 0 [--chunks 20] [--chunk-delay-ms 0]
// Prints `listening <port>` on stdout once it accepts connections. Exits when its stdin closes (the runner
// died) or on SIGTERM/SIGINT.

import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '0' },
    host: { type: 'string', default: '127.0.0.1' },
    chunks: { type: 'string', default: '20' },
    'chunk-delay-ms': { type: 'string', default: '0' },
  },
});
const DEFAULT_CHUNKS = Number(values.chunks);
const DEFAULT_DELAY_MS = Number(values['chunk-delay-ms']);

const USAGE = { prompt_tokens: 75, completion_tokens: 20, total_tokens: 95 };
const CREATED = 1_700_000_000;

const CHAT_COMPLETION = Buffer.from(
  JSON.stringify({
    id: 'chatcmpl-bench',
    object: 'chat.completion',
    created: CREATED,
    model: 'bench-model',
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: 'Hello from the fake upstream. This reply is twenty tokens long, give or take.' },
        logprobs: null,
        finish_reason: 'stop',
      },
    ],
    usage: USAGE,
  }),
);

const sse = (obj: unknown): Buffer => Buffer.from(`data: ${JSON.stringify(obj)}\n\n`);
const chunkBase = { id: 'chatcmpl-bench', object: 'chat.completion.chunk', created: CREATED, model: 'bench-model' };
const CHAT_FIRST = sse({ ...chunkBase, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] });
const CHAT_DELTA = sse({ ...chunkBase, choices: [{ index: 0, delta: { content: 'token ' }, finish_reason: null }] });
const CHAT_FINISH = sse({ ...chunkBase, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] });
const CHAT_USAGE = sse({ ...chunkBase, choices: [], usage: USAGE });
const DONE = Buffer.from('data: [DONE]\n\n');

const MESSAGE = Buffer.from(
  JSON.stringify({
    id: 'msg_bench',
    type: 'message',
    role: 'assistant',
    model: 'bench-model',
    content: [{ type: 'text', text: 'Hello from the fake upstream. This reply is twenty tokens long, give or take.' }],
    stop_reason: 'end_turn',
    stop_sequence: null,
    usage: { input_tokens: 75, output_tokens: 20, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
  }),
);
const event = (name: string, obj: unknown): Buffer => Buffer.from(`event: ${name}\ndata: ${JSON.stringify(obj)}\n\n`);
const MSG_START = event('message_start', {
  type: 'message_start',
  message: {
    id: 'msg_bench',
    type: 'message',
    role: 'assistant',
    model: 'bench-model',
    content: [],
    stop_reason: null,
    stop_sequence: null,
    usage: { input_tokens: 75, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
  },
});
const MSG_BLOCK_START = event('content_block_start', {
  type: 'content_block_start',
  index: 0,
  content_block: { type: 'text', text: '' },
});
const MSG_DELTA = event('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'token ' } });
const MSG_BLOCK_STOP = event('content_block_stop', { type: 'content_block_stop', index: 0 });
const MSG_END = Buffer.concat([
  event('message_delta', {
    type: 'message_delta',
    delta: { stop_reason: 'end_turn', stop_sequence: null },
    usage: { output_tokens: 20 },
  }),
  event('message_stop', { type: 'message_stop' }),
]);

const JSON_HEADERS = { 'content-type': 'application/json' };
const SSE_HEADERS = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' };
const STREAM_KEY = Buffer.from('"stream"');

/** True when the JSON body has a top-level-looking `"stream": true` (see the file comment). */
function wantsStream(body: Buffer): boolean {
  let at = body.indexOf(STREAM_KEY);
  while (at !== -1) {
    let i = at + STREAM_KEY.length;
    while (i < body.length && (body[i] === 0x20 || body[i] === 0x0a || body[i] === 0x0d || body[i] === 0x09)) i++;
    if (body[i] === 0x3a /* : */) {
      i++;
      while (i < body.length && (body[i] === 0x20 || body[i] === 0x0a || body[i] === 0x0d || body[i] === 0x09)) i++;
      return body[i] === 0x74; /* t */
    }
    at = body.indexOf(STREAM_KEY, at + 1);
  }
  return false;
}

function intHeader(req: IncomingMessage, name: string, fallback: number): number {
  const v = req.headers[name];
  if (typeof v !== 'string') return fallback;
  const n = Number(v);
  return Number.isInteger(n) && n >= 0 ? n : fallback;
}

/** Writes `first`, then `count` times `delta` (`delayMs` apart when > 0), then `last`; stops if the client goes. */
function stream(res: ServerResponse, first: Buffer, delta: Buffer, count: number, delayMs: number, last: Buffer): void {
  res.writeHead(200, SSE_HEADERS);
  res.write(first);
  if (delayMs === 0) {
    for (let i = 0; i < count; i++) res.write(delta);
    res.end(last);
    return;
  }
  let sent = 0;
  let timer: NodeJS.Timeout | undefined;
  const tick = (): void => {
    if (res.destroyed) return;
    res.write(delta);
    sent++;
    if (sent >= count) res.end(last);
    else timer = setTimeout(tick, delayMs);
  };
  res.on('close', () => clearTimeout(timer));
  timer = setTimeout(tick, delayMs);
}

const CHAT_TAIL = Buffer.concat([CHAT_FINISH, CHAT_USAGE, DONE]);
const MSG_HEAD = Buffer.concat([MSG_START, MSG_BLOCK_START]);
const MSG_TAIL = Buffer.concat([MSG_BLOCK_STOP, MSG_END]);

function answer(req: IncomingMessage, res: ServerResponse, body: Buffer): void {
  const path = req.url ?? '';
  const chunks = (): number => intHeader(req, 'x-fake-chunks', DEFAULT_CHUNKS);
  const delay = (): number => intHeader(req, 'x-fake-chunk-delay-ms', DEFAULT_DELAY_MS);
  if (req.method === 'POST' && path.startsWith('/v1/chat/completions')) {
    if (wantsStream(body)) stream(res, CHAT_FIRST, CHAT_DELTA, chunks(), delay(), CHAT_TAIL);
    else res.writeHead(200, JSON_HEADERS).end(CHAT_COMPLETION);
    return;
  }
  if (req.method === 'POST' && path.startsWith('/v1/messages')) {
    if (wantsStream(body)) stream(res, MSG_HEAD, MSG_DELTA, chunks(), delay(), MSG_TAIL);
    else res.writeHead(200, JSON_HEADERS).end(MESSAGE);
    return;
  }
  if (req.method === 'POST' && path === '/v1/traces') {
    res.writeHead(200, JSON_HEADERS).end('{}');
    return;
  }
  if (req.method === 'GET' && path === '/healthz') {
    res.writeHead(200, JSON_HEADERS).end('{"status":"ok"}');
    return;
  }
  res.writeHead(404, JSON_HEADERS).end('{"error":{"message":"not found","type":"invalid_request_error"}}');
}

const server = createServer((req, res) => {
  const parts: Buffer[] = [];
  req.on('data', (c: Buffer) => parts.push(c));
  req.on('end', () => answer(req, res, parts.length === 1 ? (parts[0] as Buffer) : Buffer.concat(parts)));
});
// Streams may be held open for minutes and clients keep connections alive between runs.
server.keepAliveTimeout = 120_000;
server.headersTimeout = 0;
server.requestTimeout = 0;

server.listen({ port: Number(values.port), host: values.host, backlog: 4096 }, () => {
  process.stdout.write(`listening ${(server.address() as AddressInfo).port}\n`);
});

const stop = (): void => {
  server.close();
  server.closeAllConnections();
  process.exit(0);
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
// The runner holds our stdin open; when it goes (even by SIGKILL), so do we.
process.stdin.on('end', stop);
process.stdin.on('error', stop);
process.stdin.resume();
