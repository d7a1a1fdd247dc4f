// The Responses codec: Codex's real requests into the IR, the IR into a Responses upstream's body, whole answers
// and streams both ways (the stream Codex reads: items added before deltas, done for each, sequence numbers).

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { GatewayError } from '../../../../core/errors.js';
import { createOpenAIResponsesFormat } from '../../../../core/formats/openai-responses/index.js';
import { openaiResponsesCodec as codec } from '../../../../core/formats/openai-responses/codec.js';
import type { ParsedRequest } from '../../../../core/formats/format.js';
import { unwrapProof, wrapProof } from '../../../../core/ir/proof-tag.js';
import type { ChatRequest, FunctionTool, Tool } from '../../../../core/ir/request.js';
import type { ChatResponse } from '../../../../core/ir/response.js';
import type { EncodedFrame, StreamEvent } from '../../../../core/ir/stream.js';
import { BodyBytes } from '../../../../core/formats/body-bytes.js';
import { fixturePath } from '../../../helpers/repo-root.js';

const format = createOpenAIResponsesFormat();

function fixture(name: string): ParsedRequest {
  return format.decodeRequest(BodyBytes.of(readFileSync(fixturePath(`requests/${name}`))));
}

/** A client request given as JSON, through the format's shallow check as the gateway reads it. */
function parsed(json: Record<string, unknown>): ParsedRequest {
  return format.decodeRequest(BodyBytes.of(Buffer.from(JSON.stringify({ model: 'gpt-5.4', ...json }), 'utf8')));
}

function decode(json: Record<string, unknown>): ChatRequest {
  return codec.decodeRequest(parsed(json));
}

function body(buf: Buffer): Record<string, unknown> {
  return JSON.parse(buf.toString('utf8')) as Record<string, unknown>;
}

function rejects(fn: () => unknown, code: string, pattern: RegExp): void {
  assert.throws(fn, (err: unknown) => err instanceof GatewayError && err.code === code && pattern.test(err.message));
}

const BASE: ChatRequest = {
  model: 'gpt-5.4',
  messages: [],
  tools: [],
  toolChoice: null,
  parallelToolCalls: null,
  maxTokens: null,
  temperature: null,
  topP: null,
  stop: [],
  responseFormat: null,
  reasoning: null,
  stream: true,
  conversation: null,
};

describe('decodeRequest: real Codex bodies', () => {
  it('reads the first turn: developer messages as system, namespace flattened, web_search hosted', () => {
    const req = codec.decodeRequest(fixture('codex-responses.json'));
    assert.equal(req.model, 'gpt-5.4');
    assert.equal(req.stream, true);
    assert.equal(req.conversation, '01a1ffea-fe88-7c22-a41e-fe4672e88af4');
    assert.deepEqual(
      req.messages.map((m) => m.role),
      ['system', 'system', 'user', 'user'],
    );
    const last = req.messages[3];
    assert.deepEqual(last?.parts, [{ type: 'text', text: 'say pong' }]);
    assert.match(String(req.messages[0]?.parts[0]?.type === 'text' ? req.messages[0].parts[0].text : ''), /^You are a coding agent/);

    const names = req.tools.map((t) => (t.kind === 'hosted' ? `hosted:${t.type}` : t.name));
    assert.deepEqual(names, [
      'exec_command',
      'write_stdin',
      'request_user_input',
      'view_image',
      'multi_agent_v1__close_agent',
      'multi_agent_v1__resume_agent',
      'multi_agent_v1__send_input',
      'multi_agent_v1__spawn_agent',
      'multi_agent_v1__wait_agent',
      'get_goal',
      'create_goal',
      'update_goal',
      'hosted:web_search',
    ]);
    const member = req.tools[4] as FunctionTool;
    assert.equal(member.namespace, 'multi_agent_v1');
    assert.equal(member.strict, false);
    assert.equal(member.parameters['type'], 'object');
    const hosted = req.tools[12];
    assert.deepEqual(hosted, { kind: 'hosted', dialect: 'openai-responses', type: 'web_search', definition: { type: 'web_search', external_web_access: true } });
    assert.deepEqual(req.toolChoice, { type: 'auto' });
    assert.equal(req.parallelToolCalls, true);
    // reasoning {summary:"auto"} without an effort is no reasoning setting.
    assert.equal(req.reasoning, null);
  });

  it('reads the tool round trip: function_call in an assistant turn, its output as a tool message', () => {
    const req = codec.decodeRequest(fixture('codex-responses-tool-output.json'));
    assert.deepEqual(
      req.messages.map((m) => m.role),
      ['system', 'system', 'user', 'user', 'assistant', 'tool'],
    );
    assert.deepEqual(req.messages[4]?.parts, [{ type: 'tool_call', id: 'call_1', name: 'exec_command', arguments: '{"cmd":"echo hi"}' }]);
    const result = req.messages[5]?.parts[0];
    assert.equal(result?.type, 'tool_result');
    assert.ok(result?.type === 'tool_result');
    assert.equal(result.callId, 'call_1');
    assert.equal(result.isError, false);
    assert.match(result.content[0]?.type === 'text' ? result.content[0].text : '', /Output:\nhi\n$/);
  });

  it('keeps the Codex turn through encodeRequest: system role, namespace nested again, web_search kept', () => {
    const req = codec.decodeRequest(fixture('codex-responses-tool-output.json'));
    const out = body(codec.encodeRequest(req, 'gpt-5.4-upstream'));
    assert.equal(out['model'], 'gpt-5.4-upstream');
    assert.equal(out['store'], false);
    assert.equal(out['stream'], true);
    assert.equal(out['prompt_cache_key'], '01a1ffea-fff0-70c1-87d5-7edb23534b54');
    assert.equal(out['include'], undefined, 'no reasoning setting and no reasoning kept');
    const input = out['input'] as Record<string, unknown>[];
    assert.deepEqual(
      input.map((i) => `${String(i['type'])}:${String(i['role'] ?? '')}`),
      ['message:system', 'message:system', 'message:user', 'message:user', 'function_call:', 'function_call_output:'],
    );
    assert.deepEqual(input[4], { type: 'function_call', call_id: 'call_1', name: 'exec_command', arguments: '{"cmd":"echo hi"}' });
    assert.equal(input[5]?.['call_id'], 'call_1');
    const tools = out['tools'] as Record<string, unknown>[];
    assert.deepEqual(
      tools.map((t) => `${String(t['type'])}:${String(t['name'] ?? '')}`),
      ['function:exec_command', 'function:write_stdin', 'function:request_user_input', 'function:view_image', 'namespace:multi_agent_v1', 'function:get_goal', 'function:create_goal', 'function:update_goal', 'web_search:'],
    );
    const ns = tools[4]?.['tools'] as Record<string, unknown>[];
    assert.deepEqual(
      ns.map((t) => t['name']),
      ['close_agent', 'resume_agent', 'send_input', 'spawn_agent', 'wait_agent'],
    );
    assert.deepEqual(tools[8], { type: 'web_search', external_web_access: true });
    assert.equal(out['tool_choice'], 'auto');
    assert.equal(out['parallel_tool_calls'], true);
  });
});

describe('decodeRequest: items and fields', () => {
  it('puts instructions first and reads a string input as the user message', () => {
    const req = decode({ instructions: 'Be terse.', input: 'hi', max_output_tokens: 500, temperature: 0.2, top_p: 0.9, reasoning: { effort: 'low' } });
    assert.deepEqual(req.messages, [
      { role: 'system', parts: [{ type: 'text', text: 'Be terse.' }] },
      { role: 'user', parts: [{ type: 'text', text: 'hi' }] },
    ]);
    assert.equal(req.maxTokens, 500);
    assert.equal(req.temperature, 0.2);
    assert.equal(req.topP, 0.9);
    assert.deepEqual(req.reasoning, { effort: 'low', budgetTokens: null });
    assert.equal(req.stream, false);
  });

  it('groups reasoning, assistant text and consecutive calls into one assistant turn', () => {
    const req = decode({
      input: [
        { role: 'user', content: 'look' },
        { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'a' }, { type: 'summary_text', text: 'b' }], encrypted_content: 'ENC' },
        { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Looking.' }] },
        { type: 'function_call', call_id: 'c1', name: 'read', arguments: '{"p":1}' },
        { type: 'function_call', call_id: 'c2', name: 'spawn_agent', namespace: 'multi_agent_v1', arguments: '{}' },
        { type: 'function_call_output', call_id: 'c1', output: 'one' },
        { type: 'function_call_output', call_id: 'c2', output: [{ type: 'input_text', text: 'two' }, { type: 'input_image', image_url: 'data:image/png;base64,AAAA', detail: 'low' }] },
        { type: 'reasoning', id: 'rs_2', summary: [], content: [{ type: 'reasoning_text', text: 'raw' }] },
        { type: 'custom_tool_call', call_id: 'c3', name: 'apply_patch', input: '*** Begin Patch' },
        { type: 'custom_tool_call_output', call_id: 'c3', output: 'done' },
      ],
    });
    assert.deepEqual(
      req.messages.map((m) => m.role),
      ['user', 'assistant', 'tool', 'tool', 'assistant', 'tool'],
    );
    assert.deepEqual(req.messages[1]?.parts, [
      { type: 'reasoning', text: 'a\n\nb', proof: { dialect: 'openai-responses', value: 'ENC', id: 'rs_1' } },
      { type: 'text', text: 'Looking.' },
      { type: 'tool_call', id: 'c1', name: 'read', arguments: '{"p":1}' },
      { type: 'tool_call', id: 'c2', name: 'multi_agent_v1__spawn_agent', arguments: '{}' },
    ]);
    assert.deepEqual(req.messages[3]?.parts[0], {
      type: 'tool_result',
      callId: 'c2',
      content: [
        { type: 'text', text: 'two' },
        { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'AAAA' }, detail: 'low' },
      ],
      isError: false,
    });
    assert.deepEqual(req.messages[4]?.parts, [
      { type: 'reasoning', text: 'raw', proof: null },
      { type: 'tool_call', id: 'c3', name: 'apply_patch', arguments: '*** Begin Patch', custom: true },
    ]);
    assert.deepEqual(req.messages[5]?.parts[0], { type: 'tool_result', callId: 'c3', content: [{ type: 'text', text: 'done' }], isError: false, custom: true });
  });

  it('unwraps a proof the gateway gave this client for reasoning of another dialect', () => {
    const proof = { dialect: 'anthropic-messages' as const, value: 'SIG' };
    const req = decode({
      input: [
        { role: 'user', content: 'q' },
        { type: 'reasoning', id: 'rs_x_0', summary: [{ type: 'summary_text', text: 'shown' }], encrypted_content: wrapProof(proof, 'original thinking') },
      ],
    });
    assert.deepEqual(req.messages[1]?.parts, [{ type: 'reasoning', text: 'original thinking', proof }]);
  });

  it('reads tools of every kind, tool_choice and text.format', () => {
    const req = decode({
      input: [{ type: 'additional_tools', role: 'developer', tools: [{ type: 'function', name: 'late', parameters: { type: 'object' } }] }, { role: 'user', content: 'x' }],
      tools: [
        { type: 'custom', name: 'apply_patch', description: 'Patch files', format: { type: 'grammar', syntax: 'lark', definition: 'start: "x"' } },
        { type: 'function', name: 'f', description: 'F', parameters: { type: 'object', properties: {} }, strict: true },
        { type: 'shell' },
      ],
      tool_choice: { type: 'custom', name: 'apply_patch' },
      text: { format: { type: 'json_schema', name: 'out', schema: { type: 'object' }, strict: true } },
    });
    assert.deepEqual(req.tools, [
      { kind: 'custom', name: 'apply_patch', description: 'Patch files' },
      { kind: 'function', name: 'f', description: 'F', parameters: { type: 'object', properties: {} }, strict: true },
      { kind: 'hosted', dialect: 'openai-responses', type: 'shell', definition: { type: 'shell' } },
      { kind: 'function', name: 'late', description: null, parameters: { type: 'object' }, strict: null },
    ]);
    assert.deepEqual(req.toolChoice, { type: 'tool', name: 'apply_patch' });
    assert.deepEqual(req.responseFormat, { type: 'json_schema', name: 'out', schema: { type: 'object' }, strict: true, description: null });
    assert.equal(req.messages.length, 1, 'additional_tools is no message');
    assert.deepEqual(decode({ input: 'x', tool_choice: { type: 'function', name: 'f' } }).toolChoice, { type: 'tool', name: 'f' });
    assert.deepEqual(decode({ input: 'x', text: { format: { type: 'json_object' } } }).responseFormat, { type: 'json_object' });
    assert.equal(decode({ input: 'x', text: { format: { type: 'text' }, verbosity: 'low' } }).responseFormat, null);
  });

  it('ignores fields that do not change the answer', () => {
    const req = decode({
      input: 'x',
      include: ['reasoning.encrypted_content'],
      store: false,
      client_metadata: { a: '1' },
      metadata: { b: '2' },
      truncation: 'auto',
      service_tier: 'priority',
      prompt_cache_retention: '24h',
      safety_identifier: 's',
      user: 'u',
    });
    assert.equal(req.messages.length, 1);
  });

  it('refuses what only an OpenAI upstream can serve, naming it', () => {
    for (const type of ['compaction', 'compaction_trigger', 'item_reference', 'web_search_call']) {
      rejects(() => decode({ input: [{ role: 'user', content: 'x' }, { type, id: 'i', encrypted_content: 'E' }] }), 'GW_ERR_TRANSLATION_UNSUPPORTED', new RegExp(`^Input item type "${type}" has no counterpart on this model's upstream; `));
    }
    const err = (() => {
      try {
        decode({ input: [{ type: 'compaction_trigger' }] });
      } catch (e) {
        return e;
      }
      return null;
    })();
    assert.ok(err instanceof GatewayError && err.param === 'input[0]' && err.status === 400);
    rejects(() => decode({ input: 'x', previous_response_id: 'resp_1' }), 'GW_ERR_TRANSLATION_UNSUPPORTED', /previous_response_id/);
    rejects(() => decode({ input: 'x', conversation: 'conv_1' }), 'GW_ERR_TRANSLATION_UNSUPPORTED', /conversation/);
    rejects(() => decode({ input: 'x', background: true }), 'GW_ERR_TRANSLATION_UNSUPPORTED', /background/);
    rejects(() => decode({ input: 'x', tools: [{ type: 'frobnicate' }] }), 'GW_ERR_TRANSLATION_UNSUPPORTED', /^Tool type "frobnicate" cannot be translated for this model's upstream\.$/);
    rejects(() => decode({ input: [{ role: 'user', content: [{ type: 'input_file', file_id: 'f' }] }] }), 'GW_ERR_TRANSLATION_UNSUPPORTED', /input_file/);
    rejects(() => decode({ input: 'x', reasoning: { effort: 'extreme' } }), 'GW_ERR_REQUEST_INVALID_FIELD', /reasoning\.effort/);
  });
});

describe('encodeRequest toward a Responses upstream', () => {
  const anthropicProof = { dialect: 'anthropic-messages' as const, value: 'SIG' };
  const responsesProof = { dialect: 'openai-responses' as const, value: 'ENC', id: 'rs_9' };

  it('keeps only reasoning this dialect wrote, asks for encrypted content, and hashes long cache keys', () => {
    const out = body(
      codec.encodeRequest(
        {
          ...BASE,
          messages: [
            { role: 'user', parts: [{ type: 'text', text: 'q' }, { type: 'image', source: { kind: 'url', url: 'https://x/a.png' } }] },
            {
              role: 'assistant',
              parts: [
                { type: 'reasoning', text: 'theirs', proof: anthropicProof },
                { type: 'reasoning', text: 'none', proof: null },
                { type: 'reasoning', text: 'ours', proof: responsesProof },
                { type: 'text', text: 'a' },
                { type: 'text', text: 'b' },
                { type: 'tool_call', id: 'c1', name: 'f', arguments: '{}' },
              ],
            },
            { role: 'tool', parts: [{ type: 'tool_result', callId: 'c1', content: [], isError: true }] },
          ],
          conversation: 'k'.repeat(80),
          stream: false,
        },
        'gpt-up',
      ),
    );
    assert.deepEqual(out['input'], [
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'q' }, { type: 'input_image', image_url: 'https://x/a.png', detail: 'auto' }] },
      { type: 'reasoning', id: 'rs_9', summary: [{ type: 'summary_text', text: 'ours' }], encrypted_content: 'ENC' },
      { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'a', annotations: [] }, { type: 'output_text', text: 'b', annotations: [] }] },
      { type: 'function_call', call_id: 'c1', name: 'f', arguments: '{}' },
      { type: 'function_call_output', call_id: 'c1', output: '' },
    ]);
    assert.deepEqual(out['include'], ['reasoning.encrypted_content']);
    assert.equal(out['reasoning'], undefined);
    assert.equal(out['stream'], false);
    assert.equal(out['store'], false);
    const key = out['prompt_cache_key'] as string;
    assert.equal(key.length, 43);
    assert.equal(body(codec.encodeRequest({ ...BASE, conversation: 'k'.repeat(80) }, 'm'))['prompt_cache_key'], key, 'stable');
  });

  it('writes calls of custom tools as custom calls and turns the wrapped {"input"} back into the input', () => {
    const tools: Tool[] = [{ kind: 'custom', name: 'apply_patch', description: null }];
    const out = body(
      codec.encodeRequest(
        {
          ...BASE,
          tools,
          messages: [
            { role: 'assistant', parts: [{ type: 'tool_call', id: 'c1', name: 'apply_patch', arguments: '{"input":"*** Begin Patch"}' }] },
            { role: 'tool', parts: [{ type: 'tool_result', callId: 'c1', content: [{ type: 'text', text: 'ok' }], isError: false }] },
          ],
        },
        'm',
      ),
    );
    assert.deepEqual(out['input'], [
      { type: 'custom_tool_call', call_id: 'c1', name: 'apply_patch', input: '*** Begin Patch' },
      { type: 'function_call_output', call_id: 'c1', output: 'ok' },
    ]);
    assert.deepEqual(out['tools'], [{ type: 'custom', name: 'apply_patch' }]);
  });

  it('maps reasoning settings, formats and tools of other dialects', () => {
    const fromBudget = body(codec.encodeRequest({ ...BASE, reasoning: { effort: null, budgetTokens: 10000 }, maxTokens: 2000, stop: ['END'] }, 'm'));
    assert.deepEqual(fromBudget['reasoning'], { effort: 'high', summary: 'auto' });
    assert.deepEqual(fromBudget['include'], ['reasoning.encrypted_content']);
    assert.equal(fromBudget['max_output_tokens'], 2000);
    assert.equal(fromBudget['stop'], undefined);
    assert.deepEqual(body(codec.encodeRequest({ ...BASE, reasoning: { effort: 'max', budgetTokens: null } }, 'm'))['reasoning'], { effort: 'xhigh', summary: 'auto' });
    assert.deepEqual(
      body(codec.encodeRequest({ ...BASE, responseFormat: { type: 'json_schema', name: 'o', schema: { type: 'object' }, strict: null, description: null } }, 'm'))['text'],
      { format: { type: 'json_schema', name: 'o', schema: { type: 'object' } } },
    );

    const search: Tool = { kind: 'hosted', dialect: 'anthropic-messages', type: 'web_search_20250305', definition: { type: 'web_search_20250305', name: 'web_search' } };
    const fn: Tool = { kind: 'function', name: 'f', description: null, parameters: { type: 'object' }, strict: null };
    const out = body(codec.encodeRequest({ ...BASE, tools: [search, fn], toolChoice: { type: 'tool', name: 'f' }, parallelToolCalls: false }, 'm'));
    assert.deepEqual(out['tools'], [{ type: 'function', name: 'f', parameters: { type: 'object' }, strict: false }]);
    assert.deepEqual(out['tool_choice'], { type: 'function', name: 'f' });
    assert.equal(out['parallel_tool_calls'], false);
    // Only a dropped web search: no tools, so no tool_choice either.
    const none = body(codec.encodeRequest({ ...BASE, tools: [search], toolChoice: { type: 'auto' } }, 'm'));
    assert.equal(none['tools'], undefined);
    assert.equal(none['tool_choice'], undefined);

    const bash: Tool = { kind: 'hosted', dialect: 'anthropic-messages', type: 'bash_20250124', definition: { type: 'bash_20250124', name: 'bash' } };
    rejects(() => codec.encodeRequest({ ...BASE, tools: [fn, bash] }, 'm'), 'GW_ERR_TRANSLATION_UNSUPPORTED', /^Tool type "bash_20250124" cannot be translated/);
  });

  it('decode(encode(x)) gives x back for what Responses carries', () => {
    const original: ChatRequest = {
      ...BASE,
      messages: [
        { role: 'system', parts: [{ type: 'text', text: 'sys' }] },
        { role: 'user', parts: [{ type: 'text', text: 'hi' }, { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'AAAA' }, detail: 'high' }] },
        {
          role: 'assistant',
          parts: [
            { type: 'reasoning', text: 'thought', proof: responsesProof },
            { type: 'reasoning', text: '', proof: { dialect: 'openai-responses', value: 'ENC2', id: 'rs_10' } },
            { type: 'text', text: 'calling' },
            { type: 'tool_call', id: 'c1', name: 'ns__member', arguments: '{"a":1}' },
            { type: 'tool_call', id: 'c2', name: 'apply_patch', arguments: 'raw input', custom: true },
          ],
        },
        { role: 'tool', parts: [{ type: 'tool_result', callId: 'c1', content: [{ type: 'text', text: 'r1' }], isError: false }] },
        { role: 'tool', parts: [{ type: 'tool_result', callId: 'c2', content: [{ type: 'text', text: 'r2' }, { type: 'image', source: { kind: 'url', url: 'https://x/b.png' }, detail: 'auto' }], isError: false, custom: true }] },
        { role: 'assistant', parts: [{ type: 'text', text: 'done' }] },
      ],
      tools: [
        { kind: 'function', name: 'plain', description: 'P', parameters: { type: 'object', properties: { x: { type: 'string' } } }, strict: true },
        { kind: 'function', name: 'ns__member', namespace: 'ns', description: null, parameters: { type: 'object' }, strict: false },
        { kind: 'function', name: 'ns__other', namespace: 'ns', description: 'O', parameters: { type: 'object' }, strict: false },
        { kind: 'custom', name: 'apply_patch', description: 'patch' },
        { kind: 'hosted', dialect: 'openai-responses', type: 'web_search', definition: { type: 'web_search' } },
      ],
      toolChoice: { type: 'tool', name: 'ns__member' },
      parallelToolCalls: true,
      maxTokens: 1000,
      temperature: 0.5,
      topP: 0.8,
      responseFormat: { type: 'json_schema', name: 'o', schema: { type: 'object' }, strict: true, description: 'd' },
      reasoning: { effort: 'high', budgetTokens: null },
      stream: true,
      conversation: 'thread-1',
    };
    const again = codec.decodeRequest(format.decodeRequest(BodyBytes.of(codec.encodeRequest(original, 'gpt-5.4'))));
    assert.deepEqual(again, original);
  });
});

describe('whole answers', () => {
  it('decodes an upstream response: reasoning proof, namespaced call, text, usage, finish', () => {
    const upstream = {
      id: 'resp_1',
      object: 'response',
      created_at: 1760000000,
      status: 'completed',
      model: 'gpt-5.4-2026',
      output: [
        { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'Looked.' }], encrypted_content: 'gAAA' },
        { type: 'message', id: 'msg_1', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'A cat.', annotations: [] }] },
        { type: 'function_call', id: 'fc_1', call_id: 'call_a1', name: 'spawn_agent', namespace: 'multi_agent_v1', arguments: '{"q":"cat"}', status: 'completed' },
        { type: 'web_search_call', id: 'ws_1', status: 'completed' },
      ],
      usage: { input_tokens: 900, input_tokens_details: { cached_tokens: 768 }, output_tokens: 120, output_tokens_details: { reasoning_tokens: 64 }, total_tokens: 1020 },
    };
    const res = codec.decodeResponse(Buffer.from(JSON.stringify(upstream)));
    assert.deepEqual(res, {
      id: 'resp_1',
      model: 'gpt-5.4-2026',
      created: 1760000000,
      parts: [
        { type: 'reasoning', text: 'Looked.', proof: { dialect: 'openai-responses', value: 'gAAA', id: 'rs_1' } },
        { type: 'text', text: 'A cat.' },
        { type: 'tool_call', id: 'call_a1', name: 'multi_agent_v1__spawn_agent', arguments: '{"q":"cat"}' },
      ],
      finish: 'tool_calls',
      stopSequence: null,
      usage: { promptTokens: 900, completionTokens: 120, cachedTokens: 768, cacheWriteTokens: 0, reasoningTokens: 64 },
    });
    const cut = codec.decodeResponse(Buffer.from(JSON.stringify({ ...upstream, status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' }, output: [] })));
    assert.equal(cut.finish, 'length');
    const filtered = codec.decodeResponse(Buffer.from(JSON.stringify({ ...upstream, status: 'incomplete', incomplete_details: { reason: 'content_filter' }, output: [] })));
    assert.equal(filtered.finish, 'content_filter');
    assert.equal(codec.decodeResponse(Buffer.from(JSON.stringify({ ...upstream, output: [upstream.output[1]] }))).finish, 'stop');
    assert.throws(() => codec.decodeResponse(Buffer.from('<html>')), GatewayError);
    assert.throws(
      () => codec.decodeResponse(Buffer.from(JSON.stringify({ ...upstream, status: 'failed', error: { code: 'server_error', message: 'boom' } }))),
      (err: unknown) => err instanceof GatewayError && err.message === 'boom',
    );
  });

  it('encodes an answer of another dialect for a Responses client, and its items come back as they were', () => {
    const request = decode({
      input: 'go',
      tools: [
        { type: 'custom', name: 'apply_patch' },
        { type: 'namespace', name: 'multi_agent_v1', description: 'agents', tools: [{ type: 'function', name: 'spawn_agent', parameters: { type: 'object' } }] },
      ],
    });
    const thinking = { dialect: 'anthropic-messages' as const, value: 'SIG' };
    const answer: ChatResponse = {
      id: 'msg_01Ab',
      model: 'claude-sonnet-4-5',
      created: 1760000000,
      parts: [
        { type: 'reasoning', text: 'think', proof: thinking },
        { type: 'text', text: 'Patching.' },
        { type: 'tool_call', id: 'toolu_1', name: 'apply_patch', arguments: '{"input":"*** Begin Patch"}' },
        { type: 'tool_call', id: 'toolu_2', name: 'multi_agent_v1__spawn_agent', arguments: '{"n":1}' },
      ],
      finish: 'tool_calls',
      stopSequence: null,
      usage: { promptTokens: 100, completionTokens: 20, cachedTokens: 50, cacheWriteTokens: 10, reasoningTokens: 5 },
    };
    const out = body(codec.encodeResponse(answer, request));
    assert.equal(out['id'], 'resp_msg_01Ab');
    assert.equal(out['object'], 'response');
    assert.equal(out['status'], 'completed');
    assert.equal(out['model'], 'claude-sonnet-4-5');
    assert.deepEqual(out['usage'], {
      input_tokens: 100,
      input_tokens_details: { cached_tokens: 50, cache_write_tokens: 10 },
      output_tokens: 20,
      output_tokens_details: { reasoning_tokens: 5 },
      total_tokens: 120,
    });
    const output = out['output'] as Record<string, unknown>[];
    assert.equal(output[0]?.['id'], 'rs_msg_01Ab_0');
    assert.deepEqual(output[0]?.['summary'], [{ type: 'summary_text', text: 'think' }]);
    assert.deepEqual(unwrapProof(String(output[0]?.['encrypted_content'])), { proof: thinking, text: 'think' });
    assert.deepEqual(output[1], { id: 'msg_msg_01Ab_1', type: 'message', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: 'Patching.', annotations: [] }] });
    assert.deepEqual(output[2], { id: 'ctc_toolu_1', type: 'custom_tool_call', status: 'completed', call_id: 'toolu_1', name: 'apply_patch', input: '*** Begin Patch' });
    assert.deepEqual(output[3], { id: 'fc_toolu_2', type: 'function_call', status: 'completed', call_id: 'toolu_2', name: 'spawn_agent', namespace: 'multi_agent_v1', arguments: '{"n":1}' });

    // Codex sends the items back as the next request's input: the IR gets the original parts.
    const next = decode({ input: [{ role: 'user', content: 'go' }, ...output] });
    assert.deepEqual(next.messages[1]?.parts, [
      { type: 'reasoning', text: 'think', proof: thinking },
      { type: 'text', text: 'Patching.' },
      { type: 'tool_call', id: 'toolu_1', name: 'apply_patch', arguments: '*** Begin Patch', custom: true },
      { type: 'tool_call', id: 'toolu_2', name: 'multi_agent_v1__spawn_agent', arguments: '{"n":1}' },
    ]);

    const cut = body(codec.encodeResponse({ ...answer, parts: [], finish: 'length', usage: null }, request));
    assert.equal(cut['status'], 'incomplete');
    assert.deepEqual(cut['incomplete_details'], { reason: 'max_output_tokens' });
    assert.equal((cut['usage'] as Record<string, unknown>)['total_tokens'], 0);
  });

  it('decodes OpenAI error bodies', () => {
    const err = codec.decodeError(400, Buffer.from(JSON.stringify({ error: { message: 'Too long', type: 'invalid_request_error', param: 'input', code: 'context_length_exceeded' } })));
    assert.equal(err.code, 'GW_ERR_UPSTREAM_BAD_REQUEST');
    assert.equal(err.message, 'Too long');
    assert.equal(err.wireCode, 'context_length_exceeded');
    assert.equal(err.upstreamStatus, 400);
    assert.equal(codec.decodeError(429, Buffer.from('{"error":{"message":"slow down","type":"requests","code":"rate_limit_exceeded"}}')).code, 'GW_ERR_UPSTREAM_RATE_LIMITED');
    const html = codec.decodeError(502, Buffer.from('<html>bad gateway</html>'));
    assert.equal(html.code, 'GW_ERR_UPSTREAM_ERROR');
    assert.equal(html.message, 'The upstream answered HTTP 502.');
  });
});

// ---- Streams ----

function sse(type: string, fields: Record<string, unknown>, n: number): [string, string] {
  return [type, JSON.stringify({ type, sequence_number: n, ...fields })];
}

function decodeStream(frames: readonly [string | null, string][]): { events: StreamEvent[]; end: () => readonly StreamEvent[] } {
  const decoder = codec.createStreamDecoder();
  const events = frames.flatMap(([event, data]) => [...decoder.push(event, data)]);
  return { events, end: () => decoder.end() };
}

const RESPONSE = { id: 'resp_1', object: 'response', created_at: 1760000000, status: 'in_progress', model: 'gpt-5.4', output: [], usage: null };
const USAGE = { input_tokens: 10, input_tokens_details: { cached_tokens: 4 }, output_tokens: 7, output_tokens_details: { reasoning_tokens: 3 }, total_tokens: 17 };
const IR_USAGE = { promptTokens: 10, completionTokens: 7, cachedTokens: 4, cacheWriteTokens: 0, reasoningTokens: 3 };
const START: StreamEvent = { type: 'start', id: 'resp_1', model: 'gpt-5.4', created: 1760000000, usage: null };

function completed(output: unknown[], status = 'completed', extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { response: { ...RESPONSE, status, output, usage: USAGE, ...extra } };
}

describe('stream decoder (Responses upstream)', () => {
  it('text', () => {
    const item = { id: 'msg_1', type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'Hello world', annotations: [] }] };
    const { events, end } = decodeStream([
      sse('response.created', { response: RESPONSE }, 0),
      sse('response.in_progress', { response: RESPONSE }, 1),
      sse('response.output_item.added', { output_index: 0, item: { ...item, status: 'in_progress', content: [] } }, 2),
      sse('response.content_part.added', { item_id: 'msg_1', output_index: 0, content_index: 0, part: { type: 'output_text', text: '', annotations: [] } }, 3),
      sse('response.output_text.delta', { item_id: 'msg_1', output_index: 0, content_index: 0, delta: 'Hello', logprobs: [] }, 4),
      sse('response.output_text.delta', { item_id: 'msg_1', output_index: 0, content_index: 0, delta: ' world', logprobs: [] }, 5),
      sse('response.output_text.done', { item_id: 'msg_1', output_index: 0, content_index: 0, text: 'Hello world' }, 6),
      sse('response.content_part.done', { item_id: 'msg_1', output_index: 0, content_index: 0, part: item.content[0] }, 7),
      sse('response.output_item.done', { output_index: 0, item }, 8),
      sse('response.completed', completed([item]), 9),
    ]);
    assert.deepEqual(events, [
      START,
      { type: 'block_start', index: 0, block: { type: 'text' } },
      { type: 'text_delta', index: 0, text: 'Hello' },
      { type: 'text_delta', index: 0, text: ' world' },
      { type: 'block_stop', index: 0 },
      { type: 'usage', usage: IR_USAGE },
      { type: 'finish', reason: 'stop', stopSequence: null },
    ]);
    assert.deepEqual(end(), []);
  });

  it('reasoning with its proof, summary parts joined by a blank line; then a length cut', () => {
    const item = { id: 'rs_1', type: 'reasoning', summary: [{ type: 'summary_text', text: 'A' }, { type: 'summary_text', text: 'B' }], encrypted_content: 'gAAA' };
    const at = { item_id: 'rs_1', output_index: 0 };
    const { events } = decodeStream([
      sse('response.created', { response: RESPONSE }, 0),
      sse('response.output_item.added', { output_index: 0, item: { id: 'rs_1', type: 'reasoning', summary: [] } }, 1),
      sse('response.reasoning_summary_part.added', { ...at, summary_index: 0, part: { type: 'summary_text', text: '' } }, 2),
      sse('response.reasoning_summary_text.delta', { ...at, summary_index: 0, delta: 'A' }, 3),
      sse('response.reasoning_summary_text.done', { ...at, summary_index: 0, text: 'A' }, 4),
      sse('response.reasoning_summary_part.done', { ...at, summary_index: 0 }, 5),
      sse('response.reasoning_summary_part.added', { ...at, summary_index: 1, part: { type: 'summary_text', text: '' } }, 6),
      sse('response.reasoning_summary_text.delta', { ...at, summary_index: 1, delta: 'B' }, 7),
      sse('response.output_item.done', { output_index: 0, item }, 8),
      sse('response.incomplete', completed([item], 'incomplete', { incomplete_details: { reason: 'max_output_tokens' } }), 9),
    ]);
    assert.deepEqual(events, [
      START,
      { type: 'block_start', index: 0, block: { type: 'reasoning' } },
      { type: 'reasoning_delta', index: 0, text: 'A' },
      { type: 'reasoning_delta', index: 0, text: '\n\n' },
      { type: 'reasoning_delta', index: 0, text: 'B' },
      { type: 'reasoning_proof', index: 0, proof: { dialect: 'openai-responses', value: 'gAAA', id: 'rs_1' } },
      { type: 'block_stop', index: 0 },
      { type: 'usage', usage: IR_USAGE },
      { type: 'finish', reason: 'length', stopSequence: null },
    ]);
  });

  it('two parallel tool calls, one namespaced, and a custom tool call', () => {
    const fc1 = { id: 'fc_1', type: 'function_call', status: 'completed', call_id: 'call_1', name: 'exec_command', arguments: '{"cmd":"ls"}' };
    const fc2 = { id: 'fc_2', type: 'function_call', status: 'completed', call_id: 'call_2', name: 'spawn_agent', namespace: 'multi_agent_v1', arguments: '{}' };
    const ctc = { id: 'ctc_3', type: 'custom_tool_call', status: 'completed', call_id: 'call_3', name: 'apply_patch', input: 'PATCH' };
    const { events, end } = decodeStream([
      sse('response.created', { response: RESPONSE }, 0),
      sse('response.output_item.added', { output_index: 0, item: { ...fc1, status: 'in_progress', arguments: '' } }, 1),
      sse('response.function_call_arguments.delta', { item_id: 'fc_1', output_index: 0, delta: '{"cmd":' }, 2),
      sse('response.function_call_arguments.delta', { item_id: 'fc_1', output_index: 0, delta: '"ls"}' }, 3),
      sse('response.function_call_arguments.done', { item_id: 'fc_1', output_index: 0, arguments: fc1.arguments }, 4),
      sse('response.output_item.done', { output_index: 0, item: fc1 }, 5),
      sse('response.output_item.added', { output_index: 1, item: { ...fc2, status: 'in_progress', arguments: '' } }, 6),
      // No deltas: the arguments come whole with .done.
      sse('response.function_call_arguments.done', { item_id: 'fc_2', output_index: 1, arguments: '{}' }, 7),
      sse('response.output_item.done', { output_index: 1, item: fc2 }, 8),
      sse('response.output_item.added', { output_index: 2, item: { ...ctc, status: 'in_progress', input: '' } }, 9),
      sse('response.custom_tool_call_input.delta', { item_id: 'ctc_3', output_index: 2, delta: 'PAT' }, 10),
      sse('response.custom_tool_call_input.delta', { item_id: 'ctc_3', output_index: 2, delta: 'CH' }, 11),
      sse('response.output_item.done', { output_index: 2, item: ctc }, 12),
      sse('response.completed', completed([fc1, fc2, ctc]), 13),
    ]);
    assert.deepEqual(events, [
      START,
      { type: 'block_start', index: 0, block: { type: 'tool_call', id: 'call_1', name: 'exec_command' } },
      { type: 'arguments_delta', index: 0, json: '{"cmd":' },
      { type: 'arguments_delta', index: 0, json: '"ls"}' },
      { type: 'block_stop', index: 0 },
      { type: 'block_start', index: 1, block: { type: 'tool_call', id: 'call_2', name: 'multi_agent_v1__spawn_agent' } },
      { type: 'arguments_delta', index: 1, json: '{}' },
      { type: 'block_stop', index: 1 },
      { type: 'block_start', index: 2, block: { type: 'tool_call', id: 'call_3', name: 'apply_patch', custom: true } },
      { type: 'arguments_delta', index: 2, json: 'PAT' },
      { type: 'arguments_delta', index: 2, json: 'CH' },
      { type: 'block_stop', index: 2 },
      { type: 'usage', usage: IR_USAGE },
      { type: 'finish', reason: 'tool_calls', stopSequence: null },
    ]);
    assert.deepEqual(end(), []);
  });

  it('an upstream error mid-stream is one error event, and nothing after it', () => {
    const { events, end } = decodeStream([
      sse('response.created', { response: RESPONSE }, 0),
      sse('response.output_item.added', { output_index: 0, item: { id: 'msg_1', type: 'message', role: 'assistant', content: [] } }, 1),
      sse('response.content_part.added', { item_id: 'msg_1', output_index: 0, content_index: 0, part: { type: 'output_text', text: '' } }, 2),
      sse('response.output_text.delta', { item_id: 'msg_1', output_index: 0, content_index: 0, delta: 'Hi' }, 3),
      sse('error', { code: 'rate_limit_exceeded', message: 'Rate limit reached. Please try again in 2s.', param: null }, 4),
      sse('response.failed', { response: { ...RESPONSE, status: 'failed', error: { code: 'rate_limit_exceeded', message: 'x' } } }, 5),
    ]);
    assert.deepEqual(
      events.map((e) => e.type),
      ['start', 'block_start', 'text_delta', 'error'],
    );
    const last = events[3];
    assert.ok(last?.type === 'error');
    assert.equal(last.error.code, 'GW_ERR_UPSTREAM_RATE_LIMITED');
    assert.equal(last.error.message, 'Rate limit reached. Please try again in 2s.');
    assert.deepEqual(end(), []);

    const failed = decodeStream([
      sse('response.created', { response: RESPONSE }, 0),
      sse('response.failed', { response: { ...RESPONSE, status: 'failed', error: { code: 'server_error', message: 'The server had an error.' } } }, 1),
    ]).events;
    assert.equal(failed[1]?.type, 'error');
    assert.ok(failed[1]?.type === 'error' && failed[1].error.code === 'GW_ERR_UPSTREAM_ERROR' && failed[1].error.wireCode === 'server_error');
  });

  it('a stream cut before response.completed makes end() throw', () => {
    const { events, end } = decodeStream([
      sse('response.created', { response: RESPONSE }, 0),
      sse('response.output_item.added', { output_index: 0, item: { id: 'msg_1', type: 'message', role: 'assistant', content: [] } }, 1),
      sse('response.content_part.added', { item_id: 'msg_1', output_index: 0, content_index: 0, part: { type: 'output_text', text: '' } }, 2),
      sse('response.output_text.delta', { item_id: 'msg_1', output_index: 0, content_index: 0, delta: 'Hi' }, 3),
      [null, '[DONE]'],
    ]);
    assert.equal(events.length, 3);
    assert.throws(end, (err: unknown) => err instanceof GatewayError && err.code === 'GW_ERR_UPSTREAM_STREAM_BROKEN');
  });
});

// ---- Stream encoder ----

interface Frame {
  readonly type: string;
  readonly data: Record<string, unknown>;
}

/** The frames as Codex reads them, after checking what it depends on. */
function encodeStream(request: ChatRequest, events: readonly StreamEvent[], withEnd = true): Frame[] {
  const encoder = codec.createStreamEncoder(request);
  const raw: EncodedFrame[] = events.flatMap((e) => [...encoder.push(e)]);
  if (withEnd) raw.push(...encoder.end());
  const frames = raw.map((f) => {
    const data = JSON.parse(f.data) as Record<string, unknown>;
    assert.equal(f.event, data['type'], 'event name = data.type');
    return { type: String(data['type']), data };
  });
  frames.forEach((f, i) => assert.equal(f.data['sequence_number'], i, `sequence_number of frame ${i}`));
  // Every item is added before anything refers to it, and done exactly once.
  const added = new Set<string>();
  const done = new Set<string>();
  for (const f of frames) {
    const item = f.data['item'] as Record<string, unknown> | undefined;
    if (f.type === 'response.output_item.added') added.add(String(item?.['id']));
    else if (f.type === 'response.output_item.done') {
      const id = String(item?.['id']);
      assert.ok(added.has(id), `${id} added before done`);
      assert.ok(!done.has(id), `${id} done once`);
      done.add(id);
    } else if (typeof f.data['item_id'] === 'string') {
      assert.ok(added.has(f.data['item_id']), `${f.type} after its item was added`);
      assert.ok(!done.has(f.data['item_id']), `${f.type} before its item is done`);
    }
  }
  if (withEnd && frames.at(-1)?.type !== 'response.failed') assert.deepEqual([...added].sort(), [...done].sort(), 'every item done');
  return frames;
}

function types(frames: readonly Frame[]): string[] {
  return frames.map((f) => f.type.replace(/^response\./, ''));
}

function terminalResponse(frames: readonly Frame[]): Record<string, unknown> {
  return frames.at(-1)?.data['response'] as Record<string, unknown>;
}

const ANTHROPIC_START: StreamEvent = { type: 'start', id: 'msg_01', model: 'claude-sonnet-4-5', created: 1760000000, usage: null };

describe('stream encoder (Responses client)', () => {
  it('text', () => {
    const frames = encodeStream({ ...BASE }, [
      ANTHROPIC_START,
      { type: 'block_start', index: 0, block: { type: 'text' } },
      { type: 'text_delta', index: 0, text: 'po' },
      { type: 'text_delta', index: 0, text: 'ng' },
      { type: 'block_stop', index: 0 },
      { type: 'usage', usage: IR_USAGE },
      { type: 'finish', reason: 'stop', stopSequence: null },
    ]);
    assert.deepEqual(types(frames), [
      'created',
      'in_progress',
      'output_item.added',
      'content_part.added',
      'output_text.delta',
      'output_text.delta',
      'output_text.done',
      'content_part.done',
      'output_item.done',
      'completed',
    ]);
    assert.deepEqual(frames[0]?.data['response'], {
      id: 'resp_msg_01',
      object: 'response',
      created_at: 1760000000,
      status: 'in_progress',
      error: null,
      incomplete_details: null,
      model: 'claude-sonnet-4-5',
      output: [],
      usage: null,
    });
    assert.deepEqual(frames[4]?.data, { type: 'response.output_text.delta', sequence_number: 4, item_id: 'msg_msg_01_0', output_index: 0, content_index: 0, delta: 'po', logprobs: [] });
    const done = { id: 'msg_msg_01_0', type: 'message', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: 'pong', annotations: [] }] };
    assert.deepEqual(frames[8]?.data['item'], done);
    const final = terminalResponse(frames);
    assert.equal(final['status'], 'completed');
    assert.deepEqual(final['output'], [done]);
    assert.equal((final['usage'] as Record<string, unknown>)['total_tokens'], 17);
  });

  it('reasoning with a foreign proof: wrapped into encrypted_content', () => {
    const proof = { dialect: 'anthropic-messages' as const, value: 'SIG' };
    const frames = encodeStream({ ...BASE }, [
      ANTHROPIC_START,
      { type: 'block_start', index: 0, block: { type: 'reasoning' } },
      { type: 'reasoning_delta', index: 0, text: 'hmm' },
      { type: 'reasoning_proof', index: 0, proof },
      { type: 'block_stop', index: 0 },
      { type: 'block_start', index: 1, block: { type: 'reasoning' } },
      { type: 'block_stop', index: 1 },
      { type: 'finish', reason: 'length', stopSequence: null },
    ]);
    assert.deepEqual(types(frames), [
      'created',
      'in_progress',
      'output_item.added',
      'reasoning_summary_part.added',
      'reasoning_summary_text.delta',
      'reasoning_summary_text.done',
      'reasoning_summary_part.done',
      'output_item.done',
      'output_item.added',
      'output_item.done',
      'incomplete',
    ]);
    const item = frames[7]?.data['item'] as Record<string, unknown>;
    assert.equal(item['id'], 'rs_msg_01_0');
    assert.deepEqual(item['summary'], [{ type: 'summary_text', text: 'hmm' }]);
    assert.deepEqual(unwrapProof(String(item['encrypted_content'])), { proof, text: 'hmm' });
    // A reasoning block without text or proof: an empty summary, no encrypted_content.
    assert.deepEqual(frames[9]?.data['item'], { id: 'rs_msg_01_1', type: 'reasoning', summary: [] });
    const final = terminalResponse(frames);
    assert.equal(final['status'], 'incomplete');
    assert.deepEqual(final['incomplete_details'], { reason: 'max_output_tokens' });
    assert.equal((final['output'] as unknown[]).length, 2);
  });

  it('two parallel tool calls (with a late delta for the first), namespaced; then a custom tool call', () => {
    const request = decode({
      input: 'x',
      tools: [
        { type: 'function', name: 'exec_command', parameters: { type: 'object' } },
        { type: 'namespace', name: 'multi_agent_v1', description: 'agents', tools: [{ type: 'function', name: 'spawn_agent', parameters: { type: 'object' } }] },
        { type: 'custom', name: 'apply_patch' },
      ],
    });
    const frames = encodeStream(request, [
      { ...START, id: 'chatcmpl-1' },
      { type: 'block_start', index: 0, block: { type: 'tool_call', id: 'call_1', name: 'exec_command' } },
      { type: 'arguments_delta', index: 0, json: '{"cmd":' },
      { type: 'block_stop', index: 0 },
      { type: 'block_start', index: 1, block: { type: 'tool_call', id: 'call_2', name: 'multi_agent_v1__spawn_agent' } },
      { type: 'arguments_delta', index: 1, json: '{}' },
      // A Chat upstream finishing the first call's arguments after the second began.
      { type: 'arguments_delta', index: 0, json: '"ls"}' },
      { type: 'block_stop', index: 1 },
      { type: 'block_start', index: 2, block: { type: 'tool_call', id: 'call_3', name: 'apply_patch' } },
      { type: 'arguments_delta', index: 2, json: '{"input":"*** Be' },
      { type: 'arguments_delta', index: 2, json: 'gin Patch"}' },
      { type: 'block_stop', index: 2 },
      { type: 'finish', reason: 'tool_calls', stopSequence: null },
    ]);
    assert.deepEqual(types(frames), [
      'created',
      'in_progress',
      'output_item.added',
      'function_call_arguments.delta',
      'output_item.added',
      'function_call_arguments.delta',
      'function_call_arguments.delta',
      'output_item.added',
      'function_call_arguments.done',
      'output_item.done',
      'function_call_arguments.done',
      'output_item.done',
      'custom_tool_call_input.delta',
      'custom_tool_call_input.done',
      'output_item.done',
      'completed',
    ]);
    assert.deepEqual(frames[2]?.data['item'], { id: 'fc_call_1', type: 'function_call', status: 'in_progress', call_id: 'call_1', name: 'exec_command', arguments: '' });
    assert.deepEqual(frames[6]?.data, { type: 'response.function_call_arguments.delta', sequence_number: 6, item_id: 'fc_call_1', output_index: 0, delta: '"ls"}' });
    const output = terminalResponse(frames)['output'];
    assert.deepEqual(output, [
      { id: 'fc_call_1', type: 'function_call', status: 'completed', call_id: 'call_1', name: 'exec_command', arguments: '{"cmd":"ls"}' },
      { id: 'fc_call_2', type: 'function_call', status: 'completed', call_id: 'call_2', name: 'spawn_agent', namespace: 'multi_agent_v1', arguments: '{}' },
      { id: 'ctc_call_3', type: 'custom_tool_call', status: 'completed', call_id: 'call_3', name: 'apply_patch', input: '*** Begin Patch' },
    ]);
    assert.equal(frames[12]?.data['delta'], '*** Begin Patch');
    assert.equal(terminalResponse(frames)['id'], 'resp_chatcmpl-1');
  });

  it('an upstream error mid-stream: error then response.failed, nothing after', () => {
    const encoder = codec.createStreamEncoder({ ...BASE });
    const error = new GatewayError('GW_ERR_UPSTREAM_OVERLOADED', 'Overloaded');
    const raw = [
      ...encoder.push(ANTHROPIC_START),
      ...encoder.push({ type: 'block_start', index: 0, block: { type: 'text' } }),
      ...encoder.push({ type: 'text_delta', index: 0, text: 'Hi' }),
      ...encoder.push({ type: 'error', error }),
    ];
    assert.deepEqual(encoder.push({ type: 'text_delta', index: 0, text: 'more' }), []);
    assert.deepEqual(encoder.end(), []);
    const frames = raw.map((f) => JSON.parse(f.data) as Record<string, unknown>);
    assert.deepEqual(
      frames.map((f) => f['sequence_number']),
      frames.map((_, i) => i),
    );
    assert.deepEqual(frames.at(-2), { type: 'error', sequence_number: 5, code: 'server_error', message: 'Overloaded', param: null });
    const failed = frames.at(-1)?.['response'] as Record<string, unknown>;
    assert.equal(failed['status'], 'failed');
    assert.deepEqual(failed['error'], { code: 'server_error', message: 'Overloaded' });

    const tooLong = codec.createStreamEncoder({ ...BASE });
    const [errorFrame] = tooLong.push({ type: 'error', error: new GatewayError('GW_ERR_UPSTREAM_ERROR', 'prompt is too long', { wireCode: 'context_length_exceeded' }) });
    assert.equal((JSON.parse(errorFrame?.data ?? '{}') as Record<string, unknown>)['code'], 'context_length_exceeded', 'Codex stops retrying on this code');
  });
});

describe('a Responses upstream stream re-encoded for a Responses client', () => {
  it('keeps the proof native and the items the same', () => {
    const rs = { id: 'rs_1', type: 'reasoning', summary: [{ type: 'summary_text', text: 'S' }], encrypted_content: 'gAAA' };
    const { events, end } = decodeStream([
      sse('response.created', { response: RESPONSE }, 0),
      sse('response.output_item.added', { output_index: 0, item: { id: 'rs_1', type: 'reasoning', summary: [] } }, 1),
      sse('response.reasoning_summary_part.added', { item_id: 'rs_1', output_index: 0, summary_index: 0 }, 2),
      sse('response.reasoning_summary_text.delta', { item_id: 'rs_1', output_index: 0, summary_index: 0, delta: 'S' }, 3),
      sse('response.output_item.done', { output_index: 0, item: rs }, 4),
      sse('response.completed', completed([rs]), 5),
    ]);
    const frames = encodeStream({ ...BASE }, [...events, ...end()]);
    const output = terminalResponse(frames)['output'] as Record<string, unknown>[];
    assert.deepEqual(output, [{ id: 'rs_1_0', type: 'reasoning', summary: [{ type: 'summary_text', text: 'S' }], encrypted_content: 'gAAA' }]);
    assert.equal(terminalResponse(frames)['id'], 'resp_1');
  });
});
