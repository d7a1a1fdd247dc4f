// Graceful shutdown of the real CLI process: SIGTERM lets every in-flight request finish, refuses new ones,
// writes every usage record to SQLite and exits 0.

import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { DEFAULT_USAGE, FakeOpenAI } from '../helpers/fake-openai.js';
import { TEST_KEY, readUsageFile } from '../helpers/gateway-under-test.js';

const ROOT = new URL('../../', import.meta.url).pathname;
const N = 12;
const PIECES = ['one ', 'two ', 'three ', 'four ', 'five ', 'six ', 'seven ', 'eight ', 'nine ', 'ten'];

async function freePort(): Promise<number> {
  const server = createNetServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function until<T>(what: string, probe: () => T | undefined | Promise<T | undefined>, deadlineMs = 20_000): Promise<T> {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/**
 * Sits between the gateway and the fake upstream: counts arrivals and holds every request until `release()`,
 * so all of them are provably in flight in the gateway when SIGTERM arrives.
 */
class HoldingProxy {
  arrivals = 0;
  private releaseAll!: () => void;
  private readonly released = new Promise<void>((resolve) => (this.releaseAll = resolve));
  private readonly server: Server;

  constructor(private readonly target: string) {
    this.server = createServer((req, res) => void this.handle(req, res));
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return this;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  release(): void {
    this.releaseAll();
  }

  async close(): Promise<void> {
    this.release();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    this.arrivals++;
    await this.released;
    const out = httpRequest(`${this.target}${req.url ?? '/'}`, { method: req.method, headers: req.headers }, (upstream) => {
      res.writeHead(upstream.statusCode ?? 502, upstream.headers);
      upstream.pipe(res);
    });
    out.on('error', () => res.destroy());
    out.end(Buffer.concat(chunks));
  }
}

let dir: string;
let upstream: FakeOpenAI;
let proxy: HoldingProxy;
let child: ChildProcess | undefined;
let stderr = '';

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'gw-shutdown-'));
  upstream = await new FakeOpenAI('slow').start();
  upstream.reply = (req) =>
    req.body['stream'] === true ? { kind: 'stream', pieces: PIECES, delayMs: 100 } : { kind: 'completion', text: `done ${String(req.body['user'])}` };
  proxy = await new HoldingProxy(upstream.url).start();
});

after(async () => {
  if (child !== undefined && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await proxy.close();
  await upstream.close();
  await rm(dir, { recursive: true, force: true });
});

interface Outcome {
  readonly status: number;
  readonly text: string;
}

function contentOf(sse: string): string {
  let text = '';
  for (const line of sse.split('\n')) {
    if (!line.startsWith('data: {')) continue;
    const chunk = JSON.parse(line.slice('data: '.length)) as { choices: { delta?: { content?: string } }[] };
    text += chunk.choices[0]?.delta?.content ?? '';
  }
  return text;
}

/** One request on a fresh connection (no pooled socket the server may be closing): a status, or the socket error. */
function probe(url: string): Promise<{ status: number; body: string } | { error: string }> {
  return new Promise((resolve) => {
    const req = httpRequest(
      `${url}/v1/chat/completions`,
      { method: 'POST', agent: false, headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' } },
      (res) => {
        const parts: Buffer[] = [];
        res.on('data', (c: Buffer) => parts.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(parts).toString() }));
        res.on('error', (err: NodeJS.ErrnoException) => resolve({ error: err.code ?? err.message }));
      },
    );
    req.on('error', (err: NodeJS.ErrnoException) => resolve({ error: err.code ?? err.message }));
    req.end(JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'late' }] }));
  });
}

test('SIGTERM drains every in-flight request, refuses new ones, flushes usage and exits 0', async () => {
  const port = await freePort();
  const dbPath = join(dir, 'gw.db');
  const configPath = join(dir, 'gateway.yaml');
  await writeFile(
    configPath,
    `server:
  port: 1
  host: 127.0.0.1
  shutdown_grace_ms: 30000
store:
  url: sqlite:${dbPath}
channels:
  - name: up
    type: openai
    base_url: ${proxy.url}
    keys: ["sk-upstream-slow-0123"]
    models: ["gpt-*"]
groups:
  pro:
    models: ["*"]
keys:
  - name: tester
    key: ${TEST_KEY}
    group: pro
`,
  );
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), LOG_LEVEL: 'info' };
  delete env['NODE_TEST_CONTEXT'];
  delete env['GATEWAY_CONFIG'];
  const proc = spawn(process.execPath, ['--import', 'tsx', 'bin/gateway.ts', 'serve', '--config', configPath], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child = proc;
  proc.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s));
  proc.stdout.resume();
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    proc.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const url = `http://127.0.0.1:${port}`;

  await until('GET /healthz', async () => {
    if (proc.exitCode !== null) throw new Error(`the gateway exited early (${proc.exitCode}):\n${stderr}`);
    const res = await fetch(`${url}/healthz`).catch(() => null);
    return res?.status === 200 ? true : undefined;
  });
  // The SIGTERM handler is installed right after this line is logged.
  await until('the "gateway listening" log line', () => (stderr.includes('"msg":"gateway listening"') ? true : undefined));

  // N requests, alternating stream and non-stream, all held at the upstream until after SIGTERM.
  const requests: Promise<Outcome>[] = [];
  for (let i = 0; i < N; i++) {
    const stream = i % 2 === 0;
    requests.push(
      fetch(`${url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'gpt-4o', stream, user: `u${i}`, messages: [{ role: 'user', content: `request ${i}` }] }),
      }).then(async (res) => ({ status: res.status, text: await res.text() })),
    );
  }
  // Keep unhandled rejections from ending the run before the assertions below report them.
  for (const r of requests) r.catch(() => undefined);
  await until(`${N} requests at the upstream`, () => (proxy.arrivals === N ? true : undefined));

  assert.ok(proc.kill('SIGTERM'));
  // The log line is written synchronously right before the gateway stops accepting: after it, nothing new gets in.
  await until('the "shutting down" log line', () => (stderr.includes('"msg":"shutting down"') ? true : undefined));
  assert.match(stderr, new RegExp(`"inFlight":${N}\\b`), 'every request is in flight at SIGTERM');

  const late = await probe(url);
  if ('status' in late) {
    assert.equal(late.status, 503, `a request after SIGTERM must be refused, got ${late.status}: ${late.body}`);
    const body = JSON.parse(late.body) as { error: { code: string } };
    assert.equal(body.error.code, 'server_shutting_down');
  } else {
    assert.ok(['ECONNREFUSED', 'ECONNRESET', 'socket hang up'].includes(late.error), `unexpected socket error ${late.error}`);
  }
  assert.equal(proxy.arrivals, N, 'the refused request never reached the upstream');

  proxy.release();
  const outcomes = await Promise.all(requests);
  outcomes.forEach((outcome, i) => {
    assert.equal(outcome.status, 200, `request ${i}: ${outcome.text}`);
    if (i % 2 === 0) {
      assert.ok(outcome.text.endsWith('data: [DONE]\n\n'), `stream ${i} ends with [DONE]`);
      assert.equal(contentOf(outcome.text), PIECES.join(''));
    } else {
      const body = JSON.parse(outcome.text) as { choices: { message: { content: string } }[] };
      assert.equal(body.choices[0]?.message.content, `done u${i}`);
    }
  });

  const exit = await Promise.race([
    exited,
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`the gateway did not exit:\n${stderr}`)), 30_000).unref()),
  ]);
  assert.deepEqual(exit, { code: 0, signal: null }, stderr);

  const records = await readUsageFile(dbPath);
  assert.equal(records.length, N);
  assert.equal(records.filter((r) => r.stream).length, N / 2);
  for (const r of records) {
    assert.deepEqual(
      [r.status, r.errorCode, r.aborted, r.channel, r.keyName, r.promptTokens, r.completionTokens, r.cachedTokens, r.reasoningTokens],
      [200, null, false, 'up', 'tester', DEFAULT_USAGE.prompt, DEFAULT_USAGE.completion, DEFAULT_USAGE.cached, DEFAULT_USAGE.reasoning],
    );
  }
  assert.equal(new Set(records.map((r) => r.requestId)).size, N);
});
