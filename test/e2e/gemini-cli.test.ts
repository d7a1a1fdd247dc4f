// The real Gemini CLI (`gemini -p`, @google/gemini-cli) against the gateway, with GEMINI_API_KEY a gateway key and
// GOOGLE_GEMINI_BASE_URL the gateway: on a `gemini` channel (native, the CLI's requests relayed as sent) it answers a
// prompt and completes a shell tool round trip whose call carries a thought signature, which must come back on the
// same call; on an `openai` channel that speaks only Chat Completions (translated both ways) it does the same, the
// reasoning and the tool call streamed as a chat upstream streams them; on the mock channel it answers offline.

import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { after, before, describe, test } from 'node:test';
import { runAgentCli, type AgentRun } from '../helpers/agent-cli.js';
import { FakeGemini, GEMINI_USAGE } from '../helpers/fake-gemini.js';
import { FakeOpenAI, type RecordedRequest as ChatRequest } from '../helpers/fake-openai.js';
import type { RecordedRequest } from '../helpers/loopback-http-server.js';
import { TEST_KEY, startGatewayUnderTest, type GatewayUnderTest } from '../helpers/gateway-under-test.js';
import { REPO_ROOT } from '../helpers/repo-root.js';

const GEMINI = join(REPO_ROOT, 'node_modules/.bin/gemini');
const UPSTREAM_KEY = 'AIza-upstream-cli-0123456789';
const MODEL = 'gemini-2.5-pro';
const MARKER = 'native-42';
const SIGNATURE = 'EpYCsig-native-0123';

/** `gemini -p <prompt>` in an empty home and working directory, with the offline settings of gemini.md. */
async function runGemini(gatewayUrl: string, model: string, prompt: string): Promise<AgentRun> {
  const home = await mkdtemp(join(tmpdir(), 'gw-gemini-cli-'));
  try {
    await mkdir(join(home, '.gemini'));
    // API-key auth (GOOGLE_GEMINI_BASE_URL alone selects a gateway auth that headless runs refuse), no telemetry.
    await writeFile(
      join(home, '.gemini', 'settings.json'),
      JSON.stringify({ security: { auth: { selectedType: 'gemini-api-key' } }, privacy: { usageStatisticsEnabled: false }, general: { disableAutoUpdate: true } }),
    );
    const env: NodeJS.ProcessEnv = {
      PATH: process.env['PATH'] ?? '/usr/bin:/bin',
      HOME: home,
      GEMINI_API_KEY: TEST_KEY,
      GOOGLE_GEMINI_BASE_URL: gatewayUrl,
      GEMINI_CLI_TRUST_WORKSPACE: 'true',
      NO_COLOR: '1',
    };
    return await runAgentCli(GEMINI, ['-m', model, '--approval-mode', 'yolo', '-p', prompt], env, home);
  } finally {
    await rm(home, { recursive: true, force: true });
  }
}

type Json = Record<string, unknown>;

function partsOf(request: RecordedRequest): Json[] {
  const contents = request.body['contents'];
  if (!Array.isArray(contents)) return [];
  return (contents as Json[]).flatMap((content) => (Array.isArray(content['parts']) ? (content['parts'] as Json[]) : []));
}

let fake: FakeGemini;
let chat: FakeOpenAI;
let gw: GatewayUnderTest;

const CHAT_MARKER = 'translated-42';
const CHAT_CALL_ID = 'call_chat_shell_1';

interface ChatMessage {
  readonly role?: unknown;
  readonly content?: unknown;
  readonly tool_calls?: readonly { id?: unknown; function?: { name?: unknown; arguments?: unknown } }[];
  readonly tool_call_id?: unknown;
}

function chatMessages(request: ChatRequest): ChatMessage[] {
  const messages = request.body['messages'];
  return Array.isArray(messages) ? (messages as ChatMessage[]) : [];
}

before(async () => {
  fake = await new FakeGemini(UPSTREAM_KEY).start();
  // The turn: first a shell call (signed, as Gemini 3 signs calls), then, once its result is back, the answer.
  fake.reply = (request) => {
    const result = partsOf(request).find((part) => part['functionResponse'] !== undefined);
    if (result === undefined) {
      return {
        kind: 'answer',
        parts: [{ functionCall: { name: 'run_shell_command', args: { command: `echo ${MARKER}`, description: 'Print the marker' } }, thoughtSignature: SIGNATURE }],
        usage: GEMINI_USAGE,
      };
    }
    return { kind: 'answer', parts: [{ text: `The command printed ${MARKER}.` }], usage: GEMINI_USAGE };
  };
  chat = await new FakeOpenAI('chat').start();
  // The chat model thinks aloud, then calls the shell; once the result is back, it answers.
  chat.reply = (request) => {
    const result = chatMessages(request).find((m) => m.role === 'tool');
    if (result === undefined) {
      return {
        kind: 'stream',
        reasoningPieces: ['The user wants ', 'the marker printed.'],
        toolCalls: [{ id: CHAT_CALL_ID, name: 'run_shell_command', arguments: JSON.stringify({ command: `echo ${CHAT_MARKER}`, description: 'Print the marker' }) }],
      };
    }
    return { kind: 'stream', pieces: ['The command ', `printed ${CHAT_MARKER}.`] };
  };
  gw = await startGatewayUnderTest(`server: { port: 0, host: 127.0.0.1 }
store: { url: "sqlite:./gateway.db" }
groups:
  default: { models: ["*"] }
keys:
  - { name: test, key: ${TEST_KEY}, group: default }
channels:
  - { name: google, type: gemini, base_url: "${fake.url}", keys: [${UPSTREAM_KEY}], models: ["gemini-*"] }
  - { name: chat-only, type: openai, base_url: "${chat.url}", keys: [sk-upstream-chat-0123456789], models: { "house-chat-pro": "fake-chat-model" }, formats: [openai-chat] }
  - { name: demo, type: mock, models: ["demo-*"] }
`);
});

after(async () => {
  await gw?.stop();
  await fake?.close();
  await chat?.close();
});

describe('Gemini CLI through the gateway', () => {
  test('native on a gemini channel: a shell tool round trip, its signature back on the call, usage recorded', async () => {
    const run = await runGemini(gw.url, MODEL, 'Run the shell command that prints the marker, then tell me what it printed.');
    assert.equal(run.code, 0, inspect(run));
    assert.match(run.stdout, new RegExp(`printed ${MARKER}`));
    const calls = fake.requests.filter((r) => r.path.includes(':streamGenerateContent'));
    assert.ok(calls.length >= 2, `the CLI made its turn in two calls: ${fake.requests.map((r) => r.path).join(', ')}`);
    const second = calls.at(-1) as RecordedRequest;
    const echoed = partsOf(second).find((part) => part['functionCall'] !== undefined);
    assert.equal(echoed?.['thoughtSignature'], SIGNATURE, 'the signature came back on its call');
    const result = partsOf(second).find((part) => part['functionResponse'] !== undefined);
    assert.match(JSON.stringify(result), new RegExp(MARKER), 'the shell ran and its output went back');
    assert.ok(fake.requests.every((r) => r.headers['x-goog-api-key'] === UPSTREAM_KEY && !r.path.includes('key=')));
    const records = (await gw.usage()).filter((r) => r.model === MODEL && r.status === 200);
    assert.ok(records.length >= 2 && records.every((r) => r.promptTokens === 1200 && r.completionTokens === 170), inspect(records));
  });

  test('translated on a Chat-only channel: a shell tool round trip, the call id kept, the result sent back as a tool message', async () => {
    const run = await runGemini(gw.url, 'house-chat-pro', 'Run the shell command that prints the marker, then tell me what it printed.');
    assert.equal(run.code, 0, inspect(run));
    assert.match(run.stdout, new RegExp(`printed ${CHAT_MARKER}`));
    const calls = chat.requests.filter((r) => r.path === '/v1/chat/completions');
    assert.ok(calls.length >= 2, `two chat calls: ${chat.requests.map((r) => r.path).join(', ')}`);
    const first = calls[0] as ChatRequest;
    assert.equal(first.body['model'], 'fake-chat-model');
    assert.equal(first.body['stream'], true);
    const tools = first.body['tools'] as { function?: { name?: unknown } }[] | undefined;
    assert.ok(tools?.some((t) => t.function?.name === 'run_shell_command'), 'the CLI\'s tools reached the chat upstream as functions');
    const second = calls.at(-1) as ChatRequest;
    const messages = chatMessages(second);
    const assistant = messages.find((m) => m.role === 'assistant' && (m.tool_calls?.length ?? 0) > 0);
    assert.equal(assistant?.tool_calls?.[0]?.id, CHAT_CALL_ID, 'the call kept the id the chat model gave it');
    assert.equal(assistant?.tool_calls?.[0]?.function?.name, 'run_shell_command');
    const result = messages.find((m) => m.role === 'tool');
    assert.equal(result?.tool_call_id, CHAT_CALL_ID, 'the result answers that call');
    assert.match(JSON.stringify(result?.content), new RegExp(CHAT_MARKER), 'the shell ran and its output went back');
    const records = (await gw.usage()).filter((r) => r.model === 'house-chat-pro' && r.status === 200);
    assert.ok(records.length >= 2 && records.every((r) => r.channel === 'chat-only' && r.promptTokens > 0 && (r.usageEstimated ?? false) === false), inspect(records));
  });

  test('on the mock channel: answers offline', async () => {
    const run = await runGemini(gw.url, 'demo-gemini', 'hello mock');
    assert.equal(run.code, 0, inspect(run));
    assert.match(run.stdout, /Hello from the mock channel!/);
  });
});
