// The real Codex CLI (`codex exec`, Responses API) through the gateway to an upstream that speaks ONLY Anthropic
// Messages: every call is translated Responses -> IR -> Messages, and the Anthropic stream back into the Responses
// stream Codex needs. Cases: a prompt (thinking + text), an exec_command tool round trip (tool_use streamed as
// input_json_delta pieces, the command really runs, tool_result and the turn-one thinking block with its original
// signature go back), and the usage record of a Codex turn with Anthropic's cache counts.
//
// The provider is named "Gateway" (not "OpenAI"), so Codex compacts locally and never sends compaction_trigger,
// which has no Anthropic counterpart. The fake checks every body as the real API does (strict mode): a body
// Anthropic would refuse gets its 400, so a translation the real upstream would reject fails here too.

import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { runAgentCli, type AgentRun } from '../helpers/agent-cli.js';
import { FakeAnthropic, type AnthropicUsage, type FakeAnthropicReply, type RecordedAnthropicRequest } from '../helpers/fake-anthropic.js';
import { TEST_KEY, configWith, startGatewayUnderTest, type GatewayUnderTest } from '../helpers/gateway-under-test.js';
import { until } from '../helpers/poll.js';
import { REPO_ROOT } from '../helpers/repo-root.js';

const CODEX = join(REPO_ROOT, 'node_modules/.bin/codex');
const MODEL = 'gpt-5.4';
const UPSTREAM_MODEL = 'claude-sonnet-4-5';
const CHANNEL = 'claude';
const UPSTREAM_KEY = `sk-ant-upstream-${CHANNEL}`;
const TOOL_MARKER = 'RUN_THE_TOOL';
const TOOL_OUTPUT = 'translated-77';
const TOOL_USE_ID = 'toolu_01TranslatedCodex77';
const PONG = 'pong from the anthropic-only upstream';
const THINKING = 'The user wants a pong; answer briefly.';
const THINKING_SIGNATURE = 'EqQBCkYIBxgCKkD-original-signature-pong==';
const TOOL_THINKING = 'The user asked me to run a command: use exec_command.';
const TOOL_THINKING_SIGNATURE = 'ErUBCkYIBxgCKkB-original-signature-tool+/==';
const USAGE_MARKER = 'METER_THIS_TURN';

/** The fake's counts for ordinary turns, and the distinct ones of the metering case. */
const TURN_USAGE: AnthropicUsage = { input: 31, output: 12, cacheRead: 2048, cacheWrite: 256 };
const METERED_USAGE: AnthropicUsage = { input: 17, output: 23, cacheRead: 4096, cacheWrite: 512, thinking: 5 };

// ---------------------------------------------------------------------------------------------------------------
// Reading what the upstream got

type Json = Record<string, unknown>;

function asRecord(value: unknown): Json | null {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : null;
}

function messagesOf(req: RecordedAnthropicRequest): Json[] {
  const messages = req.body['messages'];
  return Array.isArray(messages) ? messages.map(asRecord).filter((m): m is Json => m !== null) : [];
}

/** A message's content as blocks (a string content is one text block). */
function blocksOf(message: Json | undefined): Json[] {
  const content = message?.['content'];
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  return Array.isArray(content) ? content.map(asRecord).filter((b): b is Json => b !== null) : [];
}

function allBlocks(req: RecordedAnthropicRequest): Json[] {
  return messagesOf(req).flatMap((m) => blocksOf(m));
}

function toolResult(req: RecordedAnthropicRequest): Json | undefined {
  return allBlocks(req).find((b) => b['type'] === 'tool_result');
}

function systemText(req: RecordedAnthropicRequest): string {
  const system = req.body['system'];
  if (typeof system === 'string') return system;
  if (!Array.isArray(system)) return '';
  return system.map((b) => String(asRecord(b)?.['text'] ?? '')).join('\n');
}

function toolsOf(req: RecordedAnthropicRequest): Json[] {
  const tools = req.body['tools'];
  return Array.isArray(tools) ? tools.map(asRecord).filter((t): t is Json => t !== null) : [];
}

function describeRequest(req: RecordedAnthropicRequest | undefined): string {
  if (req === undefined) return 'no request';
  const messages = messagesOf(req).map((m) => ({ role: m['role'], blocks: blocksOf(m).map((b) => b['type']) }));
  return `messages: ${JSON.stringify(messages)}`;
}

// ---------------------------------------------------------------------------------------------------------------
// The scripted model

/** Like the real model: a tool call when asked for one, an answer quoting the tool's output after it, else a pong. */
function scriptedReply(req: RecordedAnthropicRequest): FakeAnthropicReply {
  const kind = req.body['stream'] === true ? 'stream' : 'message';
  const result = toolResult(req);
  if (result !== undefined) {
    const seen = JSON.stringify(result['content'] ?? null).includes(TOOL_OUTPUT) ? TOOL_OUTPUT : 'nothing';
    return { kind, usage: TURN_USAGE, content: [{ type: 'text', text: `The tool printed ${seen}.` }] };
  }
  if (req.raw.includes(TOOL_MARKER)) {
    return {
      kind,
      usage: TURN_USAGE,
      content: [
        { type: 'thinking', thinking: TOOL_THINKING, signature: TOOL_THINKING_SIGNATURE },
        // The fake streams the input as input_json_delta pieces of 5 characters (after an empty first one).
        { type: 'tool_use', id: TOOL_USE_ID, name: 'exec_command', input: { cmd: `echo ${TOOL_OUTPUT}` } },
      ],
    };
  }
  const usage = req.raw.includes(USAGE_MARKER) ? METERED_USAGE : TURN_USAGE;
  return {
    kind,
    usage,
    content: [
      { type: 'thinking', thinking: THINKING, signature: THINKING_SIGNATURE },
      { type: 'text', text: PONG },
    ],
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Running Codex

/** `codex exec` with clients.md's offline config.toml (provider "Gateway"), in an empty CODEX_HOME, HOME and cwd. */
async function runCodex(gatewayUrl: string, args: readonly string[]): Promise<AgentRun> {
  const home = await mkdtemp(join(tmpdir(), 'gw-codex-tr-'));
  try {
    const toml = [
      `model = ${JSON.stringify(MODEL)}`,
      'model_provider = "gw"',
      'check_for_update_on_startup = false',
      '',
      '[analytics]',
      'enabled = false',
      '',
      '[features]',
      'plugins = false',
      'apps = false',
      '',
      '[model_providers.gw]',
      'name = "Gateway"',
      `base_url = ${JSON.stringify(`${gatewayUrl}/v1`)}`,
      'wire_api = "responses"',
      'env_key = "GW_KEY"',
      // A failed call fails the run at once instead of being retried behind the test's back.
      'request_max_retries = 0',
      'stream_max_retries = 0',
      '',
    ].join('\n');
    await writeFile(join(home, 'config.toml'), toml);
    // A clean environment: no OPENAI_* or CODEX_* of the machine running the tests may leak in.
    const env: NodeJS.ProcessEnv = { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: home, CODEX_HOME: home, GW_KEY: TEST_KEY };
    return await runAgentCli(CODEX, ['exec', '--skip-git-repo-check', ...args], env, home);
  } finally {
    await rm(home, { recursive: true, force: true });
  }
}

function describeRun(run: AgentRun): string {
  const rejected = JSON.stringify(upstream.rejected);
  return `codex exited ${String(run.code)}\nstdout: ${run.stdout}\nstderr: ${run.stderr.slice(-4000)}\nupstream rejected: ${rejected}`;
}

// ---------------------------------------------------------------------------------------------------------------
// Shared checks

/** Every upstream call: Messages API, the channel's key as x-api-key, the mapped model, streamed, nothing of the caller. */
function assertTranslatedCall(call: RecordedAnthropicRequest): void {
  assert.equal(call.method, 'POST');
  assert.equal(call.path, '/v1/messages', 'a Responses route has no query worth carrying to Anthropic');
  assert.equal(call.headers['x-api-key'], UPSTREAM_KEY, 'the channel key, as Anthropic wants it');
  assert.equal(call.headers['authorization'], undefined, 'no Bearer header toward Anthropic');
  assert.match(String(call.headers['anthropic-version']), /^\d{4}-\d{2}-\d{2}$/, 'Anthropic requires a version header');
  assert.ok(!JSON.stringify(call.headers).includes(TEST_KEY), 'the caller key never reaches the upstream in a header');
  assert.ok(!call.raw.includes(TEST_KEY), 'the caller key never reaches the upstream in the body');
  assert.equal(call.body['model'], UPSTREAM_MODEL, 'the channel maps gpt-5.4 to the Claude model');
  assert.equal(call.body['stream'], true, 'Codex always streams');
  assert.ok(Number.isInteger(call.body['max_tokens']) && Number(call.body['max_tokens']) > 0, 'max_tokens is required upstream');
  // Codex's developer messages are Anthropic's top-level system prompt, never a message.
  assert.match(systemText(call), /You are a coding agent running in the Codex CLI/);
  const roles = messagesOf(call).map((m) => m['role']);
  assert.ok(roles.length > 0);
  roles.forEach((role, i) => {
    assert.equal(role, i % 2 === 0 ? 'user' : 'assistant', `messages alternate user/assistant: ${JSON.stringify(roles)}`);
  });
  // The conversation key (Codex's prompt_cache_key, the thread id) becomes metadata.user_id.
  const userId = asRecord(call.body['metadata'])?.['user_id'];
  assert.equal(typeof userId, 'string');
  assert.notEqual(userId, '');
}

/** The records the gateway wrote since `countBefore` (newest first), once there are `expected` of them. */
async function newRecords(countBefore: number, expected: number): Promise<Awaited<ReturnType<GatewayUnderTest['usage']>>> {
  return until(
    `${expected} usage record(s)`,
    async () => {
      const all = await gw.usage(); // newest first
      const mine = all.slice(0, all.length - countBefore);
      return mine.length >= expected ? mine : undefined;
    },
    { timeoutMs: 5_000, intervalMs: 25 },
  );
}

let upstream: FakeAnthropic;
let gw: GatewayUnderTest;

before(async () => {
  upstream = await new FakeAnthropic('anthropic-only').start();
  upstream.strict = true;
  upstream.reply = scriptedReply;
  gw = await startGatewayUnderTest(
    configWith(`  - name: ${CHANNEL}
    type: anthropic
    base_url: ${upstream.url}
    keys: ["${UPSTREAM_KEY}"]
    models: { "${MODEL}": "${UPSTREAM_MODEL}" }
    cooldown_ms: 0
`),
  );
});

after(async () => {
  await gw.stop();
  await upstream.close();
});

describe('codex exec through the gateway to an Anthropic-only upstream', () => {
  test('a prompt: Anthropic thinking + text stream becomes the Responses stream Codex prints', { timeout: 150_000 }, async () => {
    const before = upstream.requests.length;
    const run = await runCodex(gw.url, ['say pong']);
    assert.equal(run.code, 0, describeRun(run));
    assert.match(run.stdout, new RegExp(PONG), describeRun(run));

    const calls = upstream.requests.slice(before);
    assert.equal(calls.length, 1, 'one model call for a one-line prompt');
    const call = calls[0];
    assert.ok(call !== undefined);
    assertTranslatedCall(call);
    const messages = messagesOf(call);
    assert.equal(messages[0]?.['role'], 'user');
    assert.match(JSON.stringify(messages[messages.length - 1]), /say pong/, 'the prompt is the last user message');
    assert.ok(!JSON.stringify(messages).includes('You are a coding agent running in the Codex CLI'), 'developer text only in system');

    // Codex's function tools as Anthropic custom tools; the multi_agent_v1 namespace flattened; web_search dropped.
    const tools = toolsOf(call);
    const names = tools.map((t) => String(t['name']));
    for (const tool of tools) {
      assert.ok(tool['type'] === undefined || tool['type'] === 'custom', `a custom tool: ${JSON.stringify(tool).slice(0, 200)}`);
      assert.equal(typeof tool['description'], 'string', `${String(tool['name'])} keeps its description`);
      assert.equal(asRecord(tool['input_schema'])?.['type'], 'object', `${String(tool['name'])} has an object input_schema`);
      assert.equal(tool['parameters'], undefined, 'no OpenAI-shaped parameters');
    }
    for (const name of ['exec_command', 'write_stdin']) assert.ok(names.includes(name), `${name} offered: ${names.join(', ')}`);
    const exec = tools.find((t) => t['name'] === 'exec_command');
    assert.ok(asRecord(asRecord(exec?.['input_schema'])?.['properties'])?.['cmd'] !== undefined, 'exec_command keeps its cmd parameter');
    const members = names.filter((n) => n.startsWith('multi_agent_v1__'));
    for (const member of ['spawn_agent', 'send_input', 'wait_agent', 'close_agent']) {
      assert.ok(members.includes(`multi_agent_v1__${member}`), `namespace member ${member} flattened: ${names.join(', ')}`);
    }
    assert.ok(!names.includes('multi_agent_v1'), 'the namespace itself is no tool');
    assert.ok(!names.some((n) => /web_search/.test(n)), 'the hosted web_search cannot be offered to Claude');
    assert.ok(!tools.some((t) => typeof t['type'] === 'string' && /web_search/.test(String(t['type']))));
    assert.equal(new Set(names).size, names.length, 'tool names are unique');
    assert.deepEqual(upstream.rejected, [], 'the real API would have accepted every body');
  });

  test('exec_command round trip: tool_use, the real command, tool_result, thinking back with its signature', { timeout: 150_000 }, async () => {
    const before = upstream.requests.length;
    const run = await runCodex(gw.url, ['--dangerously-bypass-approvals-and-sandbox', `${TOOL_MARKER}: print the marker with echo`]);
    assert.equal(run.code, 0, describeRun(run));
    assert.match(run.stdout, new RegExp(`The tool printed ${TOOL_OUTPUT}\\.`), describeRun(run));

    const calls = upstream.requests.slice(before);
    assert.equal(calls.length, 2, `the tool call and the answer after its result; ${calls.map(describeRequest).join(' | ')}`);
    const [first, second] = calls;
    assert.ok(first !== undefined && second !== undefined);
    assertTranslatedCall(first);
    assertTranslatedCall(second);
    assert.equal(asRecord(second.body['metadata'])?.['user_id'], asRecord(first.body['metadata'])?.['user_id'], 'one conversation');

    // Turn two: ..., assistant [thinking (original signature), tool_use], user [tool_result], as Anthropic needs.
    const messages = messagesOf(second);
    const last = messages[messages.length - 1];
    const assistant = messages[messages.length - 2];
    assert.equal(assistant?.['role'], 'assistant', describeRequest(second));
    assert.equal(last?.['role'], 'user', describeRequest(second));
    const assistantBlocks = blocksOf(assistant);
    const toolUse = assistantBlocks.find((b) => b['type'] === 'tool_use');
    assert.ok(toolUse !== undefined, describeRequest(second));
    assert.equal(toolUse['id'], TOOL_USE_ID, 'the tool_use id survives as the Responses call_id and back');
    assert.equal(toolUse['name'], 'exec_command');
    assert.deepEqual(toolUse['input'], { cmd: `echo ${TOOL_OUTPUT}` }, 'the input_json_delta pieces reassemble to the input object');

    const result = blocksOf(last).find((b) => b['type'] === 'tool_result');
    assert.ok(result !== undefined, describeRequest(second));
    assert.equal(result['tool_use_id'], TOOL_USE_ID);
    assert.match(JSON.stringify(result['content'] ?? null), new RegExp(TOOL_OUTPUT), 'the command really ran and its output went back');

    // Codex asks for reasoning.encrypted_content and echoes the reasoning item: the gateway wrapped the signature
    // in it and unwraps it, so Claude gets its own thinking block back verbatim, before the tool_use.
    const thinking = assistantBlocks.find((b) => b['type'] === 'thinking');
    assert.ok(thinking !== undefined, `the turn-one thinking block comes back: ${describeRequest(second)}`);
    assert.equal(thinking['signature'], TOOL_THINKING_SIGNATURE, 'the ORIGINAL signature, unwrapped');
    assert.equal(thinking['thinking'], TOOL_THINKING, 'the thinking text, verbatim');
    assert.ok(assistantBlocks.indexOf(thinking) < assistantBlocks.indexOf(toolUse), 'thinking precedes the tool_use');
    assert.ok(!second.raw.includes(TEST_KEY));
    assert.deepEqual(upstream.rejected, [], 'the real API would have accepted every body');
  });

  test('the usage record of a Codex turn counts Anthropic cache reads and writes as prompt tokens', { timeout: 150_000 }, async () => {
    const before = upstream.requests.length;
    const recordsBefore = (await gw.usage()).length;
    const run = await runCodex(gw.url, [`${USAGE_MARKER}: say pong`]);
    assert.equal(run.code, 0, describeRun(run));
    assert.match(run.stdout, new RegExp(PONG), describeRun(run));
    const calls = upstream.requests.slice(before);
    assert.equal(calls.length, 1);

    const records = await newRecords(recordsBefore, calls.length);
    assert.equal(records.length, 1, 'one record per upstream call');
    const r = records[0];
    assert.ok(r !== undefined);
    assert.equal(r.route, '/v1/responses');
    assert.equal(r.status, 200);
    assert.equal(r.errorCode, null);
    assert.equal(r.keyName, 'tester');
    assert.equal(r.model, MODEL);
    assert.equal(r.upstreamModel, UPSTREAM_MODEL);
    assert.equal(r.channel, CHANNEL);
    assert.equal(r.stream, true);
    assert.equal(r.aborted, false);
    const u = METERED_USAGE;
    assert.deepEqual(
      {
        promptTokens: r.promptTokens,
        cachedTokens: r.cachedTokens,
        cacheWriteTokens: r.cacheWriteTokens,
        completionTokens: r.completionTokens,
        reasoningTokens: r.reasoningTokens,
      },
      {
        promptTokens: u.input + (u.cacheRead ?? 0) + (u.cacheWrite ?? 0),
        cachedTokens: u.cacheRead ?? 0,
        cacheWriteTokens: u.cacheWrite ?? 0,
        completionTokens: u.output,
        reasoningTokens: u.thinking ?? 0,
      },
    );
  });
});
