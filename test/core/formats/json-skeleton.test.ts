// parseSkeleton agrees with JSON.parse everywhere except long strings three or more levels down, which it
// leaves UNDECODED; and a large body read through a format gives the same head, the same whole body and the
// same errors as a full parse.

import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { GatewayError } from '../../../core/errors.js';
import { createAnthropicMessagesFormat } from '../../../core/formats/anthropic-messages/index.js';
import { topLevelPairs } from '../../../core/formats/json-scan.js';
import { fillUndecoded, parseSkeleton, readSkeleton, UNDECODED } from '../../../core/formats/json-skeleton.js';
import { createOpenAIChatFormat } from '../../../core/formats/openai-chat/index.js';
import { BodyBytes } from '../../../core/formats/body-bytes.js';
import { BodyPool } from '../../../core/formats/body-pool.js';
import { ScanMemory } from '../../../core/formats/scan-memory.js';
import { fixturePath, REPO_ROOT } from '../../helpers/repo-root.js';

/** Large bodies' memory, as the server's intake has one. */
const pool = new BodyPool();
const memory = new ScanMemory();

const LONG = 256;

/** What the skeleton must give for a parsed value: long strings at depth >= 3 replaced. */
function expectedSkeleton(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return depth >= 3 && Buffer.byteLength(JSON.stringify(value)) > LONG ? UNDECODED : value;
  if (Array.isArray(value)) return value.map((v) => expectedSkeleton(v, depth + 1));
  if (typeof value === 'object' && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) Object.defineProperty(out, k, { value: expectedSkeleton(v, depth + 1), enumerable: true, writable: true, configurable: true });
    return out;
  }
  return value;
}

const skeleton = (text: string): unknown => parseSkeleton(BodyBytes.of(Buffer.from(text, 'utf8')), memory);

/** JSON values with every kind of string (escapes, non-ASCII, astral, control characters) and long ones. */
const anyString = fc.oneof(fc.string({ unit: 'binary', maxLength: 20 }), fc.string({ unit: 'binary', minLength: 200, maxLength: 400 }));
const jsonValue = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constant(null),
    fc.boolean(),
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    anyString,
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(anyString, tie('value'), { maxKeys: 4 }),
  ),
})).value;

describe('parseSkeleton', () => {
  it('agrees with JSON.parse, with long deep strings undecoded, compact or indented', () => {
    fc.assert(
      fc.property(jsonValue, fc.boolean(), (value, indent) => {
        const text = JSON.stringify(value, null, indent ? 2 : undefined);
        assert.deepEqual(skeleton(text), expectedSkeleton(JSON.parse(text)));
      }),
      { numRuns: 500 },
    );
  });

  it('gives the same for a body in reads cut anywhere (node:http hands a body over in its socket reads)', () => {
    fc.assert(
      fc.property(jsonValue, fc.array(fc.nat(), { maxLength: 6 }), (value, picks) => {
        const raw = Buffer.from(JSON.stringify(value), 'utf8');
        const cuts = [...new Set([0, ...picks.map((p) => p % (raw.length + 1)), raw.length])].sort((x, y) => x - y);
        const reads = cuts.slice(1).map((end, i) => raw.subarray(cuts[i], end));
        assert.deepEqual(parseSkeleton(BodyBytes.fromReads(reads, raw.length, pool), memory), expectedSkeleton(JSON.parse(raw.toString('utf8'))));
      }),
      { numRuns: 300 },
    );
  });

  it('fillUndecoded makes the skeleton what JSON.parse gives, in place (translation reads the whole body so)', () => {
    fc.assert(
      fc.property(jsonValue, fc.boolean(), (value, indent) => {
        const raw = Buffer.from(JSON.stringify(value, null, indent ? 2 : undefined), 'utf8');
        const read = readSkeleton(BodyBytes.of(raw), memory);
        fillUndecoded(read, raw);
        assert.deepEqual(read.value, JSON.parse(raw.toString('utf8')));
      }),
      { numRuns: 500 },
    );
    // A repeated key keeps its first place and its last value (as JSON.parse); "__proto__" stays an own property.
    const long = (c: string): string => c.repeat(LONG + 10);
    const text = `{"m":[{"a":"${long('x')}","a":"${long('y')}","__proto__":"${long('z')}"},["${long('é')}"]]}`;
    const raw = Buffer.from(text, 'utf8');
    const read = readSkeleton(BodyBytes.of(raw), memory);
    assert.equal(read.undecoded.length, 4);
    fillUndecoded(read, raw);
    assert.deepEqual(read.value, JSON.parse(text));
    const first = (read.value as { m: [Record<string, unknown>] }).m[0];
    assert.deepEqual(Object.keys(first), ['a', '__proto__']);
    assert.equal(Object.getPrototypeOf(first), Object.prototype);
  });

  it('fillUndecoded refuses, changing nothing, where filling would not give JSON.parse\'s result', () => {
    const long = 'x'.repeat(LONG + 10);
    const cases = [
      `{"m":[{"t":"${long}","t":"short"}]}`, // a later value replaces a skipped one
      `{"m":[{"t":"${long}","t":{"o":1}}]}`,
      `{"m":[{"__proto__":"${long}","__proto__":[1]}]}`,
      `{"m":[{"t":"${long}","t":${JSON.stringify(UNDECODED)}}]}`, // the client's own string equals the stand-in
      `{"m":[{"t":"${long}"}],"n":${JSON.stringify(UNDECODED)}}`,
    ];
    for (const text of cases) {
      const raw = Buffer.from(text, 'utf8');
      const read = readSkeleton(BodyBytes.of(raw), memory);
      const before = JSON.stringify(read.value);
      assert.equal(fillUndecoded(read, raw), false, text);
      assert.equal(JSON.stringify(read.value), before, 'unchanged');
    }
  });

  it('finds the top-level pairs where json-scan finds them (edits use them instead of walking the body again)', () => {
    const anyObject = fc.dictionary(anyString, jsonValue, { maxKeys: 6 });
    fc.assert(
      fc.property(anyObject, fc.constantFrom(undefined, 1, 2, '\t'), (value, indent) => {
        const raw = Buffer.from(` ${JSON.stringify(value, null, indent)}\n`, 'utf8');
        assert.deepEqual(readSkeleton(BodyBytes.of(raw), memory).topLevel, topLevelPairs(raw));
      }),
      { numRuns: 300 },
    );
    assert.equal(readSkeleton(BodyBytes.of(Buffer.from('[1,{"a":2}]')), memory).topLevel, null, 'none for an array');
  });

  it('decodes every string of the top two levels, however long (model, system, metadata.user_id)', () => {
    const long = 'x'.repeat(5000);
    const body = { model: long, system: `é${long}`, metadata: { user_id: long }, messages: [{ role: 'user', content: long }] };
    const got = skeleton(JSON.stringify(body)) as typeof body;
    assert.equal(got.model, long);
    assert.equal(got.system, `é${long}`);
    assert.equal(got.metadata.user_id, long);
    assert.equal(got.messages[0]?.role, 'user');
    assert.equal(got.messages[0]?.content, UNDECODED);
  });

  it('finds the end of strings with escaped quotes and backslash runs', () => {
    const tricky = ['\\', '\\\\', '"', '\\"', 'a\\\\"b', `${'\\'.repeat(7)}"`, '}]{['];
    for (const s of tricky) {
      const padded = s + 'p'.repeat(LONG);
      const doc = { a: [{ b: s, c: padded, d: 1 }], after: 'ok' };
      assert.deepEqual(skeleton(JSON.stringify(doc)), { a: [{ b: s, c: UNDECODED, d: 1 }], after: 'ok' }, JSON.stringify(s));
    }
  });

  it('makes "__proto__" an own property, as JSON.parse does', () => {
    const got = skeleton('{"__proto__":{"polluted":true},"a":1}') as Record<string, unknown>;
    assert.deepEqual(Object.keys(got), ['__proto__', 'a']);
    assert.equal(Object.getPrototypeOf(got), Object.prototype);
    assert.equal(({} as Record<string, unknown>)['polluted'], undefined);
  });

  it('refuses what JSON.parse refuses (documents without long strings)', () => {
    const shortValue = fc.jsonValue({ maxDepth: 4 });
    fc.assert(
      fc.property(shortValue, fc.nat(), fc.constantFrom('delete', 'insert'), fc.constantFrom('"', '\\', ',', '}', ']', '{', ':', 'x', '0', ' ', '\u0001'), (value, at, op, ch) => {
        const text = JSON.stringify(value);
        const i = at % (text.length + 1);
        const mutated = op === 'delete' ? text.slice(0, i) + text.slice(i + 1) : text.slice(0, i) + ch + text.slice(i);
        let expected: unknown;
        try {
          expected = JSON.parse(mutated);
        } catch {
          assert.throws(() => skeleton(mutated), SyntaxError, mutated);
          return;
        }
        assert.deepEqual(skeleton(mutated), expectedSkeleton(expected), mutated);
      }),
      { numRuns: 2000 },
    );
    for (const bad of ['', ' ', '{', '{"a":1,}', '[1,]', '{"a" 1}', '01', '1.', '-', 'tru', 'nul', '{"a":1}x', '\ufeff{}', '"\\x"', '{"a":"\t"}', '[1 2]']) {
      assert.throws(() => skeleton(bad), SyntaxError, JSON.stringify(bad));
    }
  });
});

describe('a large body through a format', () => {
  const chat = createOpenAIChatFormat();
  const longText = `const a = "b\\\\"; // — ${'x'.repeat(20_000)}`;
  const body = {
    model: 'gpt-big',
    stream: true,
    stream_options: { include_usage: false },
    prompt_cache_key: 'thread-1',
    tools: [{ type: 'function', function: { name: 'read', description: longText, parameters: { type: 'object' } } }],
    messages: [
      { role: 'system', content: longText },
      { role: 'user', content: [{ type: 'text', text: longText }] },
    ],
  };

  it('reads routing fields from the head, leaves the bulk undecoded, and parses the whole body on request', () => {
    const raw = Buffer.from(JSON.stringify(body), 'utf8');
    // As node:http hands a body over: in reads, cut anywhere (here inside strings and between the key and its value).
    const cuts = [0, 7, 8, 5000, 5001, 33_000, raw.length];
    const reads = cuts.slice(1).map((end, i) => raw.subarray(cuts[i], end));
    const request = chat.decodeRequest(BodyBytes.fromReads(reads, raw.length, pool));
    assert.equal(request.model, 'gpt-big');
    assert.equal(request.stream, true);
    assert.equal(request.conversation, 'thread-1');
    assert.deepEqual(request.head['stream_options'], { include_usage: false });
    assert.equal((request.head['messages'] as { content: unknown }[])[0]?.content, UNDECODED);
    assert.deepEqual(request.json, body);
    assert.deepEqual(request.raw.joined(), raw, 'the original bytes are kept for forwarding');
  });

  it('words errors as a full parse does: bad JSON, a missing field, a message without a role', () => {
    const cases: [string, string][] = [
      [`${JSON.stringify(body).slice(0, -1)},}`, 'GW_ERR_REQUEST_INVALID_JSON'],
      [JSON.stringify({ ...body, messages: undefined }), 'GW_ERR_REQUEST_MISSING_FIELD'],
      [JSON.stringify({ ...body, messages: [{ content: longText }] }), 'GW_ERR_REQUEST_MISSING_FIELD'],
      [JSON.stringify({ ...body, stream: 'yes' }), 'GW_ERR_REQUEST_INVALID_FIELD'],
    ];
    for (const [text, code] of cases) {
      const raw = Buffer.from(text, 'utf8');
      assert.ok(raw.length > 8 * 1024, 'large enough for the skeleton path');
      assert.throws(
        () => chat.decodeRequest(BodyBytes.of(raw)),
        (err: unknown) => err instanceof GatewayError && err.code === code,
        code,
      );
    }
    const missingRole = Buffer.from(JSON.stringify({ ...body, messages: [{ content: longText }] }), 'utf8');
    assert.throws(() => chat.decodeRequest(BodyBytes.of(missingRole)), /messages\[0\]\.role/);
    // The syntax error names what V8's parser names.
    const bad = Buffer.from(`${JSON.stringify(body).slice(0, -1)},}`, 'utf8');
    let v8Message = '';
    try {
      JSON.parse(bad.toString('utf8'));
    } catch (err) {
      v8Message = (err as Error).message;
    }
    assert.throws(() => chat.decodeRequest(BodyBytes.of(bad)), (err: unknown) => err instanceof GatewayError && err.message.includes(v8Message));
  });

  it('a bad escape inside an undecoded string is refused when the whole body is read (translation), not before', () => {
    const text = JSON.stringify(body).replace('const a', '\\q const a');
    const request = chat.decodeRequest(BodyBytes.of(Buffer.from(text, 'utf8')));
    assert.equal(request.model, 'gpt-big');
    assert.throws(() => request.json, (err: unknown) => err instanceof GatewayError && err.code === 'GW_ERR_REQUEST_INVALID_JSON');
  });

  it('a key repeated after a long value, or a bad string after good ones: the whole body is JSON.parse\'s, errors worded as V8 words them', () => {
    const repeated = JSON.stringify(body).replace('"text":', `"text":"short","text":`).replace(/"content":\[\{/, `"content":${JSON.stringify(longText)},"content":[{`);
    const request = chat.decodeRequest(BodyBytes.of(Buffer.from(repeated, 'utf8')));
    assert.deepEqual(request.json, JSON.parse(repeated));
    assert.deepEqual(request.json, body, 'the later values won');

    // Two skipped strings (the system message, then the user's text); the second is the bad one.
    const bad = JSON.stringify(body).replace(/("type":"text","text":")const a/, '$1\\q const a');
    let v8Message = '';
    try {
      JSON.parse(bad);
    } catch (err) {
      v8Message = (err as Error).message;
    }
    assert.ok(v8Message !== '');
    const badRequest = chat.decodeRequest(BodyBytes.of(Buffer.from(bad, 'utf8')));
    for (let read = 0; read < 2; read++) {
      assert.throws(() => badRequest.json, (err: unknown) => err instanceof GatewayError && err.code === 'GW_ERR_REQUEST_INVALID_JSON' && err.message.includes(v8Message));
    }
  });

  it('real Claude Code bodies: head and whole body agree with JSON.parse', () => {
    const messages = createAnthropicMessagesFormat();
    for (const name of ['claude-code-messages.json', 'claude-code-messages-tool-result.json']) {
      const raw = readFileSync(fixturePath(`requests/${name}`));
      const full = JSON.parse(raw.toString('utf8')) as Record<string, unknown>;
      const request = messages.decodeRequest(BodyBytes.of(raw));
      assert.deepEqual(request.head, expectedSkeleton(full));
      assert.equal(request.model, full['model']);
      assert.equal(request.conversation, (full['metadata'] as { user_id: string }).user_id);
      assert.deepEqual(request.json, full);
    }
  });
});

describe('the request schemas are checked against the skeleton', () => {
  // A string three or more levels down may be UNDECODED: a schema may ask its type or an enum of short
  // values there (the stand-in fails an enum as the long original would), nothing that reads its content.
  const SAFE_DEEP_KEYWORDS = new Set(['type', 'enum', 'description', 'title']);
  const schemaDir = pathToFileURL(join(REPO_ROOT, 'schemas/api/') + '/');

  function deepStringProblems(schema: unknown, depth: number, at: string): string[] {
    if (typeof schema !== 'object' || schema === null) return [];
    const s = schema as Record<string, unknown>;
    const problems: string[] = [];
    const types = ([] as unknown[]).concat(s['type'] ?? []);
    if (depth >= 3 && (types.includes('string') || types.length === 0)) {
      for (const k of Object.keys(s)) {
        if (!SAFE_DEEP_KEYWORDS.has(k) && !['properties', 'items', 'required', 'additionalProperties', 'anyOf', 'oneOf'].includes(k)) problems.push(`${at}: ${k}`);
      }
    }
    for (const [name, sub] of Object.entries((s['properties'] as Record<string, unknown> | undefined) ?? {})) problems.push(...deepStringProblems(sub, depth + 1, `${at}.${name}`));
    if (s['items'] !== undefined) problems.push(...deepStringProblems(s['items'], depth + 1, `${at}[]`));
    for (const k of ['anyOf', 'oneOf'] as const) for (const sub of (s[k] as unknown[] | undefined) ?? []) problems.push(...deepStringProblems(sub, depth, at));
    return problems;
  }

  it('no schema constrains the content of a string nested three or more levels down', () => {
    const files = ['anthropic-count-tokens', 'anthropic-messages', 'openai-chat', 'openai-responses-compact', 'openai-responses'];
    for (const name of files) {
      const schema: unknown = JSON.parse(readFileSync(new URL(`${name}.request.schema.json`, schemaDir), 'utf8'));
      assert.deepEqual(deepStringProblems(schema, 0, name), [], name);
    }
  });
});
