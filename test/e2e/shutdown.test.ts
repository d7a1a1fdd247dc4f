// Graceful shutdown of the real CLI process: SIGTERM lets every in-flight request finish, refuses new ones,
// writes every usage record to SQLite and exits 0.

import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { postChat, streamedContent } from '../helpers/chat-requests.js';
import { cliEnv, freePort, killIfRunning, spawnCli, waitForLog } from '../helpers/cli-process.js';
import { DEFAULT_USAGE, FakeOpenAI } from '../helpers/fake-openai.js';
import { TEST_KEY, readUsageFile } from '../helpers/gateway-under-test.js';
import { LoopbackHttpServer } from '../helpers/loopback-http-server.js';
import { until, withDeadline } from '../helpers/poll.js';

const N = 12;
const PIECES = ['one ', 'two ', 'three ', 'four ', 'five ', 'six ', 'seven ', 'eight ', 'nine ', 'ten'];
const POLL = { timeoutMs: 20_000, intervalMs: 25 };

/**
 * Sits between the gateway and the fake upstream: counts arrivals and holds every request until `release()`,
 * so all of them are provably in flight in the gateway when SIGTERM arrives.
 */
class HoldingProxy extends LoopbackHttpServer {
  arrivals = 0;
  private releaseAll!: () => void;
  private readonly released = new Promise<void>((resolve) => (this.releaseAll = resolve));

  constructor(private readonly target: string) {
    super();
  }

  release(): void {
    this.releaseAll();
  }

  override async close(): Promise<void> {
    this.release();
    await super.close();
  }

  protected override async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
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

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'gw-shutdown-'));
  upstream = await new FakeOpenAI('slow').start();
  upstream.reply = (req) =>
    req.body['stream'] === true ? { kind: 'stream', pieces: PIECES, delayMs: 100 } : { kind: 'completion', text: `done ${String(req.body['user'])}` };
  proxy = await new HoldingProxy(upstream.url).start();
});

after(async () => {
  killIfRunning(child);
  await proxy.close();
  await upstream.close();
  await rm(dir, { recursive: true, force: true });
});

interface Outcome {
  readonly status: number;
  readonly text: string;
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

test('SIGTERM drains every in-flight request, refuses new ones, ignores a repeated signal, flushes usage and exits 0', async () => {
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
    models_refresh_ms: 0 # no model list read: the proxy counts and holds every request
groups:
  pro:
    models: ["*"]
keys:
  - name: tester
    key: ${TEST_KEY}
    group: pro
`,
  );
  const cli = spawnCli(['serve', '--config', configPath], cliEnv({ PORT: String(port), LOG_LEVEL: 'info' }));
  const { proc, output, exited } = cli;
  child = proc;
  const url = `http://127.0.0.1:${port}`;

  await until(
    'GET /healthz',
    async () => {
      if (proc.exitCode !== null) throw new Error(`the gateway exited early (${proc.exitCode}):\n${output.stderr}`);
      const res = await fetch(`${url}/healthz`).catch(() => null);
      return res?.status === 200 ? true : undefined;
    },
    POLL,
  );
  // The SIGTERM handler is installed right after this line is logged.
  await waitForLog(cli, 'gateway listening', POLL);

  // N requests, alternating stream and non-stream, all held at the upstream until after SIGTERM.
  const requests: Promise<Outcome>[] = [];
  for (let i = 0; i < N; i++) {
    const stream = i % 2 === 0;
    requests.push(
      postChat(url, { model: 'gpt-4o', stream, user: `u${i}`, messages: [{ role: 'user', content: `request ${i}` }] }).then(async (res) => ({
        status: res.status,
        text: await res.text(),
      })),
    );
  }
  // Keep unhandled rejections from ending the run before the assertions below report them.
  for (const r of requests) r.catch(() => undefined);
  await until(`${N} requests at the upstream`, () => (proxy.arrivals === N ? true : undefined), POLL);

  assert.ok(proc.kill('SIGTERM'));
  // The log line is written synchronously right before the gateway stops accepting: after it, nothing new gets in.
  await waitForLog(cli, 'shutting down', POLL);
  assert.match(output.stderr, new RegExp(`"inFlight":${N}\\b`), 'every request is in flight at SIGTERM');

  const late = await probe(url);
  if ('status' in late) {
    assert.equal(late.status, 503, `a request after SIGTERM must be refused, got ${late.status}: ${late.body}`);
    const body = JSON.parse(late.body) as { error: { code: string } };
    assert.equal(body.error.code, 'server_shutting_down');
  } else {
    assert.ok(['ECONNREFUSED', 'ECONNRESET', 'socket hang up'].includes(late.error), `unexpected socket error ${late.error}`);
  }
  assert.equal(proxy.arrivals, N, 'the refused request never reached the upstream');

  // A second signal while draining (Ctrl-C under `npm start` comes from the terminal and again from npm) must
  // neither kill the process nor cut the drain short.
  assert.ok(proc.kill('SIGINT'));
  assert.ok(proc.kill('SIGTERM'));
  await until('both repeated signals logged', () => (output.stderr.split('"already shutting down"').length === 3 ? true : undefined), POLL);

  proxy.release();
  const outcomes = await Promise.all(requests);
  outcomes.forEach((outcome, i) => {
    assert.equal(outcome.status, 200, `request ${i}: ${outcome.text}`);
    if (i % 2 === 0) {
      assert.ok(outcome.text.endsWith('data: [DONE]\n\n'), `stream ${i} ends with [DONE]`);
      assert.equal(streamedContent(outcome.text), PIECES.join(''));
    } else {
      const body = JSON.parse(outcome.text) as { choices: { message: { content: string } }[] };
      assert.equal(body.choices[0]?.message.content, `done u${i}`);
    }
  });

  const exit = await withDeadline(exited, 30_000, 'the gateway exits').catch((err: unknown) => assert.fail(`${String(err)}\n${output.stderr}`));
  assert.deepEqual(exit, { code: 0, signal: null }, output.stderr);

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
