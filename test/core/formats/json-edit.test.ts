// setTopLevelField edits one top-level value in the client's bytes and leaves every other byte as sent.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BodyBytes } from '../../../core/formats/body-bytes.js';
import { BodyPool } from '../../../core/formats/body-pool.js';
import { createOpenAIChatFormat } from '../../../core/formats/openai-chat/index.js';

const chat = createOpenAIChatFormat();
import { removeBodyFields, removeTopLevelFields, setBodyField, setTopLevelField } from '../../../core/formats/json-edit.js';

/** Large bodies' memory, as the server's intake has one. */
const pool = new BodyPool();

function edit(text: string, key: string, value: unknown): string {
  return setTopLevelField(Buffer.from(text, 'utf8'), key, value).toString('utf8');
}

describe('setTopLevelField', () => {
  it('replaces only the value bytes of an existing key', () => {
    const body = '{ "model" : "a",\n "n": 12345678901234567890, "t": 1.10, "s": "\\u00e9\\"}" }';
    assert.equal(edit(body, 'model', 'b'), '{ "model" : "b",\n "n": 12345678901234567890, "t": 1.10, "s": "\\u00e9\\"}" }');
  });

  it('inserts a missing key first, with or without other keys', () => {
    assert.equal(edit('{"a":1}', 'stream_options', { include_usage: true }), '{"stream_options":{"include_usage":true},"a":1}');
    assert.equal(edit('  { }  ', 'k', 'v'), '  {"k":"v" }  ');
  });

  it('looks at the top level only: nested keys and keys inside strings do not count', () => {
    const body = '{"messages":[{"model":"nested","content":"\\"model\\": \\"x\\" {[}"}],"meta":{"model":1},"model":"top"}';
    const out = edit(body, 'model', 'new');
    assert.equal(out, body.replace('"model":"top"', '"model":"new"'));
  });

  it('replaces values of every type, and the last of duplicate keys (the one JSON.parse keeps)', () => {
    for (const value of ['"s"', '12', '-1.5e3', 'true', 'null', '[1,[2,{"a":"]"}]]', '{"x":{"y":"}"}}']) {
      const body = `{"a":0,"k":${value},"z":"end"}`;
      assert.equal(edit(body, 'k', 'v'), '{"a":0,"k":"v","z":"end"}', value);
    }
    assert.equal(edit('{"k":1,"k":2}', 'k', 3), '{"k":1,"k":3}');
  });

  it('keys written with escapes are matched by their value', () => {
    assert.equal(edit('{"mod\\u0065l":"a"}', 'model', 'b'), '{"mod\\u0065l":"b"}');
  });

  it('agrees with JSON.parse on generated bodies, and keeps the other fields byte for byte', () => {
    // A small seeded generator (deterministic runs): nested objects, arrays, strings with quotes, brackets,
    // escapes and multibyte characters, numbers of every spelling, literals, random whitespace.
    let seed = 42;
    const rand = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const ws = (): string => [' ', '', '\n', '\t', '  '][rand(5)] ?? '';
    const strings = ['model', 'a"b', '{[', ']}', 'é✓', '\\', 'x\ny', ''];
    const numbers = ['0', '-12', '3.140', '1e400', '12345678901234567890', '-0.0E-2'];
    const value = (depth: number): string => {
      const pick = depth > 2 ? rand(4) : rand(6);
      if (pick === 0) return JSON.stringify(strings[rand(strings.length)]);
      if (pick === 1) return numbers[rand(numbers.length)] ?? '0';
      if (pick === 2) return ['true', 'false', 'null'][rand(3)] ?? 'null';
      if (pick === 3) return JSON.stringify(strings[rand(strings.length)]).replace('"', '"\\u0041');
      if (pick === 4) return `[${ws()}${Array.from({ length: rand(3) }, () => value(depth + 1)).join(`${ws()},${ws()}`)}${ws()}]`;
      return object(depth + 1);
    };
    const object = (depth: number): string => {
      const keys = Array.from({ length: rand(5) }, () => strings[rand(strings.length)] ?? 'k');
      return `{${ws()}${keys.map((k) => `${JSON.stringify(k)}${ws()}:${ws()}${value(depth)}`).join(`${ws()},${ws()}`)}${ws()}}`;
    };
    for (let i = 0; i < 500; i++) {
      const body = object(0);
      const key = ['model', 'stream_options', 'a"b', 'new'][rand(4)] ?? 'model';
      const replacement = rand(2) === 0 ? 'gpt-upstream' : { include_usage: true };
      const out = edit(body, key, replacement);
      const expected = { ...(JSON.parse(body) as Record<string, unknown>), [key]: replacement };
      assert.deepEqual(JSON.parse(out), expected, `${body}\n${out}`);
      assert.ok(out.length - JSON.stringify(replacement).length <= body.length + key.length + 4, 'only one value changed');
    }
  });

  it('refuses a body that is not a JSON object', () => {
    assert.throws(() => setTopLevelField(Buffer.from('[1,2]'), 'k', 1), /not a JSON object/);
  });
});

describe('removeTopLevelFields', () => {
  const drop = (text: string, ...keys: string[]): string => removeTopLevelFields(Buffer.from(text, 'utf8'), new Set(keys)).toString('utf8');

  it('removes a field with its separator, wherever it is, and keeps every other byte', () => {
    assert.equal(drop('{"a":1, "b":{"c":"}"},\n "d":12345678901234567890}', 'b'), '{"a":1, "d":12345678901234567890}');
    assert.equal(drop('{"a":1,"b":2,"c":3}', 'a'), '{"b":2,"c":3}');
    assert.equal(drop('{"a":1,"b":2,"c":3}', 'c'), '{"a":1,"b":2}');
    assert.equal(drop('{"a":1,"b":2,"c":3}', 'b', 'c'), '{"a":1}');
    assert.equal(drop('{"a":1,"b":2,"c":3}', 'a', 'b'), '{"c":3}');
    assert.equal(drop('{"a":1,"b":2,"c":3}', 'a', 'c'), '{"b":2}');
    assert.equal(drop('{ "a":1 , "b":2 }', 'a', 'b'), '{  }');
    assert.equal(drop('{"k":1,"x":0,"k":2}', 'k'), '{"x":0}', 'duplicates go too');
  });

  it('returns the same bytes when no field matches, and ignores nested fields', () => {
    const body = Buffer.from('{"a":{"client_metadata":1}}');
    assert.equal(removeTopLevelFields(body, new Set(['client_metadata'])), body);
  });

  it('agrees with JSON.parse on every subset of fields removed', () => {
    const body = '{ "model":"m" ,"input":[{"a":"]"}],\t"store":true, "client_metadata":{"x":"}"} ,"z":null }';
    const names = ['model', 'input', 'store', 'client_metadata', 'z'];
    for (let mask = 0; mask < 1 << names.length; mask++) {
      const removed = names.filter((_, i) => (mask & (1 << i)) !== 0);
      const expected = Object.fromEntries(Object.entries(JSON.parse(body) as Record<string, unknown>).filter(([k]) => !removed.includes(k)));
      assert.deepEqual(JSON.parse(drop(body, ...removed)), expected, removed.join(','));
    }
  });
});

describe('setBodyField and removeBodyFields', () => {
  it('make the same bytes as the Buffer edits, for small bodies and pooled large ones in reads', () => {
    const long = 'x"\\é'.repeat(40_000);
    for (const text of ['{"model":"a","messages":[{"role":"user","content":"hi"}],"stream":true}', `{"model":"a","messages":[{"role":"user","content":${JSON.stringify(long)}}],"stream":true,"z":1}`]) {
      const raw = Buffer.from(text, 'utf8');
      const reads = [raw.subarray(0, 7), raw.subarray(7, 70_000), raw.subarray(70_000)].filter((r) => r.length > 0);
      const body = BodyBytes.fromReads(reads, raw.length, pool);
      const set = setBodyField(body, 'stream_options', { include_usage: true });
      assert.ok(set.joined().equals(setTopLevelField(raw, 'stream_options', { include_usage: true })));
      const renamed = setBodyField(set, 'model', 'upstream-name');
      assert.ok(renamed.joined().equals(setTopLevelField(setTopLevelField(raw, 'stream_options', { include_usage: true }), 'model', 'upstream-name')));
      const dropped = removeBodyFields(renamed, new Set(['z', 'stream']));
      assert.ok(dropped.joined().equals(removeTopLevelFields(renamed.joined(), new Set(['z', 'stream']))));
      assert.equal(removeBodyFields(dropped, new Set(['absent'])), dropped, 'nothing to remove: the same body');
      body.release();
      assert.throws(() => dropped.joined(), /released/, 'edits are released with the client body');
      // The same through a format, which leaves the skeleton's positions on a large body for the edits.
      const decoded = BodyBytes.fromReads(reads, raw.length, pool);
      const request = chat.decodeRequest(decoded);
      assert.equal(decoded.topLevel !== null, raw.length > 8 * 1024, 'positions from the skeleton of a large body');
      const viaFormat = removeBodyFields(setBodyField(request.raw, 'stream_options', { include_usage: true }), new Set(['z']));
      assert.ok(viaFormat.joined().equals(removeTopLevelFields(setTopLevelField(raw, 'stream_options', { include_usage: true }), new Set(['z']))));
      decoded.release();
    }
  });
});
