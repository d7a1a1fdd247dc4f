// What Gemini CLI and @google/genai require of a stream in Gemini's shape (reference gemini.md, sections 1 and 4):
// `data: <one-line JSON>` events and nothing else (no event names, no [DONE]), one candidate of index 0 per chunk,
// one data field per part, a finishReason on the last chunk only and never missing, text or a call somewhere; and
// what such a client would have understood, for comparison with what the upstream said.

import assert from 'node:assert/strict';
import { arr, counts, obj, parse, readFrames, str, type ClientStreamSummary, type ToolCallSeen, type UsageSeen } from './client-stream-checks.js';

type Json = Record<string, unknown>;

const FINISH_REASONS = new Set(['STOP', 'MAX_TOKENS', 'SAFETY', 'RECITATION', 'LANGUAGE', 'OTHER', 'BLOCKLIST', 'PROHIBITED_CONTENT', 'SPII', 'MALFORMED_FUNCTION_CALL']);
const DATA_FIELDS = ['text', 'functionCall', 'inlineData', 'fileData', 'functionResponse', 'executableCode', 'codeExecutionResult'];

function geminiUsage(value: unknown, where: string): UsageSeen {
  const [prompt = 0, candidates = 0, total = 0, cached = 0, thoughts = 0] = counts(value, where, [
    'promptTokenCount',
    'candidatesTokenCount',
    'totalTokenCount',
    'cachedContentTokenCount',
    'thoughtsTokenCount',
  ]);
  assert.equal(total, prompt + candidates + thoughts, `${where}.totalTokenCount is prompt + candidates + thoughts`);
  assert.ok(cached <= prompt, `${where}: cached tokens are inside promptTokenCount`);
  // Gemini has no count of cache writes: they are inside promptTokenCount.
  return { promptTokens: prompt, completionTokens: candidates + thoughts, cachedTokens: cached, cacheWriteTokens: null, reasoningTokens: thoughts };
}

function checkPart(part: Json, where: string): void {
  const fields = DATA_FIELDS.filter((f) => f in part);
  assert.equal(fields.length, 1, `${where}: exactly one data field per part, got ${JSON.stringify(Object.keys(part))}`);
  if ('thought' in part) assert.ok(part['thought'] === true && typeof part['text'] === 'string', `${where}: thought:true goes on a text part`);
  if ('thoughtSignature' in part) assert.notEqual(str(part['thoughtSignature'], `${where}.thoughtSignature`), '', `${where}: an empty thoughtSignature`);
  const extra = Object.keys(part).filter((k) => !DATA_FIELDS.includes(k) && k !== 'thought' && k !== 'thoughtSignature');
  assert.deepEqual(extra, [], `${where}: unknown part fields`);
}

export function checkGeminiStream(bytes: Buffer, expectError: boolean): ClientStreamSummary {
  const frames = readFrames(bytes);
  frames.forEach((f, i) => {
    assert.equal(f.event, null, `frame ${i}: Gemini's parser reads data: lines only`);
    assert.notEqual(f.data, '[DONE]', `frame ${i}: [DONE] fails @google/genai's JSON parse`);
  });
  const chunks = frames.map((f, i) => parse(f.data, `frame ${i}`));
  let error: ClientStreamSummary['error'] = null;
  if (expectError) {
    const last = chunks.pop() ?? {};
    assert.deepEqual(Object.keys(last), ['error'], 'the last frame is {"error":{...}} and nothing else');
    const e = obj(last['error'], 'the error frame');
    assert.ok(Number.isInteger(e['code']), 'error.code is the HTTP status');
    error = { type: str(e['status'], 'error.status'), message: str(e['message'], 'error.message') };
  }
  assert.ok(chunks.length > 0 || expectError, 'a stream with no chunk (Gemini CLI retries it)');
  const model = str(chunks[0]?.['modelVersion'] ?? '', 'chunk 0.modelVersion');
  const responseId = str(chunks[0]?.['responseId'] ?? '', 'chunk 0.responseId');
  let text = '';
  let reasoning = '';
  const proofs: string[] = [];
  const toolCalls: ToolCallSeen[] = [];
  let finish: string | null = null;
  let usage: UsageSeen | null = null;
  chunks.forEach((c, i) => {
    const where = `chunk ${i}`;
    assert.ok(!('error' in c), `${where}: an error chunk where none was expected`);
    assert.deepEqual([c['modelVersion'], c['responseId']], [model, responseId], `${where}: modelVersion and responseId of every chunk`);
    assert.equal(finish, null, `${where}: a chunk after the finishReason chunk`);
    const candidates = arr(c['candidates'], `${where}.candidates`);
    assert.equal(candidates.length, 1, `${where}: one candidate`);
    const candidate = obj(candidates[0], `${where}.candidates[0]`);
    assert.equal(candidate['index'], 0, `${where}.candidates[0].index`);
    if (candidate['content'] !== undefined) {
      const content = obj(candidate['content'], `${where}.content`);
      assert.equal(content['role'], 'model', `${where}.content.role`);
      arr(content['parts'], `${where}.content.parts`).forEach((value, k) => {
        const pw = `${where}.parts[${k}]`;
        const part = obj(value, pw);
        checkPart(part, pw);
        if (typeof part['thoughtSignature'] === 'string') proofs.push(part['thoughtSignature']);
        if (part['thought'] === true) reasoning += str(part['text'], `${pw}.text`);
        else if (typeof part['text'] === 'string') text += part['text'];
        else if (part['functionCall'] !== undefined) {
          const call = obj(part['functionCall'], `${pw}.functionCall`);
          const id = str(call['id'], `${pw}.functionCall.id`);
          assert.match(id, /^[a-zA-Z0-9_-]{1,64}$/, `${pw}: an id every client takes`);
          toolCalls.push({ id, name: str(call['name'], `${pw}.functionCall.name`), arguments: JSON.stringify(obj(call['args'], `${pw}.functionCall.args`)) });
        }
      });
    }
    if (candidate['finishReason'] !== undefined) {
      finish = str(candidate['finishReason'], `${where}.finishReason`);
      assert.ok(FINISH_REASONS.has(finish), `${where}: finishReason ${finish}`);
      usage = geminiUsage(c['usageMetadata'], `${where}.usageMetadata`);
    }
  });
  if (!expectError) {
    assert.ok(finish !== null, 'the last chunk carries a finishReason (Gemini CLI retries a stream without one)');
    assert.ok(text !== '' || toolCalls.length > 0, 'text or a call (Gemini CLI retries a stream with neither)');
  }
  return { model, text, reasoning, proofs, toolCalls, usage, finish, error };
}
