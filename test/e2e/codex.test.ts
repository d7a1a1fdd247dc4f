// The real Codex CLI (`codex exec`) against the gateway's POST /v1/responses, with a scripted fake Responses
// upstream: a prompt, a shell tool round trip, and remote compaction v2 (a streamed /v1/responses call whose last
// input item is `compaction_trigger`).
//
// What Codex 0.169 was seen to send (probed with this fake): POST {base_url}/responses, always stream:true,
// store:false, include:["reasoning.encrypted_content"], prompt_cache_key = the thread id, client_metadata,
// tool_choice "auto", parallel_tool_calls, reasoning {summary:"auto"}, no `instructions` (two developer messages
// instead), ~39 KB for a one-line prompt. Tools: function exec_command (the shell tool, arguments
// `{"cmd": "<shell command>"}`, required ["cmd"]), write_stdin, request_user_input, view_image, get_goal,
// create_goal, update_goal, a namespace multi_agent_v1, and web_search. Headers include session-id, thread-id,
// x-codex-window-id, x-codex-turn-metadata (its request_kind is "turn" or "compaction") and
// `x-codex-beta-features: remote_compaction_v2` whatever the provider's name. The tool's output comes back as a
// function_call_output item whose output wraps the command's stdout ("...Output:\ncodex-tool-42\n").
//
// Compaction, as probed: with a provider named "Gateway", a tiny context window makes Codex compact locally (an
// ordinary /v1/responses call with a summarization prompt as the last user message). With the provider named
// "OpenAI" it uses remote compaction v2 and needs nothing else: the same env_key Bearer auth, the same base_url,
// no /v1/responses/compact and no other endpoint. Input items then also carry an
// `internal_chat_message_metadata_passthrough` field. The compaction call is stream:true and ends with
// {"type":"compaction_trigger"}; the `compaction` item of the answer is sent back verbatim (id included) as the
// last input item of the next call, which replaces the history before it (developer and user messages kept).
// `--disable remote_compaction_v2` did not switch v2 off in 0.169 (it still sent compaction_trigger), so Codex never
// calls /v1/responses/compact and this file does not cover that route.

import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { runAgentCli, type AgentRun } from '../helpers/agent-cli.js';
import { TEST_KEY, channel, configWith, startGatewayUnderTest, type GatewayUnderTest } from '../helpers/gateway-under-test.js';
import { LoopbackHttpServer, recordRequest, type RecordedRequest } from '../helpers/loopback-http-server.js';
import { REPO_ROOT } from '../helpers/repo-root.js';

const CODEX = join(REPO_ROOT, 'node_modules/.bin/codex');
const MODEL = 'gpt-5.4';
const UPSTREAM_KEY = 'sk-upstream-x';
const TOOL_MARKER = 'RUN_THE_TOOL';
const TOOL_OUTPUT = 'codex-tool-42';
const CALL_ID = 'call_fake_codex_1';
const COMPACTION_CIPHERTEXT = 'gAAAA-opaque-compaction-blob-7f3e';
const PONG = 'pong from the fake responses upstream';

/** Token counts of every fake answer, as the Responses API reports them (input includes the cached ones). */
const FAKE_USAGE = { input: 120, cached: 40, output: 9, reasoning: 3 } as const;

// ---------------------------------------------------------------------------------------------------------------
// The fake upstream

type OutputItem =
  | { readonly type: 'message'; readonly id: string; readonly text: string }
  | { readonly type: 'function_call'; readonly id: string; readonly callId: string; readonly name: string; readonly arguments: string }
  | { readonly type: 'compaction'; readonly id: string; readonly encryptedContent: string };

type ResponsesReply = { readonly kind: 'items'; readonly items: readonly OutputItem[] } | { readonly kind: 'status'; readonly status: number };

function asRecord(value: unknown): Record<string, unknown> | null {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
}

function inputItems(req: RecordedRequest): Record<string, unknown>[] {
  const input = req.body['input'];
  if (!Array.isArray(input)) return [];
  return input.map(asRecord).filter((item): item is Record<string, unknown> => item !== null);
}

function lastInputItem(req: RecordedRequest): Record<string, unknown> | undefined {
  const items = inputItems(req);
  return items[items.length - 1];
}

/** The full wire form of an output item, as response.output_item.done and response.completed carry it. */
function wireItem(item: OutputItem): Record<string, unknown> {
  switch (item.type) {
    case 'message':
      return {
        type: 'message',
        id: item.id,
        role: 'assistant',
        status: 'completed',
        content: [{ type: 'output_text', text: item.text, annotations: [], logprobs: [] }],
      };
    case 'function_call':
      return { type: 'function_call', id: item.id, call_id: item.callId, name: item.name, arguments: item.arguments, status: 'completed' };
    case 'compaction':
      return { type: 'compaction', id: item.id, encrypted_content: item.encryptedContent };
  }
}

/** Splits a string into a few pieces, so deltas really are several frames. */
function pieces(text: string): string[] {
  const size = Math.max(1, Math.ceil(text.length / 3));
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

/**
 * A Responses upstream on loopback that streams the real event sequence: response.created, response.in_progress,
 * per item output_item.added, its deltas, output_item.done, then response.completed with the response id and
 * usage; every event has `event:` and a monotonic sequence_number. `reply` scripts the answer per request.
 */
class FakeResponses extends LoopbackHttpServer {
  readonly requests: RecordedRequest[] = [];
  reply: (req: RecordedRequest) => ResponsesReply = () => ({ kind: 'items', items: [{ type: 'message', id: 'msg_default', text: PONG }] });
  private served = 0;

  protected override async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const recorded = await recordRequest(req);
    this.requests.push(recorded);
    if (recorded.method !== 'POST' || recorded.path !== '/v1/responses') {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: `fake responses: no ${recorded.method} ${recorded.path}`, type: 'invalid_request_error', param: null, code: null } }));
      return;
    }
    const reply = this.reply(recorded);
    if (reply.kind === 'status') {
      res.writeHead(reply.status, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: `fake responses says ${reply.status}`, type: 'server_error', param: null, code: null } }));
      return;
    }
    this.served++;
    const model = typeof recorded.body['model'] === 'string' ? recorded.body['model'] : 'unknown';
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
    res.flushHeaders();
    for (const frame of this.frames(`resp_fake_${this.served}`, model, reply.items)) {
      if (res.destroyed) return;
      res.write(frame);
    }
    res.end();
  }

  private frames(responseId: string, model: string, items: readonly OutputItem[]): string[] {
    let sequence = 0;
    const frames: string[] = [];
    const emit = (type: string, fields: Record<string, unknown>): void => {
      frames.push(`event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: sequence++, ...fields })}\n\n`);
    };
    const response = (status: string, output: unknown[], usage: unknown): Record<string, unknown> => ({
      id: responseId,
      object: 'response',
      created_at: 1_760_000_000,
      status,
      model,
      output,
      previous_response_id: null,
      store: false,
      error: null,
      incomplete_details: null,
      usage,
    });
    emit('response.created', { response: response('in_progress', [], null) });
    emit('response.in_progress', { response: response('in_progress', [], null) });
    items.forEach((item, outputIndex) => {
      const done = wireItem(item);
      switch (item.type) {
        case 'message': {
          emit('response.output_item.added', { output_index: outputIndex, item: { ...done, status: 'in_progress', content: [] } });
          const part = { type: 'output_text', text: '', annotations: [], logprobs: [] };
          emit('response.content_part.added', { item_id: item.id, output_index: outputIndex, content_index: 0, part });
          for (const delta of pieces(item.text)) {
            emit('response.output_text.delta', { item_id: item.id, output_index: outputIndex, content_index: 0, delta, logprobs: [] });
          }
          emit('response.output_text.done', { item_id: item.id, output_index: outputIndex, content_index: 0, text: item.text, logprobs: [] });
          emit('response.content_part.done', { item_id: item.id, output_index: outputIndex, content_index: 0, part: { ...part, text: item.text } });
          break;
        }
        case 'function_call':
          emit('response.output_item.added', { output_index: outputIndex, item: { ...done, arguments: '', status: 'in_progress' } });
          for (const delta of pieces(item.arguments)) {
            emit('response.function_call_arguments.delta', { item_id: item.id, output_index: outputIndex, delta });
          }
          emit('response.function_call_arguments.done', { item_id: item.id, output_index: outputIndex, name: item.name, arguments: item.arguments });
          break;
        case 'compaction':
          emit('response.output_item.added', { output_index: outputIndex, item: done });
          break;
      }
      emit('response.output_item.done', { output_index: outputIndex, item: done });
    });
    const usage = {
      input_tokens: FAKE_USAGE.input,
      input_tokens_details: { cached_tokens: FAKE_USAGE.cached },
      output_tokens: FAKE_USAGE.output,
      output_tokens_details: { reasoning_tokens: FAKE_USAGE.reasoning },
      total_tokens: FAKE_USAGE.input + FAKE_USAGE.output,
    };
    emit('response.completed', { response: response('completed', items.map(wireItem), usage) });
    return frames;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// The scripted model

/** Codex's shell tool in the request's tools: exec_command (`{cmd}`) in 0.169, `shell` (`{command:[...]}`) before. */
function shellTool(req: RecordedRequest): { readonly name: string; readonly arguments: string } | null {
  const tools = Array.isArray(req.body['tools']) ? req.body['tools'].map(asRecord) : [];
  for (const tool of tools) {
    if (tool === null || tool['type'] !== 'function') continue;
    if (tool['name'] === 'exec_command') return { name: 'exec_command', arguments: JSON.stringify({ cmd: `echo ${TOOL_OUTPUT}` }) };
    if (tool['name'] === 'shell') return { name: 'shell', arguments: JSON.stringify({ command: ['bash', '-lc', `echo ${TOOL_OUTPUT}`] }) };
  }
  return null;
}

function functionCallOutput(req: RecordedRequest): Record<string, unknown> | undefined {
  return inputItems(req).find((item) => item['type'] === 'function_call_output');
}

/** The text of a function_call_output's `output` (a string, or a list of input_text parts). */
function outputText(item: Record<string, unknown> | undefined): string {
  const output = item?.['output'];
  return typeof output === 'string' ? output : JSON.stringify(output ?? null);
}

/**
 * Like the real model: a compaction item for a compaction_trigger; a shell tool call when the user asks for one and
 * the history has neither its result nor a compaction; otherwise an answer (quoting the tool's output if it saw one).
 */
function scriptedReply(req: RecordedRequest): ResponsesReply {
  const items = inputItems(req);
  if (lastInputItem(req)?.['type'] === 'compaction_trigger') {
    return { kind: 'items', items: [{ type: 'compaction', id: 'cmp_fake_1', encryptedContent: COMPACTION_CIPHERTEXT }] };
  }
  const result = functionCallOutput(req);
  const compacted = items.some((item) => item['type'] === 'compaction');
  const tool = shellTool(req);
  if (req.raw.includes(TOOL_MARKER) && result === undefined && !compacted && tool !== null) {
    return { kind: 'items', items: [{ type: 'function_call', id: 'fc_fake_1', callId: CALL_ID, ...tool }] };
  }
  if (compacted) return { kind: 'items', items: [{ type: 'message', id: 'msg_after_compaction', text: 'Answer after compaction: done.' }] };
  if (result !== undefined) {
    const seen = outputText(result).includes(TOOL_OUTPUT) ? TOOL_OUTPUT : 'nothing';
    return { kind: 'items', items: [{ type: 'message', id: 'msg_after_tool', text: `The tool printed ${seen}.` }] };
  }
  return { kind: 'items', items: [{ type: 'message', id: 'msg_pong', text: PONG }] };
}

// ---------------------------------------------------------------------------------------------------------------
// Running Codex

interface CodexOptions {
  /** The provider's display name: "OpenAI" switches on remote compaction v2. */
  readonly providerName: string;
  /** Extra top-level config.toml lines. */
  readonly extraConfig?: readonly string[];
  readonly args: readonly string[];
}

/** `codex exec` with a config.toml of clients.md's offline settings, in an empty CODEX_HOME, HOME and cwd. */
async function runCodex(gatewayUrl: string, options: CodexOptions): Promise<AgentRun> {
  const home = await mkdtemp(join(tmpdir(), 'gw-codex-'));
  try {
    const toml = [
      `model = ${JSON.stringify(MODEL)}`,
      'model_provider = "gw"',
      'check_for_update_on_startup = false',
      ...(options.extraConfig ?? []),
      '',
      '[analytics]',
      'enabled = false',
      '',
      '[features]',
      'plugins = false',
      'apps = false',
      '',
      '[model_providers.gw]',
      `name = ${JSON.stringify(options.providerName)}`,
      `base_url = ${JSON.stringify(`${gatewayUrl}/v1`)}`,
      'wire_api = "responses"',
      'env_key = "GW_KEY"',
      '',
    ].join('\n');
    await writeFile(join(home, 'config.toml'), toml);
    // A clean environment: no OPENAI_* or CODEX_* of the machine running the tests may leak in.
    const env: NodeJS.ProcessEnv = {
      PATH: process.env['PATH'] ?? '/usr/bin:/bin',
      HOME: home,
      CODEX_HOME: home,
      GW_KEY: TEST_KEY,
    };
    return await runAgentCli(CODEX, ['exec', '--skip-git-repo-check', ...options.args], env, home);
  } finally {
    await rm(home, { recursive: true, force: true });
  }
}

function describeRun(run: AgentRun): string {
  return `codex exited ${String(run.code)}\nstdout: ${run.stdout}\nstderr: ${run.stderr.slice(-4000)}`;
}

// ---------------------------------------------------------------------------------------------------------------
// Shared checks

/** Every upstream call: the channel's key (never the caller's), the Responses path, streamed, stored nowhere. */
function assertRelayed(calls: readonly RecordedRequest[]): void {
  for (const call of calls) {
    assert.equal(call.method, 'POST');
    assert.equal(call.path, '/v1/responses');
    assert.equal(call.headers['authorization'], `Bearer ${UPSTREAM_KEY}`, 'the channel key replaces the caller key');
    assert.ok(!JSON.stringify(call.headers).includes(TEST_KEY), 'the caller key never reaches the upstream in a header');
    assert.ok(!call.raw.includes(TEST_KEY), 'the caller key never reaches the upstream in the body');
    assert.equal(call.body['model'], MODEL);
    assert.equal(call.body['stream'], true);
    assert.equal(call.body['store'], false);
    // Codex's end-to-end headers go on (the openai dialect forwards them); session-id is the thread id.
    assert.equal(call.headers['session-id'], call.body['prompt_cache_key']);
    assert.equal(call.headers['thread-id'], call.body['prompt_cache_key']);
    assert.equal(typeof call.headers['x-codex-turn-metadata'], 'string');
  }
}

/** One usage record per upstream call, each with the fake's token counts. */
async function assertMetered(recordsBefore: number, calls: number): Promise<void> {
  const all = await gw.usage(); // newest first
  const mine = all.slice(0, all.length - recordsBefore);
  assert.equal(mine.length, calls, 'one usage record per upstream call');
  for (const r of mine) {
    assert.equal(r.route, '/v1/responses');
    assert.equal(r.status, 200);
    assert.equal(r.errorCode, null);
    assert.equal(r.keyName, 'tester');
    assert.equal(r.model, MODEL);
    assert.equal(r.channel, 'x');
    assert.equal(r.stream, true);
    assert.equal(r.aborted, false);
    assert.deepEqual(
      [r.promptTokens, r.cachedTokens, r.cacheWriteTokens, r.completionTokens, r.reasoningTokens],
      [FAKE_USAGE.input, FAKE_USAGE.cached, 0, FAKE_USAGE.output, FAKE_USAGE.reasoning],
    );
  }
}

let upstream: FakeResponses;
let gw: GatewayUnderTest;

before(async () => {
  upstream = await new FakeResponses().start();
  upstream.reply = scriptedReply;
  // channel('x', ...): type openai, keys ["sk-upstream-x"], models ["gpt-*"], cooldown_ms 0. No model list
  // reads (models_refresh_ms 0): the tests count every request this upstream gets.
  gw = await startGatewayUnderTest(configWith(channel('x', upstream.url, '    models_refresh_ms: 0\n')));
});

after(async () => {
  await gw.stop();
  await upstream.close();
});

describe('codex exec through the gateway', () => {
  test('completes a prompt with the upstream text, through /v1/responses with store:false, and is metered', { timeout: 150_000 }, async () => {
    const before = upstream.requests.length;
    const recordsBefore = (await gw.usage()).length;
    const run = await runCodex(gw.url, { providerName: 'Gateway', args: ['say pong'] });
    assert.equal(run.code, 0, describeRun(run));
    assert.match(run.stdout, new RegExp(PONG), describeRun(run));

    const calls = upstream.requests.slice(before);
    assert.equal(calls.length, 1, 'one model call for a one-line prompt');
    assertRelayed(calls);
    const call = calls[0];
    assert.ok(call !== undefined);
    // What Codex sends, passed through unchanged.
    assert.equal(typeof call.body['prompt_cache_key'], 'string');
    assert.notEqual(call.body['prompt_cache_key'], '');
    assert.deepEqual(call.body['include'], ['reasoning.encrypted_content']);
    assert.ok(asRecord(call.body['client_metadata']) !== null, 'client_metadata is forwarded');
    assert.ok(shellTool(call) !== null, 'Codex offers its shell tool');
    const lastUser = lastInputItem(call);
    assert.equal(lastUser?.['role'], 'user');
    assert.match(JSON.stringify(lastUser?.['content']), /say pong/);

    await assertMetered(recordsBefore, calls.length);
  });

  test('runs a shell tool round trip: function_call, the real command, function_call_output, final answer', { timeout: 150_000 }, async () => {
    const before = upstream.requests.length;
    const recordsBefore = (await gw.usage()).length;
    const run = await runCodex(gw.url, {
      providerName: 'Gateway',
      args: ['--dangerously-bypass-approvals-and-sandbox', `${TOOL_MARKER}: print the marker with echo`],
    });
    assert.equal(run.code, 0, describeRun(run));
    assert.match(run.stdout, new RegExp(`The tool printed ${TOOL_OUTPUT}`), describeRun(run));

    const calls = upstream.requests.slice(before);
    assert.equal(calls.length, 2, 'the tool call and the answer after its result');
    assertRelayed(calls);
    const [first, second] = calls;
    assert.ok(first !== undefined && second !== undefined);
    const tool = shellTool(first);
    assert.ok(tool !== null);

    // The function_call goes back as history, then its output with the same call_id.
    const echoed = inputItems(second).find((item) => item['type'] === 'function_call');
    assert.equal(echoed?.['call_id'], CALL_ID);
    assert.equal(echoed?.['name'], tool.name);
    assert.equal(echoed?.['arguments'], tool.arguments, 'the arguments survive the stream deltas unchanged');
    const result = functionCallOutput(second);
    assert.equal(result?.['call_id'], CALL_ID);
    assert.match(outputText(result), new RegExp(TOOL_OUTPUT), 'the command really ran and its output went back');
    // One conversation: the same prompt_cache_key (the thread id) on both calls.
    assert.equal(second.body['prompt_cache_key'], first.body['prompt_cache_key']);

    await assertMetered(recordsBefore, calls.length);
  });

  test('remote compaction v2 (provider "OpenAI"): compaction_trigger, one compaction item, sent back verbatim', { timeout: 150_000 }, async () => {
    const before = upstream.requests.length;
    const recordsBefore = (await gw.usage()).length;
    const run = await runCodex(gw.url, {
      providerName: 'OpenAI',
      extraConfig: ['model_context_window = 4000', 'model_auto_compact_token_limit = 10'],
      args: ['--dangerously-bypass-approvals-and-sandbox', `${TOOL_MARKER}: print the marker with echo`],
    });
    assert.equal(run.code, 0, describeRun(run));
    assert.match(run.stdout, /Answer after compaction: done\./, describeRun(run));

    const calls = upstream.requests.slice(before);
    assertRelayed(calls); // all of them /v1/responses: v2 never calls /v1/responses/compact
    const triggerAt = calls.findIndex((c) => lastInputItem(c)?.['type'] === 'compaction_trigger');
    assert.ok(triggerAt > 0, `a compaction_trigger call after the tool call; saw ${calls.map((c) => String(lastInputItem(c)?.['type'])).join(', ')}`);
    const trigger = calls[triggerAt];
    const next = calls[triggerAt + 1];
    assert.ok(trigger !== undefined);
    assert.ok(next !== undefined, 'a model call after the compaction');
    assert.deepEqual(lastInputItem(trigger), { type: 'compaction_trigger' });
    assert.equal(trigger.body['stream'], true, 'compaction v2 is a streamed /v1/responses call');
    // The beta flag OpenAI reads for compaction_trigger reaches the upstream, and Codex labels the call a compaction.
    assert.match(String(trigger.headers['x-codex-beta-features']), /remote_compaction_v2/);
    assert.equal(asRecord(JSON.parse(String(trigger.headers['x-codex-turn-metadata'])))?.['request_kind'], 'compaction');
    assert.ok(functionCallOutput(trigger) !== undefined, 'the history being compacted holds the tool round trip');

    // The next call carries the compaction item as it was streamed, and the compacted history no longer does.
    const compaction = inputItems(next).filter((item) => item['type'] === 'compaction');
    assert.equal(compaction.length, 1);
    assert.equal(compaction[0]?.['encrypted_content'], COMPACTION_CIPHERTEXT);
    assert.equal(functionCallOutput(next), undefined, 'the compaction replaced the tool round trip');
    assert.ok(!inputItems(next).some((item) => item['type'] === 'compaction_trigger'));
    assert.equal(next.body['prompt_cache_key'], trigger.body['prompt_cache_key']);

    await assertMetered(recordsBefore, calls.length);
  });
});
