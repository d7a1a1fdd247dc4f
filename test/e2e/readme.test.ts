// The README's promises: `npm start` serves the shipped gateway.yaml, and every curl example in it and in the docs it
// links for more (docs/api.md, docs/assets-and-video.md) works.

import assert from 'node:assert/strict';
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import { PNG } from 'pngjs';
import { freePort } from '../helpers/cli-process.js';
import { until } from '../helpers/poll.js';
import { REPO_ROOT } from '../helpers/repo-root.js';

const run = promisify(execFile);
const ROOT = `${REPO_ROOT}/`;
let child: ChildProcess;
let port = 0;
let output = '';

/** The README and the docs it sends a reader on to for more examples, in reading order (assets before the video that links one). */
const EXAMPLE_FILES = ['README.md', 'docs/api.md', 'docs/assets-and-video.md'];

/** The sh code blocks of those files whose command is curl. */
function curlExamples(): string[] {
  return EXAMPLE_FILES.flatMap((file) =>
    [...readFileSync(new URL(file, `file://${ROOT}`), 'utf8').matchAll(/```sh\n([\s\S]*?)```/g)]
      .map((m) => (m[1] ?? '').trim())
      .filter((block) => block.startsWith('curl ')),
  );
}

before(async () => {
  port = await freePort();
  // `npm start` is the README's run command (after `npm ci`); detached so the whole group can be stopped. Under
  // `npm test`, which has built dist/ already, without its prestart build (a build here would rewrite dist/ under
  // the other test files' feet; test/architecture/build-script.test.ts checks that prestart is that build).
  const args = process.env['GATEWAY_TEST_BUILT'] === '1' ? ['start', '--silent', '--ignore-scripts'] : ['start', '--silent'];
  child = spawn('npm', args, { cwd: ROOT, env: { ...process.env, PORT: String(port) }, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  await until(
    'npm start serving /healthz',
    async () => {
      if (child.exitCode !== null) throw new Error(`npm start exited:\n${output}`);
      return (await fetch(`http://127.0.0.1:${port}/healthz`).then((res) => res.ok, () => false)) ? true : undefined;
    },
    { timeoutMs: 120_000, intervalMs: 50 },
  ).catch((err: unknown) => {
    throw new Error(`npm start did not come up: ${String(err)}\n${output}`);
  });
});

after(async () => {
  if (child.pid !== undefined && child.exitCode === null) {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    process.kill(-child.pid, 'SIGTERM');
    await exited;
  }
});

test('the README and its docs have the plain, streaming, Anthropic, models, image, asset library and video curl examples', () => {
  const examples = curlExamples();
  assert.equal(examples.length, 14, examples.join('\n---\n'));
  assert.equal(examples.filter((e) => e.includes('/v1/images/')).length, 3);
  assert.equal(examples.filter((e) => e.includes('/v1/videogen/asset/')).length, 4);
  assert.equal(examples.filter((e) => e.includes('/v1/video/generations') || e.includes('/v1/videos/')).length, 3);
});

/** The ids the README's asset examples show, which a reader replaces with those of the answers before them. */
const SHOWN_GROUP = 'group-20261126120000-a1b2c';
const SHOWN_ASSET = 'asset-20261126120000-d3e4f';
const SHOWN_TASK = 'task_Q2FzdGxlMjAyNjExMjc0';

/** Runs `command` until `done` says its output is what the README's reader waits for (an asset Active, a video made). */
async function runUntil(command: string, done: (stdout: string) => boolean): Promise<string> {
  let last = '';
  return until(
    `${command}\nto give what was waited for`,
    async () => {
      last = (await run('sh', ['-c', command], { cwd: ROOT })).stdout;
      return done(last) ? last : undefined;
    },
    { timeoutMs: 15_000, intervalMs: 50 },
  ).catch((err: unknown) => {
    throw new Error(`${String(err)}; last: ${last}`);
  });
}

/** The size a README image example asks for. */
function sizeAsked(command: string): number {
  return Number(/"size":"(\d+)x\1"|size=(\d+)x\2/.exec(command)?.slice(1).find((v) => v !== undefined));
}

/** A PNG that decodes, of the size asked for. */
function assertPng(bytes: Buffer, size: number, command: string): void {
  const png = PNG.sync.read(bytes);
  assert.deepEqual([png.width, png.height], [size, size], command);
}

test('every README and docs curl example works against `npm start` with the shipped config', async () => {
  // The asset examples follow one another: each uses the id the one before answered, as the README says to.
  const made = new Map<string, string>();
  for (const example of curlExamples()) {
    let command = example.replaceAll('127.0.0.1:8080', `127.0.0.1:${port}`);
    for (const [shown, real] of made) command = command.replaceAll(shown, real);
    if (command.includes('/v1/video/generations') || command.includes('/v1/videos/')) {
      if (command.includes('-d ')) {
        // The asset it links to turns Active two seconds after it was registered: until then the gateway says "not ready".
        const stdout = await runUntil(command, (out) => !out.includes('asset_not_ready'));
        const task = JSON.parse(stdout) as { id: string; task_id: string; status: string; error: unknown };
        assert.match(task.id, /^task_/, stdout);
        assert.equal(task.task_id, task.id);
        assert.equal(task.status, 'queued', stdout);
        made.set(SHOWN_TASK, task.id);
      } else if (command.includes('/content')) {
        const dir = mkdtempSync(join(tmpdir(), 'readme-video-'));
        const file = join(dir, 'video.mp4');
        await run('sh', ['-c', `${command.replace('-o video.mp4', `-o ${file}`)} --fail-with-body`], { cwd: ROOT });
        const bytes = readFileSync(file);
        rmSync(dir, { recursive: true, force: true });
        assert.equal(bytes.subarray(4, 8).toString('latin1'), 'ftyp', 'an MP4');
        assert.ok(bytes.length > 1000);
      } else {
        const stdout = await runUntil(`${command} --fail-with-body`, (out) => (JSON.parse(out) as { status: string }).status !== 'queued' && (JSON.parse(out) as { status: string }).status !== 'in_progress');
        const task = JSON.parse(stdout) as { status: string; video_url: string };
        assert.equal(task.status, 'completed', stdout);
        assert.equal(task.video_url, `/v1/videos/${made.get(SHOWN_TASK) ?? ''}/content`);
      }
      continue;
    }
    const { stdout } = await run('sh', ['-c', `${command} --fail-with-body`], { cwd: ROOT });
    if (command.includes('/v1/videogen/asset/')) {
      const body = JSON.parse(stdout) as { ResponseMetadata: { RequestId: string; Action: string; Error?: unknown }; Result: Record<string, unknown> };
      assert.equal(body.ResponseMetadata.Error, undefined, stdout);
      assert.match(body.ResponseMetadata.RequestId, /^req_/);
      const action = body.ResponseMetadata.Action;
      if (action === 'CreateAssetGroup') made.set(SHOWN_GROUP, String(body.Result['Id']));
      if (action === 'CreateAsset') made.set(SHOWN_ASSET, String(body.Result['Id']));
      if (action === 'GetAsset') {
        assert.equal(body.Result['Id'], made.get(SHOWN_ASSET));
        assert.equal(body.Result['GroupId'], made.get(SHOWN_GROUP));
        assert.equal(body.Result['AssetType'], 'Image');
      }
      if (action === 'ListAssets') {
        const ids = (body.Result['Items'] as { Id: string }[]).map((item) => item.Id);
        assert.ok(ids.includes(made.get(SHOWN_ASSET) ?? ''), stdout);
      }
      continue;
    }
    if (command.includes('/v1/images/')) {
      const body = JSON.parse(stdout) as { data: { b64_json?: string; url?: string }[] };
      assert.equal(body.data.length, 1, stdout.slice(0, 200));
      const [image] = body.data;
      if (image?.url !== undefined) {
        // The url variant: a link the gateway itself serves.
        const res = await fetch(image.url.replace('127.0.0.1:8080', `127.0.0.1:${port}`));
        assert.equal(res.headers.get('content-type'), 'image/png');
        assertPng(Buffer.from(await res.arrayBuffer()), sizeAsked(command), command);
      } else {
        assertPng(Buffer.from(image?.b64_json ?? '', 'base64'), sizeAsked(command), command);
      }
    } else if (command.includes('"stream":true')) {
      assert.match(stdout, /^data: \{/, command);
      assert.ok(stdout.trimEnd().endsWith('data: [DONE]'), stdout);
      assert.match(stdout, /"usage":\{"prompt_tokens":\d+/);
      const text = stdout
        .split('\n')
        .filter((line) => line.startsWith('data: {'))
        .map((line) => (JSON.parse(line.slice(6)) as { choices: { delta?: { content?: string } }[] }).choices[0]?.delta?.content ?? '')
        .join('');
      assert.equal(text, 'Hello from the mock channel! You said: "Hello!"');
    } else if (command.includes('/v1/messages')) {
      const body = JSON.parse(stdout) as { type: string; content: { type: string; text: string }[]; usage: { input_tokens: number; output_tokens: number } };
      assert.equal(body.type, 'message');
      assert.deepEqual(body.content, [{ type: 'text', text: 'Hello from the mock channel! You said: "Hello!"' }]);
      assert.ok(body.usage.input_tokens > 0 && body.usage.output_tokens > 0, stdout);
    } else if (command.includes('/v1/models')) {
      const body = JSON.parse(stdout) as { object: string; data: { id: string }[] };
      assert.equal(body.object, 'list');
      assert.ok(body.data.some((m) => m.id === 'demo-chat'), stdout);
    } else {
      const body = JSON.parse(stdout) as { choices: { message: { content: string } }[]; usage: { total_tokens: number } };
      assert.equal(body.choices[0]?.message.content, 'Hello from the mock channel! You said: "Hello!"');
      assert.ok(body.usage.total_tokens > 0);
    }
  }
});
