// Reasoning proofs across dialects, over whole conversations: a Gemini upstream's thoughtSignature through an
// Anthropic, a Responses or a Chat client and back to Gemini (on the very part it came on, or the placeholder where
// the client could not keep it); an Anthropic thinking signature and a Responses encrypted_content through a Gemini
// client that, as Gemini CLI does, drops thought parts and keeps only the signatures on its parts.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { anthropicMessagesCodec as anthropic } from '../../core/formats/anthropic-messages/codec.js';
import { BodyBytes } from '../../core/formats/body-bytes.js';
import type { WireCodec } from '../../core/formats/codec.js';
import type { ParsedRequest } from '../../core/formats/format.js';
import { openaiChatCodec as chat } from '../../core/formats/openai-chat/codec.js';
import { openaiResponsesCodec as responses } from '../../core/formats/openai-responses/codec.js';
import type { ChatRequest } from '../../core/ir/request.js';
import type { ChatResponse } from '../../core/ir/response.js';
import type { StreamEvent } from '../../core/ir/stream.js';
import { SseFrameParser } from '../../core/sse/frame-parser.js';
import { geminiCodec as gemini } from './codec.js';

type Json = Record<string, unknown>;

function parsed(json: Json, model = 'm'): ParsedRequest {
  return { raw: BodyBytes.of(Buffer.from(JSON.stringify(json))), head: json, json, model, stream: false, conversation: null };
}

const bodyOf = (buffer: Buffer): Json => JSON.parse(buffer.toString('utf8')) as Json;

/** What a client of `codec` asked: the tools its calls are named after. */
const ASKED: ChatRequest = {
  model: 'm',
  messages: [{ role: 'user', parts: [{ type: 'text', text: 'List and read.' }] }],
  tools: [
    { kind: 'function', name: 'list_directory', description: null, parameters: { type: 'object', properties: { dir_path: { type: 'string' } } }, strict: null },
    { kind: 'function', name: 'read_file', description: null, parameters: { type: 'object', properties: { file_path: { type: 'string' } } }, strict: null },
  ],
  toolChoice: null,
  parallelToolCalls: null,
  maxTokens: 4096,
  temperature: null,
  topP: null,
  stop: [],
  responseFormat: null,
  reasoning: null,
  stream: false,
  conversation: null,
};

// ------------------------------------------------------------------------ a Gemini upstream, other clients

/** Gemini 3's answer: thoughts, text signed on its part, parallel calls with the first signed. */
const GEMINI_PARTS = [
  { text: 'I need the files first.', thought: true },
  { text: 'Let me look.', thoughtSignature: 'Cs0BAY-text' },
  { functionCall: { id: 'fc_1', name: 'list_directory', args: { dir_path: '.' } }, thoughtSignature: 'EpYC-call' },
  { functionCall: { id: 'fc_2', name: 'read_file', args: { file_path: 'a.txt' } } },
];
const GEMINI_ANSWER = Buffer.from(
  JSON.stringify({ candidates: [{ content: { role: 'model', parts: GEMINI_PARTS }, finishReason: 'STOP', index: 0 }], modelVersion: 'gemini-3-pro-preview', responseId: 'r1' }),
);

/** The model turn of the Gemini request made from `history` after the client answered both calls. */
function nextGeminiTurn(history: ChatRequest): Json[] {
  const body = bodyOf(gemini.encodeRequest(history, 'gemini-3-pro-preview'));
  return ((body['contents'] as Json[])[1] as Json)['parts'] as Json[];
}

/** The Gemini answer given to a client of `client`, and the client's next request sent back, decoded. */
function throughClient(client: WireCodec, next: (answer: Json) => Json): ChatRequest {
  const answer = bodyOf(client.encodeResponse(gemini.decodeResponse(GEMINI_ANSWER), ASKED));
  return client.decodeRequest(parsed(next(answer)));
}

describe('a Gemini upstream: its signatures come back on the parts they came on', () => {
  it('through an Anthropic client (Claude Code sends the blocks back as they came)', () => {
    const history = throughClient(anthropic, (message) => ({
      model: 'm',
      max_tokens: 4096,
      messages: [
        { role: 'user', content: 'List and read.' },
        { role: 'assistant', content: message['content'] },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'fc_1', content: 'a.txt' },
            { type: 'tool_result', tool_use_id: 'fc_2', content: 'hello' },
          ],
        },
      ],
    }));
    assert.deepEqual(nextGeminiTurn(history), GEMINI_PARTS.filter((p) => !('thought' in p)));
  });

  it('through a Responses client (Codex sends the output items back as input)', () => {
    const history = throughClient(responses, (response) => ({
      model: 'm',
      input: [
        { role: 'user', content: 'List and read.' },
        ...(response['output'] as Json[]),
        { type: 'function_call_output', call_id: 'fc_1', output: 'a.txt' },
        { type: 'function_call_output', call_id: 'fc_2', output: 'hello' },
      ],
    }));
    assert.deepEqual(nextGeminiTurn(history), GEMINI_PARTS.filter((p) => !('thought' in p)));
  });

  it('through a Chat client, which keeps no proof: the first call gets the placeholder Gemini 3 accepts', () => {
    const history = throughClient(chat, (completion) => {
      const message = ((completion['choices'] as Json[])[0] as Json)['message'] as Json;
      return {
        model: 'm',
        messages: [
          { role: 'user', content: 'List and read.' },
          { role: 'assistant', content: message['content'], tool_calls: message['tool_calls'] },
          { role: 'tool', tool_call_id: 'fc_2', content: 'hello' },
          { role: 'tool', tool_call_id: 'fc_1', content: 'a.txt' },
        ],
      };
    });
    const parts = nextGeminiTurn(history);
    assert.deepEqual(parts, [
      { text: 'Let me look.' },
      { functionCall: { id: 'fc_1', name: 'list_directory', args: { dir_path: '.' } }, thoughtSignature: 'skip_thought_signature_validator' },
      { functionCall: { id: 'fc_2', name: 'read_file', args: { file_path: 'a.txt' } } },
    ]);
  });
});

// ------------------------------------------------------------------------ other upstreams, a Gemini client

/** What Gemini CLI keeps of a model turn for its history: everything but thought parts. */
function keptByGeminiCli(parts: readonly Json[]): Json[] {
  return parts.filter((p) => p['thought'] !== true);
}

/** Gemini CLI's next request after running the calls of `modelParts`. */
function geminiCliTurn(modelParts: readonly Json[]): Json {
  const calls = modelParts.flatMap((p) => (p['functionCall'] === undefined ? [] : [p['functionCall'] as Json]));
  return {
    contents: [
      { role: 'user', parts: [{ text: 'List and read.' }] },
      { role: 'model', parts: keptByGeminiCli(modelParts) },
      { role: 'user', parts: calls.map((c) => ({ functionResponse: { id: c['id'], name: c['name'], response: { output: 'done' } } })) },
    ],
  };
}

const modelPartsOf = (body: Json): Json[] => (((body['candidates'] as Json[])[0] as Json)['content'] as Json)['parts'] as Json[];

const ANTHROPIC_SIGNATURE = 'EpMECkYIBxgCKkBq3m9sZ0lVdW1hY2hpbmVz';
const ANTHROPIC_ANSWER: ChatResponse = {
  id: 'msg_1',
  model: 'claude-sonnet-4-5',
  created: 1,
  parts: [
    { type: 'reasoning', text: 'The user wants the files.', proof: { dialect: 'anthropic-messages', value: ANTHROPIC_SIGNATURE } },
    { type: 'text', text: 'Listing.' },
    { type: 'tool_call', id: 'toolu_01', name: 'list_directory', arguments: '{"dir_path":"."}' },
  ],
  finish: 'tool_calls',
  stopSequence: null,
  usage: null,
};

describe('another upstream: its proof comes back through a Gemini client that drops thought parts', () => {
  it('an Anthropic thinking signature, with its text, first in the assistant turn (thinking stays on)', () => {
    const parts = modelPartsOf(bodyOf(gemini.encodeResponse(ANTHROPIC_ANSWER, ASKED)));
    const history = gemini.decodeRequest(parsed(geminiCliTurn(parts), 'gemini-3-pro-preview'));
    const body = bodyOf(anthropic.encodeRequest(Object.assign({}, history, { reasoning: { effort: 'high' as const, budgetTokens: null } }), 'claude-sonnet-4-5'));
    const messages = body['messages'] as Json[];
    assert.deepEqual(messages[1], {
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'The user wants the files.', signature: ANTHROPIC_SIGNATURE },
        { type: 'text', text: 'Listing.' },
        { type: 'tool_use', id: 'toolu_01', name: 'list_directory', input: { dir_path: '.' } },
      ],
    });
    assert.equal((body['thinking'] as Json | undefined)?.['type'], 'enabled', 'thinking is kept on: the tool turn starts with its thinking block');
  });

  it('the same through a stream: the signature rides on the call, whole', () => {
    const events: StreamEvent[] = [
      { type: 'start', id: 'msg_1', model: 'claude-sonnet-4-5', created: 1, usage: null },
      { type: 'block_start', index: 0, block: { type: 'reasoning' } },
      { type: 'reasoning_delta', index: 0, text: 'The user wants ' },
      { type: 'reasoning_delta', index: 0, text: 'the files.' },
      { type: 'reasoning_proof', index: 0, proof: { dialect: 'anthropic-messages', value: ANTHROPIC_SIGNATURE } },
      { type: 'block_stop', index: 0 },
      { type: 'block_start', index: 1, block: { type: 'tool_call', id: 'toolu_01', name: 'list_directory' } },
      { type: 'arguments_delta', index: 1, json: '{"dir_path":"."}' },
      { type: 'block_stop', index: 1 },
      { type: 'finish', reason: 'tool_calls', stopSequence: null },
    ];
    const encoder = gemini.createStreamEncoder(ASKED);
    const frames = [...events.flatMap((e) => encoder.push(e)), ...encoder.end()];
    // What the SDK reads: every chunk's parts, in order.
    const bytes = Buffer.concat(frames.map((f) => Buffer.from(`data: ${f.data}\n\n`)));
    const parts = new SseFrameParser().push(bytes).flatMap((f) => {
      const content = ((JSON.parse(f.data ?? '{}') as Json)['candidates'] as Json[])[0]?.['content'] as Json | undefined;
      return (content?.['parts'] as Json[] | undefined) ?? [];
    });
    const history = gemini.decodeRequest(parsed(geminiCliTurn(parts)));
    assert.deepEqual(history.messages[1]?.parts[0], {
      type: 'reasoning',
      text: 'The user wants the files.',
      proof: { dialect: 'anthropic-messages', value: ANTHROPIC_SIGNATURE },
    });
  });

  it('a Responses encrypted_content, with its item id, back as the reasoning item before the call', () => {
    const answer: ChatResponse = Object.assign({}, ANTHROPIC_ANSWER, {
      parts: [
        { type: 'reasoning', text: 'summary', proof: { dialect: 'openai-responses', value: 'gAAAAB-enc', id: 'rs_9' } },
        { type: 'tool_call', id: 'call_9', name: 'list_directory', arguments: '{"dir_path":"."}' },
      ],
    });
    const parts = modelPartsOf(bodyOf(gemini.encodeResponse(answer, ASKED)));
    const history = gemini.decodeRequest(parsed(geminiCliTurn(parts)));
    const input = bodyOf(responses.encodeRequest(history, 'gpt-5'))['input'] as Json[];
    assert.deepEqual(input[1], { type: 'reasoning', id: 'rs_9', summary: [{ type: 'summary_text', text: 'summary' }], encrypted_content: 'gAAAAB-enc' });
    assert.equal(input[2]?.['type'], 'function_call');
  });

  it('two proofs before one call share its signature and both come back', () => {
    const answer: ChatResponse = Object.assign({}, ANTHROPIC_ANSWER, {
      parts: [
        { type: 'reasoning', text: 'first', proof: { dialect: 'anthropic-messages', value: 'S1' } },
        { type: 'reasoning', text: '', proof: { dialect: 'anthropic-messages', value: 'REDACTED', redacted: true } },
        { type: 'tool_call', id: 'toolu_01', name: 'list_directory', arguments: '{}' },
      ],
    });
    const parts = modelPartsOf(bodyOf(gemini.encodeResponse(answer, ASKED)));
    const history = gemini.decodeRequest(parsed(geminiCliTurn(parts)));
    assert.deepEqual(history.messages[1]?.parts.slice(0, 2), answer.parts.slice(0, 2));
  });
});
