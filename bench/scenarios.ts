// The benchmark's scenarios and the request bodies they send. Bodies are built deterministically, so every
// run and every target gets the same bytes.

export const MODEL = 'bench-model';

export interface Scenario {
  readonly name: string;
  /** One line for the table's heading and the README. */
  readonly description: string;
  readonly path: '/v1/chat/completions' | '/v1/messages';
  readonly body: Buffer;
  readonly connections: number;
  readonly durationS: number;
}

/** A ~300-byte chat request, like a short chat turn. */
export function smallChatBody(): Buffer {
  return Buffer.from(
    JSON.stringify({
      model: MODEL,
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

/** A tiny deterministic PRNG (mulberry32), so generated bodies are the same on every run. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
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
export function largeChatBody(targetBytes = 500 * 1024): Buffer {
  const next = rng(42);
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
  const body = { model: MODEL, messages, tools, max_tokens: 4096, temperature: 0 };
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

/** Seconds each measured run lasts: BENCH_DURATION_S, else the scenario's own. */
export function durationOf(defaultS: number): number {
  const env = process.env['BENCH_DURATION_S'];
  if (env === undefined || env === '') return defaultS;
  const n = Number(env);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`BENCH_DURATION_S must be a positive number, not "${env}"`);
  return n;
}

export function scenarios(): Scenario[] {
  const small = smallChatBody();
  const large = largeChatBody();
  return [
    {
      name: 'chat-small',
      description: `chat completions, ${small.length} B body, non-stream, closed loop`,
      path: '/v1/chat/completions',
      body: small,
      connections: 64,
      durationS: durationOf(10),
    },
    {
      name: 'chat-large',
      description: `chat completions, ${Math.round(large.length / 1024)} KB body (a coding agent's context), non-stream, closed loop`,
      path: '/v1/chat/completions',
      body: large,
      connections: 8,
      durationS: durationOf(10),
    },
  ];
}
