// The real Claude Code CLI (`claude -p`) against the gateway whose only channel for its model speaks nothing
// but Chat Completions (type openai, `formats: [openai-chat]`, the model renamed): Claude Code's Anthropic
// request is translated to a chat request, the chat stream back into Anthropic's stream. A prompt, a Bash tool
// round trip, reasoning_content followed by a tool call (DeepSeek style), and usage.

import { inspect } from 'node:util';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { runAgentCli, type AgentRun } from '../helpers/agent-cli.js';
import { FakeOpenAI, type FakeReply, type FakeUsage, type RecordedRequest } from '../helpers/fake-openai.js';
import { TEST_KEY, configWith, startGatewayUnderTest, type GatewayUnderTest } from '../helpers/gateway-under-test.js';
import { REPO_ROOT } from '../helpers/repo-root.js';

const CLAUDE = join(REPO_ROOT, 'node_modules/.bin/claude');
/** The model Claude Code asks for by default (see test/fixtures/requests/claude-code-messages.json). */
const CLIENT_MODEL = 'claude-opus-5-5';
const UPSTREAM_MODEL = 'fake-chat-model';
const CHANNEL = 'chat-only';
const UPSTREAM_KEY = `sk-upstream-${CHANNEL}`;

/** Multibyte UTF-8 of 2, 3 and 4 bytes, split over several deltas by the fake. */
const GREETING_PIECES = ['Grüße aus ', 'der Übersetzung: ', '日本語の', 'テキスト ✓ ', '🚀 fertig'];
const GREETING = GREETING_PIECES.join('');
const TOOL_OUTPUT = 'translated-42';
const CALL_ID = 'call_fake_bash_1';
const BASH_ARGUMENTS = JSON.stringify({ command: `echo ${TOOL_OUTPUT}`, description: 'Print the marker' });
const REASONING_PIECES = ['The user wants ', 'me to run a ', 'shell command: ', 'echo it.'];
const REASONING = REASONING_PIECES.join('');
/** Usage the fake reports for the usage case: most of the prompt read from the cache, as a long agent prompt is. */
const CACHED_USAGE: FakeUsage = { prompt: 18_432, completion: 57, cached: 17_920, reasoning: 0 };

/** `claude -p <args>` in an empty home and working directory, with only the offline settings of clients.md. */
async function runClaude(gatewayUrl: string, args: readonly string[]): Promise<AgentRun> {
  const home = await mkdtemp(join(tmpdir(), 'gw-claude-translate-'));
  try {
    const env: NodeJS.ProcessEnv = {
      PATH: process.env['PATH'] ?? '/usr/bin:/bin',
      HOME: home,
      ANTHROPIC_BASE_URL: gatewayUrl,
      ANTHROPIC_API_KEY: TEST_KEY,
      DISABLE_TELEMETRY: '1',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      DISABLE_AUTOUPDATER: '1',
      // A translation bug answered with a 5xx fails the run at once instead of after Claude Code's own retries.
      CLAUDE_CODE_MAX_RETRIES: '0',
    };
    return await runAgentCli(CLAUDE, ['-p', ...args], env, home);
  } finally {
    await rm(home, { recursive: true, force: true });
  }
}

interface ChatMessage {
  readonly role?: unknown;
  readonly content?: unknown;
  readonly tool_calls?: unknown;
  readonly tool_call_id?: unknown;
  readonly reasoning_content?: unknown;
}

function messagesOf(req: RecordedRequest): ChatMessage[] {
  const messages = req.body['messages'];
  return Array.isArray(messages) ? (messages as ChatMessage[]) : [];
}

/** A chat message's text: a string, or the text parts of an array, joined. */
function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((part) => ((part as { type?: unknown }).type === 'text' ? String((part as { text?: unknown }).text) : '')).join('');
}

function toolMessages(req: RecordedRequest): ChatMessage[] {
  return messagesOf(req).filter((m) => m.role === 'tool');
}

const lastUserText = (req: RecordedRequest): string => textOf(messagesOf(req).filter((m) => m.role === 'user').at(-1)?.content);

/**
 * Like a real chat model: the prompt decides the answer. A tool prompt gets a tool call first; once the
 * conversation holds an assistant turn, the answer quotes what the tool message said (or "nothing").
 */
function scriptedReply(req: RecordedRequest): FakeReply {
  const stream = req.body['stream'] === true;
  const conversation = messagesOf(req).map((m) => textOf(m.content)).join('\n');
  const afterTool = messagesOf(req).some((m) => m.role === 'assistant');
  if (afterTool) {
    const seen = toolMessages(req).some((m) => textOf(m.content).includes(TOOL_OUTPUT)) ? TOOL_OUTPUT : 'nothing';
    const text = `The tool printed ${seen}.`;
    return stream ? { kind: 'stream', pieces: ['The tool ', `printed ${seen}`, '.'] } : { kind: 'completion', text };
  }
  const toolCalls = [{ id: CALL_ID, name: 'Bash', arguments: BASH_ARGUMENTS }];
  if (conversation.includes('THINK_THEN_RUN')) {
    return stream ? { kind: 'stream', reasoningPieces: REASONING_PIECES, toolCalls } : { kind: 'completion', reasoning: REASONING, toolCalls };
  }
  if (conversation.includes('RUN_THE_TOOL')) return stream ? { kind: 'stream', toolCalls } : { kind: 'completion', toolCalls };
  if (conversation.includes('COUNT_MY_TOKENS')) {
    return stream ? { kind: 'stream', pieces: ['Counted', '.'], usage: CACHED_USAGE } : { kind: 'completion', text: 'Counted.', usage: CACHED_USAGE };
  }
  return stream ? { kind: 'stream', pieces: GREETING_PIECES } : { kind: 'completion', text: GREETING };
}

/** The upstream calls made since `from`. */
function callsSince(from: number): RecordedRequest[] {
  return upstream.requests.slice(from).filter((r) => r.method === 'POST');
}

/** `--output-format stream-json --verbose` lines: every message Claude Code saw, and the result. */
interface StreamJsonLine {
  readonly type?: unknown;
  readonly message?: { readonly content?: readonly { readonly type?: unknown; readonly [k: string]: unknown }[] };
  readonly result?: unknown;
  readonly is_error?: unknown;
}

function streamJsonLines(stdout: string): StreamJsonLine[] {
  return stdout
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as StreamJsonLine);
}

/** The content blocks of the assistant messages Claude Code received, in order. */
function assistantBlocks(lines: readonly StreamJsonLine[]): { readonly type?: unknown; readonly [k: string]: unknown }[] {
  return lines.filter((l) => l.type === 'assistant').flatMap((l) => l.message?.content ?? []);
}

/** The checks every translated call must pass: the chat endpoint, the channel's key and model, a stream. */
function assertChatCall(call: RecordedRequest): void {
  assert.equal(call.path, '/v1/chat/completions', 'the chat endpoint, without Anthropic\'s ?beta=true');
  assert.equal(call.headers['authorization'], `Bearer ${UPSTREAM_KEY}`, 'the channel key as a Bearer token');
  assert.equal(call.headers['x-api-key'], undefined, 'no Anthropic key header');
  assert.ok(!JSON.stringify(call.headers).includes(TEST_KEY), 'the caller key never reaches the upstream');
  assert.ok(!call.raw.includes(TEST_KEY), 'nor its body');
  assert.equal(call.body['model'], UPSTREAM_MODEL, 'the channel renames the model');
  assert.equal(call.body['stream'], true, 'Claude Code streams, so does the translated call');
  assert.deepEqual(call.body['stream_options'], { include_usage: true }, 'a chat stream reports usage only when asked');
  assert.equal(typeof call.body['max_completion_tokens'], 'number', 'Claude Code\'s max_tokens, as max_completion_tokens');
  for (const field of ['thinking', 'metadata', 'context_management', 'output_config', 'system', 'max_tokens', 'stop_sequences']) {
    assert.ok(!(field in call.body), `no Anthropic-only field ${field} in a chat body`);
  }
  assert.ok(
    messagesOf(call).every((m) => ['system', 'user', 'assistant', 'tool'].includes(String(m.role))),
    `chat roles only: ${JSON.stringify(messagesOf(call).map((m) => m.role))}`,
  );
}

/**
 * The assistant message that made the tool call, and the tool message answering it right after it (the
 * order the chat API requires).
 */
function assertToolRoundTripSent(second: RecordedRequest): void {
  const messages = messagesOf(second);
  const at = messages.findIndex((m) => m.role === 'assistant' && Array.isArray(m.tool_calls));
  assert.ok(at >= 0, `an assistant message with tool_calls: ${JSON.stringify(messages.map((m) => m.role))}`);
  const assistant = messages[at];
  assert.ok(assistant !== undefined);
  const calls = assistant.tool_calls as { id?: unknown; type?: unknown; function?: { name?: unknown; arguments?: unknown } }[];
  assert.equal(calls.length, 1);
  const call = calls[0];
  assert.ok(call !== undefined);
  assert.equal(call.id, CALL_ID, 'the upstream\'s call id comes back unchanged');
  assert.equal(call.type, 'function');
  assert.equal(call.function?.name, 'Bash');
  assert.equal(typeof call.function?.arguments, 'string', 'chat arguments are JSON text');
  assert.deepEqual(JSON.parse(String(call.function?.arguments)), JSON.parse(BASH_ARGUMENTS), 'the arguments, reassembled from their pieces');

  const tool = messages[at + 1];
  assert.ok(tool !== undefined, 'a message after the tool call');
  assert.equal(tool.role, 'tool', `the tool result right after the call: ${JSON.stringify(messages.slice(at).map((m) => m.role))}`);
  assert.equal(tool.tool_call_id, CALL_ID);
  assert.match(textOf(tool.content), new RegExp(TOOL_OUTPUT), 'the command really ran and its output went back');
  assert.equal(toolMessages(second).length, 1, 'exactly one tool message');
}

let upstream: FakeOpenAI;
let gw: GatewayUnderTest;

before(async () => {
  upstream = await new FakeOpenAI('chat-upstream').start();
  upstream.reply = scriptedReply;
  const chatOnly = `  - name: ${CHANNEL}
    type: openai
    base_url: ${upstream.url}
    keys: ["${UPSTREAM_KEY}"]
    formats: [openai-chat]
    models: { "${CLIENT_MODEL}": "${UPSTREAM_MODEL}" }
    cooldown_ms: 0
`;
  gw = await startGatewayUnderTest(configWith(chatOnly));
});

after(async () => {
  await gw.stop();
  await upstream.close();
});

describe('claude -p through a chat-completions-only upstream', () => {
  test('a prompt: the chat stream\'s multibyte text is printed; the upstream got a proper chat request', async () => {
    const from = upstream.requests.length;
    const run = await runClaude(gw.url, ['say hello in a few languages']);
    assert.equal(run.code, 0, `claude exited ${String(run.code)}: ${run.stderr}\n${run.stdout}`);
    assert.equal(run.stdout.trim(), GREETING, 'the text, every multibyte character intact, once');

    const calls = callsSince(from);
    assert.equal(calls.length, 1, 'one upstream call (no fallback to a non-streaming retry)');
    const call = calls[0];
    assert.ok(call !== undefined);
    assertChatCall(call);

    // Claude Code's system blocks become the first message, a system message.
    const messages = messagesOf(call);
    const first = messages[0];
    assert.ok(first !== undefined);
    assert.equal(first.role, 'system');
    assert.match(textOf(first.content), /You are a Claude agent/, 'Claude Code\'s system prompt');
    assert.match(lastUserText(call), /say hello in a few languages/, 'the user prompt is the last user message');
    // Claude Code puts a role "system" message (its environment) after the prompt; it stays a system message.
    assert.equal(messages.filter((m) => m.role !== 'system').at(-1)?.role, 'user', 'the conversation ends with the user turn');

    // Claude Code's tools, as chat function tools.
    const tools = call.body['tools'] as { type?: unknown; function?: { name?: unknown; description?: unknown; parameters?: unknown } }[];
    assert.ok(Array.isArray(tools) && tools.length > 3, 'Claude Code\'s tools are offered');
    for (const tool of tools) {
      assert.equal(tool.type, 'function', `tool ${JSON.stringify(tool).slice(0, 120)}`);
      assert.equal(typeof tool.function?.name, 'string');
      const parameters = tool.function?.parameters as { type?: unknown } | undefined;
      assert.equal(parameters?.type, 'object', `the JSON schema of ${String(tool.function?.name)}`);
      assert.ok(!('input_schema' in (tool as object)) && !('input_schema' in (tool.function ?? {})), 'no Anthropic tool fields');
    }
    const names = tools.map((t) => t.function?.name);
    for (const name of ['Bash', 'Read', 'Edit', 'Write']) assert.ok(names.includes(name), `tool ${name} among ${JSON.stringify(names)}`);
    const bash = tools.find((t) => t.function?.name === 'Bash');
    assert.ok(typeof bash?.function?.description === 'string' && bash.function.description.length > 0, 'the Bash tool keeps its description');
    assert.ok(
      JSON.stringify(bash?.function?.parameters).includes('"command"'),
      'the Bash tool keeps its input schema (the command parameter)',
    );
  });

  test('a Bash tool round trip: tool_calls deltas become tool_use, the result goes back as a tool message', async () => {
    const from = upstream.requests.length;
    const run = await runClaude(gw.url, ['RUN_THE_TOOL please', '--allowedTools', 'Bash', '--output-format', 'stream-json', '--verbose']);
    assert.equal(run.code, 0, `claude exited ${String(run.code)}: ${run.stderr}\n${run.stdout}`);
    const lines = streamJsonLines(run.stdout);
    const result = lines.find((l) => l.type === 'result');
    assert.equal(result?.is_error, false, JSON.stringify(result));
    assert.equal(result?.result, `The tool printed ${TOOL_OUTPUT}.`, 'the final answer, after the real command ran');

    // What Claude Code received: one tool_use, with the upstream's id and the arguments parsed whole.
    const toolUses = assistantBlocks(lines).filter((b) => b.type === 'tool_use');
    assert.equal(toolUses.length, 1, JSON.stringify(assistantBlocks(lines)));
    assert.equal(toolUses[0]?.['id'], CALL_ID);
    assert.equal(toolUses[0]?.['name'], 'Bash');
    assert.deepEqual(toolUses[0]?.['input'], JSON.parse(BASH_ARGUMENTS));

    const calls = callsSince(from);
    assert.equal(calls.length, 2, 'the tool call and the answer after its result');
    for (const call of calls) assertChatCall(call);
    const second = calls[1];
    assert.ok(second !== undefined);
    assertToolRoundTripSent(second);
    // Both calls belong to one conversation: Claude Code's metadata.user_id becomes one prompt_cache_key.
    const keys = calls.map((c) => c.body['prompt_cache_key']);
    assert.equal(typeof keys[0], 'string', 'the conversation is named to the chat upstream');
    assert.ok(String(keys[0]).length <= 64, 'OpenAI\'s limit on prompt_cache_key');
    assert.equal(keys[0], keys[1]);
  });

  test('reasoning_content deltas reach Claude Code as thinking, and are not sent back to the chat upstream', async () => {
    const from = upstream.requests.length;
    const run = await runClaude(gw.url, ['THINK_THEN_RUN please', '--allowedTools', 'Bash', '--output-format', 'stream-json', '--verbose']);
    assert.equal(run.code, 0, `claude exited ${String(run.code)}: ${run.stderr}\n${run.stdout}`);
    const lines = streamJsonLines(run.stdout);
    assert.equal(lines.find((l) => l.type === 'result')?.result, `The tool printed ${TOOL_OUTPUT}.`);

    const blocks = assistantBlocks(lines);
    const thinking = blocks.filter((b) => b.type === 'thinking');
    assert.equal(thinking.length, 1, JSON.stringify(blocks));
    assert.equal(thinking[0]?.['thinking'], REASONING, 'the reasoning, whole, as a thinking block');
    assert.ok(
      blocks.findIndex((b) => b.type === 'thinking') < blocks.findIndex((b) => b.type === 'tool_use'),
      'thinking before the tool call, as the upstream sent them',
    );
    assert.ok(!blocks.some((b) => b.type === 'text' && String(b['text']).includes(REASONING)), 'the reasoning is not shown as answer text');

    const calls = callsSince(from);
    assert.equal(calls.length, 2);
    for (const call of calls) assertChatCall(call);
    const second = calls[1];
    assert.ok(second !== undefined);
    assertToolRoundTripSent(second);
    // A chat upstream has no standard field for reasoning history: the thinking block is dropped.
    assert.ok(!second.raw.includes(REASONING), 'the reasoning text is not sent back');
    assert.ok(messagesOf(second).every((m) => m.reasoning_content === undefined), 'no reasoning_content in the history');
  });

  test('usage: the chat usage (cached tokens included) is what Claude Code reports and what is metered', async () => {
    const from = upstream.requests.length;
    const recordsBefore = (await gw.usage()).length;
    const run = await runClaude(gw.url, ['COUNT_MY_TOKENS now', '--output-format', 'json']);
    assert.equal(run.code, 0, `claude exited ${String(run.code)}: ${run.stderr}\n${run.stdout}`);
    const out = JSON.parse(run.stdout) as { result?: unknown; is_error?: unknown; usage?: Record<string, unknown> };
    assert.equal(out.is_error, false);
    assert.equal(out.result, 'Counted.');

    const calls = callsSince(from);
    assert.equal(calls.length, 1);
    const call = calls[0];
    assert.ok(call !== undefined);
    assertChatCall(call);

    const u = CACHED_USAGE;
    const cached = u.cached ?? 0;
    // Anthropic's input_tokens leave out the cache reads, which Claude Code counts apart.
    assert.equal(out.usage?.['input_tokens'], u.prompt - cached, 'input_tokens = prompt_tokens - cached_tokens');
    assert.equal(out.usage?.['cache_read_input_tokens'], cached);
    assert.equal(out.usage?.['cache_creation_input_tokens'], 0);
    assert.equal(out.usage?.['output_tokens'], u.completion);

    const all = await gw.usage(); // newest first
    const mine = all.slice(0, all.length - recordsBefore);
    assert.equal(mine.length, 1, `one usage record: ${inspect(mine)}`);
    const record = mine[0];
    assert.ok(record !== undefined);
    assert.equal(record.route, '/v1/messages');
    assert.equal(record.model, CLIENT_MODEL);
    assert.equal(record.upstreamModel, UPSTREAM_MODEL);
    assert.equal(record.channel, CHANNEL);
    assert.equal(record.status, 200);
    assert.equal(record.errorCode, null);
    assert.equal(record.stream, true);
    assert.equal(record.keyName, 'tester');
    assert.deepEqual(
      { promptTokens: record.promptTokens, cachedTokens: record.cachedTokens, completionTokens: record.completionTokens, cacheWriteTokens: record.cacheWriteTokens },
      { promptTokens: u.prompt, cachedTokens: cached, completionTokens: u.completion, cacheWriteTokens: 0 },
      'the record holds what the upstream reported',
    );
  });
});
