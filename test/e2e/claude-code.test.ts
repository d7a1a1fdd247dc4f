// The real Claude Code CLI (`claude -p`) against the gateway, with a fake Anthropic upstream: a prompt, and a
// Bash tool round trip (two upstream calls), once with ANTHROPIC_API_KEY and once with ANTHROPIC_AUTH_TOKEN.

import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { DEFAULT_ANTHROPIC_USAGE, FakeAnthropic, anthropicChannel, type FakeAnthropicReply, type RecordedAnthropicRequest } from '../helpers/fake-anthropic.js';
import { runAgentCli, type AgentRun } from '../helpers/agent-cli.js';
import { TEST_KEY, configWith, startGatewayUnderTest, type GatewayUnderTest } from '../helpers/gateway-under-test.js';
import { REPO_ROOT } from '../helpers/repo-root.js';

const CLAUDE = join(REPO_ROOT, 'node_modules/.bin/claude');
const TOOL_OUTPUT = 'tool-said-hi-42';

/** `claude -p <prompt>` in an empty home and working directory, with only the offline settings of clients.md. */
async function runClaude(gatewayUrl: string, auth: 'ANTHROPIC_API_KEY' | 'ANTHROPIC_AUTH_TOKEN', args: readonly string[]): Promise<AgentRun> {
  const home = await mkdtemp(join(tmpdir(), 'gw-claude-'));
  try {
    // A clean environment: no ANTHROPIC_* of the machine running the tests may leak in.
    const env: NodeJS.ProcessEnv = {
      PATH: process.env['PATH'] ?? '/usr/bin:/bin',
      HOME: home,
      ANTHROPIC_BASE_URL: gatewayUrl,
      [auth]: TEST_KEY,
      DISABLE_TELEMETRY: '1',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      DISABLE_AUTOUPDATER: '1',
    };
    return await runAgentCli(CLAUDE, ['-p', ...args], env, home);
  } finally {
    await rm(home, { recursive: true, force: true });
  }
}

function toolResultText(req: RecordedAnthropicRequest): string | null {
  const messages = Array.isArray(req.body['messages']) ? (req.body['messages'] as unknown[]) : [];
  for (const message of messages) {
    const content = (message as { content?: unknown }).content;
    if (!Array.isArray(content)) continue;
    for (const block of content as { type?: unknown; content?: unknown }[]) {
      if (block.type === 'tool_result') return JSON.stringify(block.content);
    }
  }
  return null;
}

/** Like the real model: a tool call when asked to run one, then an answer that quotes the tool's output. */
function scriptedReply(req: RecordedAnthropicRequest): FakeAnthropicReply {
  const stream = req.body['stream'] === true;
  const result = toolResultText(req);
  if (result !== null) {
    const seen = result.includes(TOOL_OUTPUT) ? TOOL_OUTPUT : 'nothing';
    return { kind: stream ? 'stream' : 'message', content: [{ type: 'text', text: `The tool printed ${seen}.` }] };
  }
  if (req.raw.includes('RUN_THE_TOOL')) {
    return {
      kind: stream ? 'stream' : 'message',
      content: [
        { type: 'thinking', thinking: 'The user wants me to run a command.', signature: 'EqQBsig-fake' },
        { type: 'tool_use', id: 'toolu_01Fake', name: 'Bash', input: { command: `echo ${TOOL_OUTPUT}`, description: 'Print a marker' } },
      ],
    };
  }
  return { kind: stream ? 'stream' : 'message', content: [{ type: 'text', text: 'pong from the fake upstream' }] };
}

let upstream: FakeAnthropic;
let gw: GatewayUnderTest;

before(async () => {
  upstream = await new FakeAnthropic('claude-upstream').start();
  upstream.reply = scriptedReply;
  gw = await startGatewayUnderTest(configWith(anthropicChannel('anthropic', upstream.url)));
});

after(async () => {
  await gw.stop();
  await upstream.close();
});

for (const auth of ['ANTHROPIC_API_KEY', 'ANTHROPIC_AUTH_TOKEN'] as const) {
  describe(`claude -p with ${auth}`, () => {
    test('completes a prompt with the upstream text, through /v1/messages?beta=true, and is metered', async () => {
      const before = upstream.requests.length;
      const recordsBefore = (await gw.usage()).length;
      const run = await runClaude(gw.url, auth, ['say pong']);
      assert.equal(run.code, 0, `claude exited ${String(run.code)}: ${run.stderr}`);
      assert.match(run.stdout, /pong from the fake upstream/);

      const calls = upstream.requests.slice(before).filter((r) => r.method === 'POST');
      assert.ok(calls.length >= 1);
      const call = calls[0];
      assert.ok(call !== undefined);
      assert.equal(call.path, '/v1/messages?beta=true');
      assert.equal(call.headers['x-api-key'], 'sk-ant-upstream-anthropic', 'the channel key replaces the caller key');
      assert.equal(call.headers['authorization'], undefined);
      assert.ok(!JSON.stringify(call.headers).includes(TEST_KEY), 'the caller key never reaches the upstream');
      assert.match(String(call.headers['anthropic-beta']), /claude-code-/, 'Claude Code betas are forwarded');
      assert.equal(typeof (call.body['metadata'] as { user_id?: unknown } | undefined)?.user_id, 'string');

      const all = await gw.usage(); // newest first
      const mine = all.slice(0, all.length - recordsBefore).filter((r) => r.route === '/v1/messages');
      assert.equal(mine.length, calls.length, 'one usage record per upstream call');
      const u = DEFAULT_ANTHROPIC_USAGE;
      for (const r of mine) {
        assert.equal(r.status, 200);
        assert.equal(r.keyName, 'tester');
        assert.deepEqual([r.cachedTokens, r.cacheWriteTokens, r.completionTokens], [u.cacheRead, u.cacheWrite, u.output]);
        assert.equal(r.promptTokens, u.input + (u.cacheRead ?? 0) + (u.cacheWrite ?? 0));
      }
    });

    test('runs a Bash tool round trip: tool_use, the real command, tool_result sent back, final answer', async () => {
      const before = upstream.requests.length;
      const run = await runClaude(gw.url, auth, ['RUN_THE_TOOL please', '--allowedTools', 'Bash']);
      assert.equal(run.code, 0, `claude exited ${String(run.code)}: ${run.stderr}`);
      assert.match(run.stdout, new RegExp(`The tool printed ${TOOL_OUTPUT}`));

      const calls = upstream.requests.slice(before).filter((r) => r.method === 'POST' && r.path.startsWith('/v1/messages'));
      assert.equal(calls.length, 2, 'the tool call and the answer after its result');
      const second = calls[1];
      assert.ok(second !== undefined);
      assert.match(toolResultText(second) ?? '', new RegExp(TOOL_OUTPUT), 'the command really ran and its output went back');
      // The thinking block, signature included, is sent back unchanged on the next turn.
      assert.ok(second.raw.includes('EqQBsig-fake'), 'the thinking signature survives the round trip');
      // Both calls belong to one conversation: the same metadata.user_id.
      const ids = calls.map((c) => (c.body['metadata'] as { user_id?: unknown } | undefined)?.user_id);
      assert.equal(ids[0], ids[1]);
    });
  });
}
