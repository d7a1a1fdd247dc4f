// What a caller costs before its key is known, and how long a body may take, on a gateway run as its own process
// (its memory is measured from outside): a request without a valid key is answered 401 from its headers and its
// body never read; a body that stalls is answered 408 after server.body_timeout_ms; bodies being read at once are
// capped by server.max_inflight_body_bytes (503).

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { freePort, killIfRunning, spawnCli, waitForLog, type CliProcess } from '../helpers/cli-process.js';
import { until, withDeadline } from '../helpers/poll.js';
import { openRaw, parseAnswer, writeBody } from '../helpers/raw-http.js';

const KEY = 'sk-intake-0123456789abcdefgh';
const ANNOUNCED = 31_457_280;
const BODY_TIMEOUT_MS = 3000;
/** The smallest cap the config takes: the body limit (32 MiB). */
const INFLIGHT_CAP = 33_554_432;

let dir: string;
let cli: CliProcess;
let url: string;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'gw-intake-'));
  const port = await freePort();
  url = `http://127.0.0.1:${port}`;
  await writeFile(
    join(dir, 'gateway.yaml'),
    `server:
  port: ${port}
  host: 127.0.0.1
  body_timeout_ms: ${BODY_TIMEOUT_MS}
  max_inflight_body_bytes: ${INFLIGHT_CAP}
store:
  url: sqlite:${join(dir, 'gateway.db')}
channels:
  - name: demo
    type: mock
    models: ["demo-*"]
    mock: { reply: "ok" }
groups:
  default:
    models: ["demo-*"]
keys:
  - name: intake
    key: ${KEY}
    group: default
`,
  );
  cli = spawnCli(['serve', '--config', join(dir, 'gateway.yaml')]);
  await waitForLog(cli, 'gateway listening', { timeoutMs: 30_000, intervalMs: 50 });
});

after(async () => {
  killIfRunning(cli.proc);
  await cli.exited;
  await rm(dir, { recursive: true, force: true });
});

function rssBytes(pid: number): number {
  const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return Number(kb) * 1024;
}

function head(path: string, headers: Record<string, string | number>): string {
  const lines = [`POST ${path} HTTP/1.1`, 'Host: 127.0.0.1', 'Content-Type: application/json'];
  for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
  return `${lines.join('\r\n')}\r\n\r\n`;
}

const chatBody = (text: string): string => JSON.stringify({ model: 'demo-chat', messages: [{ role: 'user', content: text }] });

test('16 sockets without a key announcing 30 MB bodies get 401 before sending them; memory stays flat', async () => {
  const pid = cli.proc.pid as number;
  // Everything a request touches is loaded before the first measurement.
  const warm = await openRaw(url, `${head('/v1/chat/completions', { Authorization: `Bearer ${KEY}`, 'Content-Length': chatBody('hi').length, Connection: 'close' })}${chatBody('hi')}`);
  assert.equal(parseAnswer(await warm.closed).status, 200);
  const rssBefore = rssBytes(pid);

  const sockets = await Promise.all(
    Array.from({ length: 16 }, () => openRaw(url, head('/v1/chat/completions', { 'Content-Length': ANNOUNCED }))),
  );
  // What each had written when the answer reached it: the answer comes from the headers, not after the body.
  const writtenAtAnswer = sockets.map(() => -1);
  for (const [i, s] of sockets.entries()) s.socket.once('data', () => (writtenAtAnswer[i] = s.socket.bytesWritten));
  // Each sends all but one byte of what it announced, as fast as the gateway takes it (while the gateway lingers,
  // for a bounded time after its answer, what comes is read and dropped).
  const sent = await withDeadline(
    Promise.all(sockets.map((s) => writeBody(s.socket, ANNOUNCED - 1))),
    30_000,
    'the writers stop',
  );
  const answers = await withDeadline(Promise.all(sockets.map((s) => s.closed)), 10_000, 'the gateway closes every connection');
  for (const [i, text] of answers.entries()) {
    const answer = parseAnswer(text);
    assert.equal(answer.status, 401, `socket ${i}: ${JSON.stringify(text.slice(0, 200))} after ${sent[i]} bytes; ${cli.output.stderr}`);
    assert.equal((answer.body['error'] as Record<string, unknown>)['code'], 'invalid_api_key');
    assert.match(answer.headers, /connection: close/i);
    const atAnswer = writtenAtAnswer[i] as number;
    assert.ok(atAnswer >= 0 && atAnswer < ANNOUNCED - 1, `socket ${i}: the answer came after ${atAnswer} bytes were written (${sent[i]} in all)`);
  }
  const grown = rssBytes(pid) - rssBefore;
  assert.ok(grown < 50 * 1024 * 1024, `RSS grew by ${(grown / 1048576).toFixed(1)} MB`);
});

test('Expect: 100-continue: a request without a key is refused without being asked for its body; a keyed one is', async () => {
  const refused = await openRaw(url, head('/v1/chat/completions', { 'Content-Length': ANNOUNCED, Expect: '100-continue' }));
  const text = await withDeadline(refused.closed, 5_000, 'the 401');
  assert.equal(parseAnswer(text).status, 401);
  assert.ok(!text.includes('100 Continue'));

  const body = chatBody('go on');
  const admitted = await openRaw(url, head('/v1/chat/completions', { Authorization: `Bearer ${KEY}`, 'Content-Length': body.length, Expect: '100-continue' }));
  await withDeadline(admitted.waitFor('HTTP/1.1 100 Continue\r\n\r\n'), 5_000, 'the go-ahead');
  admitted.socket.write(body);
  const answer = await withDeadline(admitted.waitFor('"object":"chat.completion"'), 5_000, 'the answer');
  assert.match(answer, /HTTP\/1\.1 200 OK/);
  admitted.socket.destroy();
});

test('a body that stalls is answered 408 in the route\'s shape after server.body_timeout_ms, and the connection closed', async () => {
  for (const [path, auth, check] of [
    ['/v1/chat/completions', { Authorization: `Bearer ${KEY}` }, (b: Record<string, unknown>) => (b['error'] as Record<string, unknown>)['code'] === 'request_timeout'],
    ['/v1/messages', { 'x-api-key': KEY, 'anthropic-version': '2023-06-01' }, (b: Record<string, unknown>) => b['type'] === 'error'],
  ] as const) {
    const startedAt = Date.now();
    const exchange = await openRaw(url, `${head(path, Object.assign({ 'Content-Length': 1000 }, auth))}{"model":"demo-chat",`);
    const text = await withDeadline(exchange.closed, BODY_TIMEOUT_MS + 5_000, `the 408 on ${path}`);
    const elapsed = Date.now() - startedAt;
    const answer = parseAnswer(text);
    assert.equal(answer.status, 408, text);
    assert.ok(check(answer.body), `${path}: ${text}`);
    assert.ok(elapsed >= BODY_TIMEOUT_MS - 50, `not before the timeout (${elapsed} ms)`);
  }
});

test('bodies being read at once are capped: one that would not fit is answered 503 at once; the first still completes', async () => {
  const first = chatBody('x'.repeat(20_000_000));
  const slow = await openRaw(url, head('/v1/chat/completions', { Authorization: `Bearer ${KEY}`, 'Content-Length': Buffer.byteLength(first) }));
  const firstBytes = Buffer.from(first);
  slow.socket.write(firstBytes.subarray(0, 18_000_000));
  const second = chatBody('y'.repeat(16_000_000));
  // The first body's bytes count once the gateway has read them: ask until they do (a second body admitted before
  // that is simply dropped: it never sends its body).
  const answer = await until(
    'a second body to be refused',
    async () => {
      const other = await openRaw(url, `${head('/v1/chat/completions', { Authorization: `Bearer ${KEY}`, 'Content-Length': Buffer.byteLength(second) })}`);
      // A refusal comes at once; one not seen within 50 ms is asked again (the outer poll), as an admitted one is.
      const early = parseAnswer(await Promise.race([other.closed, new Promise<string>((r) => setTimeout(() => r(other.received()), 50))]));
      other.socket.destroy();
      return early.status === 503 ? early : undefined;
    },
    { timeoutMs: BODY_TIMEOUT_MS - 500, intervalMs: 20 },
  );
  assert.equal(answer.status, 503);
  assert.equal((answer.body['error'] as Record<string, unknown>)['code'], 'server_busy');
  assert.match(answer.headers, /retry-after: 1/i);
  slow.socket.write(firstBytes.subarray(18_000_000));
  const done = await withDeadline(slow.waitFor('"object":"chat.completion"'), 10_000, 'the first answer');
  assert.match(done, /HTTP\/1\.1 200 OK/);
  slow.socket.destroy();
});
