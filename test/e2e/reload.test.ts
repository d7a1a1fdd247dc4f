// Config reloads: reload() swaps channels without touching in-flight streams, rejects bad configs, the file
// watcher and SIGHUP trigger it; `config check` names the bad field, file and line.

import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import pino from 'pino';
import { postChat, streamedContent } from '../helpers/chat-requests.js';
import { cliEnv, freePort, killIfRunning, runCli, spawnCli, waitForLog } from '../helpers/cli-process.js';
import { FakeOpenAI } from '../helpers/fake-openai.js';
import { channel, configWith, startGatewayUnderTest, type GatewayUnderTest, type GatewayUnderTestOptions } from '../helpers/gateway-under-test.js';
import { until } from '../helpers/poll.js';

const PIECES = ['al', 'pha ', 'is ', 'still ', 'stream', 'ing ', 'to ', 'the ', 'end', '.'];
const POLL = { timeoutMs: 15_000, intervalMs: 50 };

let a: FakeOpenAI;
let b: FakeOpenAI;
let dir: string;
const gateways: GatewayUnderTest[] = [];
const children: ChildProcess[] = [];

before(async () => {
  a = await new FakeOpenAI('a').start();
  b = await new FakeOpenAI('b').start();
  a.reply = (req) => (req.body['stream'] === true ? { kind: 'stream', pieces: PIECES, delayMs: 120 } : { kind: 'completion' });
  dir = await mkdtemp(join(tmpdir(), 'gw-reload-'));
});

after(async () => {
  for (const child of children) killIfRunning(child);
  for (const gw of gateways) await gw.stop();
  await a.close();
  await b.close();
  await rm(dir, { recursive: true, force: true });
});

async function start(yaml: string, options: GatewayUnderTestOptions = {}): Promise<GatewayUnderTest> {
  const gw = await startGatewayUnderTest(yaml, options);
  gateways.push(gw);
  return gw;
}

function chat(url: string, stream = false): Promise<Response> {
  return postChat(url, { model: 'gpt-4o', stream, messages: [{ role: 'user', content: 'hi' }] });
}

async function replyText(url: string): Promise<string> {
  const res = await chat(url);
  const body = (await res.json()) as { choices?: { message: { content: string } }[]; error?: unknown };
  assert.equal(res.status, 200, JSON.stringify(body));
  return body.choices?.[0]?.message.content ?? '';
}

describe('in-process reload', () => {
  test('a stream started before a reload finishes on the old channel; new requests use the new one', async () => {
    const gw = await start(configWith(channel('main', a.url)));
    const aBefore = a.requests.length;
    const bBefore = b.requests.length;
    const closedEarly = a.closedEarly;

    const res = await chat(gw.url, true); // resolves once the stream's headers are here: it is in flight
    assert.equal(res.status, 200);
    const streamed = res.text();
    assert.equal(a.requests.length, aBefore + 1);

    // Same channel name and model, another upstream.
    await gw.writeConfig(configWith(channel('main', b.url)));
    assert.equal(await gw.gateway.reload(), true);
    assert.equal(await replyText(gw.url), 'reply from b');
    assert.equal(b.requests.length, bBefore + 1);

    const text = await streamed;
    assert.equal(streamedContent(text), PIECES.join(''), 'the old channel streamed its full content');
    assert.ok(text.endsWith('data: [DONE]\n\n'));
    assert.equal(a.requests.length, aBefore + 1, 'nothing else went to the old upstream');
    assert.equal(a.closedEarly, closedEarly, 'the reload did not cut the old stream');

    const records = await gw.usage();
    assert.deepEqual(records.map((r) => [r.stream, r.status, r.aborted]).sort(), [[false, 200, false], [true, 200, false]]);
  });

  test('an invalid config is rejected and the old channels stay in force', async () => {
    const gw = await start(configWith(channel('main', a.url)));
    assert.equal(await replyText(gw.url), 'reply from a');

    await gw.writeConfig(configWith(channel('main', 'not a url')));
    assert.equal(await gw.gateway.reload(), false);
    await gw.writeConfig(configWith(channel('main', b.url)).replace('group: pro', 'group: no-such-group'));
    assert.equal(await gw.gateway.reload(), false);

    const bBefore = b.requests.length;
    assert.equal(await replyText(gw.url), 'reply from a');
    assert.equal(b.requests.length, bBefore);

    const metrics = await (await fetch(`${gw.url}/metrics`)).text();
    assert.match(metrics, /^gateway_config_reloads_total\{result="rejected"\} 2$/m);
    assert.doesNotMatch(metrics, /result="ok"\} [1-9]/);
  });

  test('log.level applies on reload and its removal restores the start level; shutdown_grace_ms needs no restart', async () => {
    const lines: string[] = [];
    const logger = pino({ level: 'info' }, new Writable({ write: (chunk: Buffer, _e, done) => done(void lines.push(chunk.toString())) }));
    const gw = await start(configWith(channel('main', a.url), 'log:\n  level: debug\n'), { logger });
    assert.equal(logger.level, 'debug');
    await gw.writeConfig(configWith(channel('main', a.url)).replace('shutdown_grace_ms: 5000', 'shutdown_grace_ms: 1000'));
    assert.equal(await gw.gateway.reload(), true);
    assert.equal(logger.level, 'info', 'the level the gateway started with');
    assert.equal(gw.gateway.runtime.current.config.server.shutdownGraceMs, 1000);
    assert.ok(lines.some((l) => l.includes('config reloaded')));
    assert.ok(!lines.some((l) => l.includes('after a restart')), lines.join(''));
  });

  test('the file watcher reloads a changed config', async () => {
    const gw = await start(configWith(channel('main', a.url)), { watch: true });
    assert.equal(await replyText(gw.url), 'reply from a');

    await gw.writeConfig(configWith(channel('main', b.url)));
    await until('requests to reach upstream b', async () => ((await replyText(gw.url)) === 'reply from b' ? true : undefined), POLL);

    // A broken edit, saved the way editors do (write a temp file, rename it over): the last good config stays.
    const rejected = async (): Promise<number> => {
      const text = await (await fetch(`${gw.url}/metrics`)).text();
      return Number(/^gateway_config_reloads_total\{result="rejected"\} (\d+)$/m.exec(text)?.[1] ?? 0);
    };
    const baseline = await rejected();
    const tmp = join(gw.dir, 'gateway.yaml.tmp');
    await writeFile(tmp, configWith(channel('main', 'not a url')).replace('sqlite:./gateway.db', `sqlite:${join(gw.dir, 'gateway.db')}`));
    await rename(tmp, gw.configPath);
    await until('the watcher to reject the edit', async () => ((await rejected()) > baseline ? true : undefined), POLL);
    assert.equal(await replyText(gw.url), 'reply from b');
  });
});

// ---- the CLI process ----

const BAD_URL = `server:
  host: 127.0.0.1
channels:
  - name: main
    type: openai
    base_url: "htp:/nowhere"
    keys: ["sk-upstream-main"]
    models: ["gpt-*"]
`;

describe('the CLI', () => {
  test('config check names the bad field with its file and line, and exits 1', async () => {
    const file = join(dir, 'bad.yaml');
    await writeFile(file, BAD_URL);
    const result = await runCli(['config', 'check', '--config', file]);
    assert.equal(result.code, 1, result.stderr);
    assert.match(result.stderr, /^ {2}channels\[0\]\.base_url: must be a URL \(bad\.yaml:6\)$/m);
    assert.equal(result.stdout, '');
  });

  test('config check names a missing environment variable', async () => {
    const file = join(dir, 'env.yaml');
    await writeFile(
      file,
      `channels:
  - name: main
    type: openai
    base_url: https://api.example.com
    keys: ["\${GW_RELOAD_TEST_UNSET_VAR}"]
    models: ["gpt-*"]
`,
    );
    const result = await runCli(['config', 'check', '--config', file]);
    assert.equal(result.code, 1, result.stderr);
    assert.match(result.stderr, /channels\[0\]\.keys\[0\]: environment variable GW_RELOAD_TEST_UNSET_VAR is not set \(env\.yaml:5\)/);

    const ok = await runCli(['config', 'check', '--config', file], cliEnv({ GW_RELOAD_TEST_UNSET_VAR: 'sk-from-env-0123456789' }));
    assert.equal(ok.code, 0, ok.stderr);
    assert.match(ok.stdout, /env\.yaml: ok \(1 channels, 0 groups, 0 keys\)/);
    assert.ok(!ok.stdout.includes('sk-from-env') && !ok.stderr.includes('sk-from-env'));
  });

  test('SIGHUP reloads the config of a running gateway; a bad file is rejected', async () => {
    const port = await freePort();
    const configPath = join(dir, 'hup.yaml');
    const write = (url: string): Promise<void> =>
      writeFile(configPath, configWith(channel('main', url)).replace('sqlite:./gateway.db', `sqlite:${join(dir, 'hup.db')}`));
    await write(a.url);
    const cli = spawnCli(['serve', '--config', configPath], cliEnv({ PORT: String(port), LOG_LEVEL: 'info' }));
    const { proc, output, exited } = cli;
    children.push(proc);
    // The signal handlers are installed right after this line is logged.
    await waitForLog(cli, 'gateway listening', { ...POLL, timeoutMs: 30_000 });
    const url = `http://127.0.0.1:${port}`;
    assert.equal(await replyText(url), 'reply from a');

    await write(b.url);
    assert.ok(proc.kill('SIGHUP'));
    await until('the reload to apply', async () => ((await replyText(url)) === 'reply from b' ? true : undefined), POLL);
    assert.match(output.stderr, /"msg":"config reloaded"/);

    await write('not a url');
    assert.ok(proc.kill('SIGHUP'));
    // Wait for this file's own rejection: a watcher event during an earlier non-atomic write may have logged one.
    await until('the bad file to be rejected', () => (/must be a URL/.test(output.stderr) ? true : undefined), POLL);
    assert.match(output.stderr, /"msg":"config rejected; the previous config stays in force"/);
    assert.match(output.stderr, /channels\[0\]\.base_url: must be a URL \(hup\.yaml:\d+\)/);
    assert.equal(await replyText(url), 'reply from b');
    assert.equal(proc.exitCode, null, 'SIGHUP does not stop the gateway');

    assert.ok(proc.kill('SIGTERM'));
    assert.equal((await exited).code, 0, output.stderr);
  });
});
