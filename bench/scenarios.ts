// The benchmark's scenarios and the request bodies they send. Bodies are built deterministically, so every
// run and every target gets the same bytes.
//
// A scenario is one kind of load (see `kind` below) sent to a list of legs; a leg is one row of the table:
// a target process (direct, gateway, peer) with the request it gets. Most scenarios send the same request
// to every target; `translation` sends two requests (pass-through and translated) to the one gateway.

import type { TargetName } from './targets.js';
import { seededRandom } from '../test/helpers/seeded-random.js';

/** The gateway's openai (chat) channel serves `bench-*`; its anthropic channel `claude-bench-*`. */
export const MODEL = 'bench-model';
/** The one priced model of the bench's config: a metered key calls it (chat-small-billed, bench:ab billed). */
export const BILLED_MODEL = 'bench-billed';
export const CLAUDE_MODEL = 'claude-bench-sonnet';

/** The client API a leg speaks: Chat Completions or Anthropic Messages. */
export type Api = 'chat' | 'messages';

export const API_PATH: Readonly<Record<Api, string>> = { chat: '/v1/chat/completions', messages: '/v1/messages' };
/** The last SSE line of a complete stream in each API. */
export const STREAM_TERMINAL: Readonly<Record<Api, string>> = { chat: 'data: [DONE]', messages: 'data: {"type":"message_stop"}' };

/** The stream the fake upstream is asked for, per request (x-fake-chunks, x-fake-chunk-delay-ms). */
export interface FakeStream {
  readonly chunks: number;
  readonly delayMs: number;
}

export interface Leg {
  /** The row's name: the target's, or a variant's when one target gets several requests. */
  readonly name: string;
  readonly target: TargetName;
  readonly api: Api;
  readonly body: Buffer;
  /** Set for streaming requests (the body says `"stream": true`). */
  readonly stream?: FakeStream;
  /** Sent with the gateway's metered key (an account's balance pays for it) instead of the unmetered one. */
  readonly billed?: true;
}

interface LoadScenario {
  readonly name: string;
  /** One line for the table's heading and the README. */
  readonly description: string;
  readonly legs: readonly Leg[];
  /** The leg the `added` and `÷` columns compare with (`direct`, or `pass-through`). */
  readonly baseline: string;
  /** Seconds of each measured run (BENCH_DURATION_S overrides it). */
  readonly durationS: number;
  /** Seconds of the unrecorded warm-up run per leg (BENCH_WARMUP_S overrides it); 0 for none. */
  readonly warmupS: number;
  /** Measured rounds; undefined: BENCH_ROUNDS. */
  readonly rounds?: number;
  /** Restart every process before the scenario (a memory baseline not inflated by earlier scenarios). */
  readonly freshProcesses?: boolean;
}

/** autocannon, closed loop: each connection sends its next request when the answer is complete. */
export interface ClosedScenario extends LoadScenario {
  readonly kind: 'closed';
  readonly connections: number;
}

/** Open loop at a fixed rate, evenly spaced; latency percentiles and what a target adds to direct's. */
export interface RateScenario extends LoadScenario {
  readonly kind: 'rate';
  readonly rate: number;
}

/** Streams, closed loop at a concurrency; time to the first body bytes, total time, CPU per chunk. */
export interface StreamClosedScenario extends LoadScenario {
  readonly kind: 'stream-closed';
  readonly concurrency: number;
}

/** New streams opened at a fixed rate whatever the answers do; TTFB while they pile up. */
export interface StreamOpenScenario extends LoadScenario {
  readonly kind: 'stream-open';
  readonly rate: number;
}

/** `streams` long streams opened over `rampS` and held to their end; failures and RSS per stream. */
export interface StreamHoldScenario extends LoadScenario {
  readonly kind: 'stream-hold';
  readonly streams: number;
  /**
   * Streams held through the peer: fewer, because at ~200 µs CPU per relayed chunk on one core it cannot
   * relay 9,500 x 10 chunks/s in any time the run can afford (about 2,000 is where issue 6 measured it).
   */
  readonly peerStreams: number;
  readonly rampS: number;
  /** Seconds after the last stream is opened before the ones still open are stopped (and count as unfinished). */
  readonly drainLimitS: number;
}

/** The gateway's usage writer on its own, in a child process: records per second into SQLite. */
export interface UsageWriterScenario {
  readonly kind: 'usage-writer';
  readonly name: string;
  readonly description: string;
  readonly durationS: number;
  readonly rounds?: number;
}

export type DrivenScenario = RateScenario | StreamClosedScenario | StreamOpenScenario | StreamHoldScenario;
export type Scenario = ClosedScenario | DrivenScenario | UsageWriterScenario;

/** A ~300-byte chat request, like a short chat turn (for `model`: BILLED_MODEL is priced, billed to an account). */
export function smallChatBody(stream = false, model = MODEL): Buffer {
  return Buffer.from(
    JSON.stringify({
      model,
      ...(stream ? { stream: true } : {}),
      messages: [
        { role: 'system', content: 'You are a helpful assistant. Answer briefly.' },
        {
          role: 'user',
          content: 'What is the capital of France? Please answer in one short sentence, and mention the river that runs through it.',
        },
      ],
      max_tokens: 64,
      temperature: 0.2,
      user: 'bench-user-0001',
    }),
  );
}

/**
 * A small streaming Messages request (one user turn, no tools): translating it costs next to nothing, so a
 * translated stream's CPU beyond pass-through's is the stream's own decode and encode per chunk.
 */
export function smallMessagesBody(model: string): Buffer {
  return Buffer.from(
    JSON.stringify({
      model,
      max_tokens: 1024,
      stream: true,
      messages: [{ role: 'user', content: 'What is the capital of France? Please answer in one short sentence, and mention the river that runs through it.' }],
      metadata: { user_id: 'user_bench_0001' },
    }),
  );
}


const WORDS = [
  'request', 'response', 'stream', 'channel', 'config', 'await', 'buffer', 'usage', 'token', 'router',
  'const', 'return', 'value', 'error', 'frame', 'client', 'server', 'handler', 'schema', 'record',
  'model', 'signal', 'timeout', 'status', 'header', 'body', 'parse', 'write', 'flush', 'chunk',
];

/** Source-code-like text (quotes, backslashes, newlines, tabs, a little non-ASCII) of about `bytes` bytes. */
function codeText(next: () => number, bytes: number): string {
  const word = (): string => WORDS[Math.floor(next() * WORDS.length)] as string;
  const lines: string[] = [];
  let size = 0;
  let n = 0;
  while (size < bytes) {
    n++;
    const line =
      n % 7 === 0
        ? `\t// ${word()} ${word()}: the ${word()} is "${word()}" — see ${word()}\\${word()}.ts`
        : n % 5 === 0
          ? `export async function ${word()}${n}(${word()}: string, ${word()}: number): Promise<void> {`
          : `  const ${word()}${n} = await ${word()}.${word()}("${word()}-${n}", { ${word()}: ${n}, ${word()}: '${word()}' });`;
    lines.push(line);
    size += Buffer.byteLength(line) + 1;
  }
  return lines.join('\n');
}

/**
 * A coding agent's context of about `targetBytes`: a long system prompt, tool definitions and a history of
 * user turns, assistant tool calls and tool results holding source files.
 */
export function largeChatBody(targetBytes = 500 * 1024, stream = false): Buffer {
  const next = seededRandom(42);
  const tools = ['read_file', 'write_file', 'run_shell', 'search_code'].map((name) => ({
    type: 'function',
    function: {
      name,
      description: `The ${name} tool. ${codeText(next, 300)}`,
      parameters: {
        type: 'object',
        properties: { path: { type: 'string', description: 'A path in the repository.' }, content: { type: 'string' } },
        required: ['path'],
      },
    },
  }));
  const messages: unknown[] = [{ role: 'system', content: `You are a coding agent.\n${codeText(next, 8 * 1024)}` }];
  const body = { model: MODEL, ...(stream ? { stream: true } : {}), messages, tools, max_tokens: 4096, temperature: 0 };
  let turn = 0;
  while (Buffer.byteLength(JSON.stringify(body)) < targetBytes) {
    turn++;
    messages.push({ role: 'user', content: `Step ${turn}: ${codeText(next, 400)}` });
    messages.push({
      role: 'assistant',
      content: null,
      tool_calls: [
        {
          id: `call_${turn}`,
          type: 'function',
          function: { name: 'read_file', arguments: JSON.stringify({ path: `src/module-${turn}.ts` }) },
        },
      ],
    });
    messages.push({ role: 'tool', tool_call_id: `call_${turn}`, content: codeText(next, 12 * 1024) });
  }
  return Buffer.from(JSON.stringify(body));
}

/**
 * An Anthropic Messages request the size Claude Code sends (about `targetBytes`): a system prompt in blocks
 * with cache_control, a dozen tools with JSON schemas, a conversation of user turns, assistant text and
 * tool_use blocks, and tool_result blocks holding source files; metadata.user_id as Claude Code fills it;
 * streaming. Only `model` differs between the pass-through and the translated request.
 */
export function messagesBody(model: string, targetBytes = 80 * 1024): Buffer {
  const next = seededRandom(7);
  const toolNames = ['Task', 'Bash', 'Glob', 'Grep', 'LS', 'Read', 'Edit', 'MultiEdit', 'Write', 'NotebookEdit', 'WebFetch', 'TodoWrite', 'WebSearch'];
  const tools = toolNames.map((name) => ({
    name,
    description: `Use the ${name} tool when needed.\n${codeText(next, 1200)}`,
    input_schema: {
      type: 'object',
      properties: {
        path: { type: 'string', description: 'The absolute path of the file or directory.' },
        command: { type: 'string', description: 'What to run or look for.' },
        limit: { type: 'number', description: 'At most this many lines or results.' },
      },
      required: ['path'],
      additionalProperties: false,
      $schema: 'http://json-schema.org/draft-07/schema#',
    },
  }));
  const system = [
    { type: 'text', text: "You are Claude Code, Anthropic's official CLI for Claude.", cache_control: { type: 'ephemeral' } },
    { type: 'text', text: `You are an interactive CLI tool that helps users with software engineering tasks.\n${codeText(next, 10 * 1024)}`, cache_control: { type: 'ephemeral' } },
  ];
  const messages: unknown[] = [
    { role: 'user', content: [{ type: 'text', text: `<system-reminder>\n${codeText(next, 2 * 1024)}\n</system-reminder>` }, { type: 'text', text: 'Fix the failing test in the stream module.' }] },
  ];
  const body = {
    model,
    messages,
    system,
    tools,
    metadata: { user_id: 'user_0f1e2d3c4b5a69788796a5b4c3d2e1f0_account__session_5b1d5f3e-8a0c-4c2e-9d7a-2f6b8e4c1a90' },
    max_tokens: 32000,
    stream: true,
  };
  let turn = 0;
  while (Buffer.byteLength(JSON.stringify(body)) < targetBytes) {
    turn++;
    const id = `toolu_bench_${String(turn).padStart(4, '0')}`;
    messages.push({
      role: 'assistant',
      content: [
        { type: 'text', text: `Step ${turn}: ${codeText(next, 200)}` },
        { type: 'tool_use', id, name: 'Read', input: { path: `/repo/src/module-${turn}.ts`, limit: 400 } },
      ],
    });
    messages.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: codeText(next, 4 * 1024) }] });
  }
  // The conversation ends on a user turn, as every request does.
  messages.push({ role: 'assistant', content: [{ type: 'text', text: 'I found the cause; fixing it now.' }] });
  messages.push({ role: 'user', content: [{ type: 'text', text: 'Go ahead.' }] });
  return Buffer.from(JSON.stringify(body));
}

function envNumber(name: string): number | undefined {
  const v = process.env[name];
  if (v === undefined || v === '') return undefined;
  const n = Number(v);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${name} must be a positive number, not "${v}"`);
  return n;
}

/** Seconds each measured run lasts: BENCH_DURATION_S, else the scenario's own. */
export function durationOf(defaultS: number): number {
  return envNumber('BENCH_DURATION_S') ?? defaultS;
}

/** Concurrent streams of stream-hold: 9,500, not the 10,000, because of this machine's fd limit (README). */
export const HOLD_STREAMS = Math.floor(envNumber('BENCH_HOLD_STREAMS') ?? 9500);
export const HOLD_PEER_STREAMS = Math.floor(envNumber('BENCH_HOLD_PEER_STREAMS') ?? 1000);
/**
 * Concurrent streams of stream-hold-open: about the most whose 10 chunks/s each one core relays with every
 * stream open at once, so RSS per stream is that of open streams (at 9,500 most wait in the accept queue).
 */
export const HOLD_OPEN_STREAMS = Math.floor(envNumber('BENCH_HOLD_OPEN_STREAMS') ?? 2000);
/**
 * The stream both hold scenarios hold: the 100 chunks 100 ms apart. BENCH_HOLD_CHUNKS and
 * BENCH_HOLD_CHUNK_DELAY_MS change it, e.g. to hold 9,500 streams all open at once at a chunk a second (at 10
 * chunks a second that many are more than 2 cores relay: most wait in the accept queue).
 */
export const HOLD_STREAM: FakeStream = {
  chunks: Math.floor(envNumber('BENCH_HOLD_CHUNKS') ?? 100),
  delayMs: Math.floor(envNumber('BENCH_HOLD_CHUNK_DELAY_MS') ?? 100),
};

/** One leg per target, all sending the same request. */
function sameRequest(api: Api, body: Buffer, stream?: FakeStream): Leg[] {
  return (['direct', 'gateway', 'peer'] as const).map((target) => ({ name: target, target, api, body, ...(stream === undefined ? {} : { stream }) }));
}

/**
 * One gateway, two legs: a Messages request passed through (the anthropic channel) and the same request for a
 * model only the openai channel serves (translated), 200-chunk streams, the pass-through leg the baseline.
 */
function translationScenario(name: string, description: string, passThrough: Buffer, translated: Buffer): StreamClosedScenario {
  const stream: FakeStream = { chunks: 200, delayMs: 0 };
  return {
    kind: 'stream-closed',
    name,
    description,
    legs: [
      { name: 'pass-through', target: 'gateway', api: 'messages', body: passThrough, stream },
      { name: 'translated', target: 'gateway', api: 'messages', body: translated, stream },
    ],
    baseline: 'pass-through',
    concurrency: 4,
    durationS: durationOf(3),
    warmupS: 1,
  };
}

/** `streams` of the held stream (HOLD_STREAM), opened over 2.5 s and held to their end. */
function holdScenario(name: string, description: string, streams: number, peerStreams: number, legs: Leg[]): StreamHoldScenario {
  return {
    kind: 'stream-hold',
    name,
    description,
    legs,
    baseline: 'direct',
    streams,
    peerStreams,
    rampS: 2.5,
    drainLimitS: Math.floor(envNumber('BENCH_HOLD_LIMIT_S') ?? 60),
    durationS: 0,
    // On fresh processes; the warm-up is the same stream without pauses, closed loop (JIT, pools).
    freshProcesses: true,
    warmupS: 1,
    rounds: Math.floor(envNumber('BENCH_HOLD_ROUNDS') ?? 1),
  };
}

export function scenarios(): Scenario[] {
  const small = smallChatBody();
  const smallStream = smallChatBody(true);
  const holdLegs = sameRequest('chat', smallStream, HOLD_STREAM);
  const held = `${HOLD_STREAM.chunks} chunks ${HOLD_STREAM.delayMs} ms apart`;
  const large = largeChatBody();
  const claudeCode = messagesBody(CLAUDE_MODEL);
  const claudeCodeOnChat = messagesBody(MODEL);
  const smallMessages = smallMessagesBody(CLAUDE_MODEL);
  const smallMessagesOnChat = smallMessagesBody(MODEL);
  const kb = (b: Buffer): string => `${Math.round(b.length / 1024)} KB`;
  // Streams whose chunks come as fast as the fake can write them: what is measured is the relaying.
  const burst200: FakeStream = { chunks: 200, delayMs: 0 };
  const common = { baseline: 'direct', warmupS: 1 } as const;
  return [
    {
      kind: 'closed',
      name: 'chat-small',
      description: `chat completions, ${small.length} B body, non-stream, closed loop`,
      legs: sameRequest('chat', small),
      baseline: 'direct',
      connections: 64,
      durationS: durationOf(10),
      warmupS: 2,
    },
    {
      kind: 'closed',
      name: 'chat-small-billed',
      description: `chat completions, ${small.length} B body, non-stream, closed loop: a metered key (its account's balance reserved, charged with its record) against an unmetered one`,
      legs: [
        { name: 'unmetered', target: 'gateway', api: 'chat', body: small },
        { name: 'billed', target: 'gateway', api: 'chat', body: smallChatBody(false, BILLED_MODEL), billed: true },
      ],
      baseline: 'unmetered',
      connections: 64,
      durationS: durationOf(10),
      warmupS: 2,
    },
    {
      kind: 'closed',
      name: 'chat-large',
      description: `chat completions, ${kb(large)} body (a coding agent's context), non-stream, closed loop`,
      legs: sameRequest('chat', large),
      baseline: 'direct',
      connections: 8,
      durationS: durationOf(4),
      warmupS: 2,
    },
    {
      ...common,
      kind: 'rate',
      name: 'rate-small',
      description: `chat completions, ${small.length} B body, non-stream, fixed rate 400 req/s (open loop)`,
      legs: sameRequest('chat', small),
      rate: 400,
      durationS: durationOf(3),
    },
    {
      ...common,
      kind: 'rate',
      name: 'rate-large',
      description: `chat completions, ${kb(large)} body, non-stream, fixed rate 30 req/s (open loop)`,
      legs: sameRequest('chat', large),
      rate: 30,
      durationS: durationOf(4),
    },
    {
      ...common,
      kind: 'stream-closed',
      name: 'stream-ttfb-c1',
      description: `chat completions streaming ${burst200.chunks} chunks (no delay), ${smallStream.length} B body, closed loop, concurrency 1`,
      legs: sameRequest('chat', smallStream, burst200),
      concurrency: 1,
      durationS: durationOf(3),
    },
    {
      ...common,
      kind: 'stream-closed',
      name: 'stream-ttfb-c16',
      description: `chat completions streaming ${burst200.chunks} chunks (no delay), ${smallStream.length} B body, closed loop, concurrency 16`,
      legs: sameRequest('chat', smallStream, burst200),
      concurrency: 16,
      durationS: durationOf(3),
    },
    {
      ...common,
      kind: 'stream-open',
      name: 'stream-open',
      description: 'chat completions streaming 20 chunks 50 ms apart, 200 new streams per second (open loop)',
      legs: sameRequest('chat', smallStream, { chunks: 20, delayMs: 50 }),
      rate: 200,
      durationS: durationOf(3),
    },
    {
      ...common,
      kind: 'stream-closed',
      name: 'messages',
      description: `Anthropic Messages pass-through (anthropic channel), ${kb(claudeCode)} Claude Code body, streaming ${burst200.chunks} chunks (no delay), closed loop, concurrency 4`,
      legs: sameRequest('messages', claudeCode, burst200),
      concurrency: 4,
      durationS: durationOf(3),
    },
    translationScenario(
      'translation',
      `Anthropic Messages client, ${kb(claudeCode)} Claude Code body, streaming ${burst200.chunks} chunks (no delay), through the gateway: pass-through (anthropic channel) vs translated to Chat (openai channel), closed loop, concurrency 4`,
      claudeCode,
      claudeCodeOnChat,
    ),
    translationScenario(
      'translation-small',
      `the same with a ${smallMessages.length} B Messages body (one user turn): the translated stream's own cost per chunk, its request's translation next to nothing`,
      smallMessages,
      smallMessagesOnChat,
    ),
    holdScenario(
      'stream-hold-open',
      `${HOLD_OPEN_STREAMS.toLocaleString('en-US')} concurrent chat streams (every one open at once; no peer: it is in stream-hold) of ${held}, opened over 2.5 s and held to their end`,
      HOLD_OPEN_STREAMS,
      0,
      holdLegs.filter((leg) => leg.target !== 'peer'),
    ),
    // Last of the network scenarios: it leaves every target with a grown heap and thousands of closed sockets.
    holdScenario(
      'stream-hold',
      `${HOLD_STREAMS.toLocaleString('en-US')} concurrent chat streams (peer: ${HOLD_PEER_STREAMS.toLocaleString('en-US')}) of ${held}, opened over 2.5 s and held to their end`,
      HOLD_STREAMS,
      HOLD_PEER_STREAMS,
      holdLegs,
    ),
    {
      kind: 'usage-writer',
      name: 'usage-writer',
      description: "the gateway's UsageWriter and SQLite store in a child process, usage records added as fast as it accepts them",
      durationS: durationOf(3),
    },
  ];
}
