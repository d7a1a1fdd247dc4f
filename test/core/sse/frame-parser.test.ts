// SSE framing over recorded fixtures: identical frames however the bytes are chunked, and byte-exact pass-through.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import fc from 'fast-check';
import { SseFrameParser } from '../../../core/sse/frame-parser.js';
import { encodeFrame, encodeFrames } from '../../../core/sse/frame-writer.js';
import { readFields, type SseFrame } from '../../../core/sse/frame.js';
import { fixtureUrl } from '../../helpers/repo-root.js';

const FIXTURES = fixtureUrl('sse/');

function fixture(name: string): Buffer {
  return readFileSync(new URL(name, FIXTURES));
}

/** What a frame is, as plain comparable data (raw copied, so later pushes cannot alias it). */
interface FrameView {
  readonly raw: Buffer;
  readonly event: string | null;
  readonly data: string | null;
}

function view(frames: readonly SseFrame[]): FrameView[] {
  return frames.map((f) => ({ raw: Buffer.from(f.raw), event: f.event, data: f.data }));
}

/** Feeds the chunks through one parser, end() included; chunks are plain Uint8Arrays, not Buffers. */
function feed(chunks: readonly Uint8Array[]): FrameView[] {
  const parser = new SseFrameParser();
  const out: FrameView[] = [];
  for (const chunk of chunks) out.push(...view(parser.push(chunk)));
  out.push(...view(parser.end()));
  return out;
}

function copy(bytes: Buffer, from: number, to: number): Uint8Array {
  return new Uint8Array(bytes.subarray(from, to));
}

function fields(frames: readonly FrameView[]): [string | null, string | null][] {
  return frames.map((f) => [f.event, f.data]);
}

/** Every chunking must give the whole-input frames, and the raw bytes must rebuild the input exactly. */
function assertChunkingInvariant(input: Buffer): FrameView[] {
  const whole = feed([input]);
  assert.deepEqual(Buffer.concat(whole.map((f) => f.raw)), input, 'raw bytes of the frames must rebuild the input');
  for (let cut = 0; cut <= input.length; cut++) {
    const split = feed([copy(input, 0, cut), copy(input, cut, input.length)]);
    assert.deepEqual(split, whole, `split at byte ${cut}`);
  }
  const bytewise = feed([...input].map((_, i) => copy(input, i, i + 1)));
  assert.deepEqual(bytewise, whole, 'byte-by-byte');
  return whole;
}

const JSON_DATA = (frames: readonly FrameView[]): unknown[] =>
  frames.filter((f) => f.data !== null && f.data !== '[DONE]').map((f) => JSON.parse(f.data ?? '') as unknown);

describe('SseFrameParser over recorded fixtures', () => {
  it('openai-chat-tool-call.sse: tool call deltas, a usage chunk and [DONE]', () => {
    const frames = assertChunkingInvariant(fixture('openai-chat-tool-call.sse'));
    assert.equal(frames.length, 6);
    assert.ok(frames.every((f) => f.event === null));
    assert.equal(frames.at(-1)?.data, '[DONE]');
    const chunks = JSON_DATA(frames) as {
      choices: { delta: { tool_calls?: { function: { name?: string; arguments: string } }[] }; finish_reason: string | null }[];
      usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number } | null;
    }[];
    assert.equal(chunks.length, 5);
    assert.equal(chunks[0]?.choices[0]?.delta.tool_calls?.[0]?.function.name, 'get_weather');
    const args = chunks.map((c) => c.choices[0]?.delta.tool_calls?.[0]?.function.arguments ?? '').join('');
    assert.deepEqual(JSON.parse(args), { city: 'Paris' });
    assert.equal(chunks[3]?.choices[0]?.finish_reason, 'tool_calls');
    assert.deepEqual(chunks[4]?.choices, []);
    assert.deepEqual(
      { p: chunks[4]?.usage?.prompt_tokens, c: chunks[4]?.usage?.completion_tokens, t: chunks[4]?.usage?.total_tokens },
      { p: 82, c: 17, t: 99 },
    );
  });

  it('anthropic-messages.sse: event names, a ping, and the text deltas', () => {
    const frames = assertChunkingInvariant(fixture('anthropic-messages.sse'));
    assert.deepEqual(
      frames.map((f) => f.event),
      [
        'message_start',
        'content_block_start',
        'ping',
        'content_block_delta',
        'content_block_delta',
        'content_block_stop',
        'message_delta',
        'message_stop',
      ],
    );
    assert.equal(frames[2]?.data, '{"type": "ping"}');
    const payloads = JSON_DATA(frames) as { type: string; delta?: { text?: string } }[];
    assert.deepEqual(
      payloads.map((p) => p.type),
      frames.map((f) => f.event),
      'each data type names its event',
    );
    assert.equal(payloads.map((p) => p.delta?.text ?? '').join(''), 'Hello, world!');
  });

  it('crlf.sse: CRLF line endings, split anywhere including between CR and LF', () => {
    const input = fixture('crlf.sse');
    assert.ok(input.includes('\r\n\r\n'), 'fixture must keep its CRLF endings (check git line-ending conversion)');
    const frames = assertChunkingInvariant(input);
    assert.deepEqual(fields(frames), [
      ['message', '{"n":1}'],
      [null, null],
      [null, 'line one\nline two'],
      [null, '[DONE]'],
    ]);
    assert.equal(frames[0]?.raw.toString('latin1'), 'event: message\r\ndata: {"n":1}\r\n\r\n');
  });

  it('lone-cr.sse: CR-only line endings; the last frame only closes at end()', () => {
    const input = fixture('lone-cr.sse');
    assert.ok(!input.includes('\n'), 'fixture must have no LF at all');
    const frames = assertChunkingInvariant(input);
    assert.deepEqual(fields(frames), [
      ['message', '{"n":1}'],
      [null, null],
      [null, 'line one\nline two'],
      [null, '[DONE]'],
    ]);
    // A lone CR may still be the first half of a CRLF, so the final frame waits for the next byte or end().
    const parser = new SseFrameParser();
    assert.equal(parser.push(input).length, 3);
    assert.deepEqual(view(parser.end()), [frames[3]]);
  });

  it('keepalive-comments.sse: comments and retry-only frames have data null', () => {
    const frames = assertChunkingInvariant(fixture('keepalive-comments.sse'));
    assert.deepEqual(fields(frames), [
      [null, null],
      [null, null],
      [null, '{"a":1}'],
      [null, null],
      [null, '{"b":2}'],
      [null, null],
    ]);
    assert.equal(frames[1]?.raw.toString('utf8'), ': OPENROUTER PROCESSING\n\n');
  });

  it('multiline-data.sse: data lines joined with \\n, exactly one space stripped after the colon', () => {
    const frames = assertChunkingInvariant(fixture('multiline-data.sse'));
    assert.deepEqual(fields(frames), [
      ['note', 'first line\nsecond line\n indented'],
      [null, '\nafter empty'],
      [null, '{\n  "k": "v"\n}'],
      ['final', 'x'],
    ]);
    assert.deepEqual(JSON.parse(frames[2]?.data ?? ''), { k: 'v' });
  });

  it('utf8-multibyte.sse: characters split across chunks come out whole, U+2028 included', () => {
    const input = fixture('utf8-multibyte.sse');
    const frames = assertChunkingInvariant(input);
    assert.deepEqual(fields(frames), [
      ['message', '{"text":"héllo — 你好 🎉"}'],
      [null, '🎉🎉'],
      [null, '{"text":"a\u2028b\u2029c"}'],
      [null, 'ünïcödé\n✓'],
    ]);
    assert.deepEqual(JSON.parse(frames[0]?.data ?? ''), { text: 'héllo — 你好 🎉' });
    assert.ok(frames.every((f) => !(f.data ?? '').includes('\uFFFD')), 'no replacement characters');
  });
});

describe('SseFrameParser edge cases', () => {
  it('gives the remainder of a stream that ends without its blank line from end()', () => {
    const input = Buffer.from('data: one\n\ndata: two\ndata: tail', 'utf8');
    const parser = new SseFrameParser();
    assert.deepEqual(fields(view(parser.push(input))), [[null, 'one']]);
    const rest = view(parser.end());
    assert.deepEqual(fields(rest), [[null, 'two\ntail']]);
    assert.equal(rest[0]?.raw.toString('utf8'), 'data: two\ndata: tail');
    assert.deepEqual(parser.end(), [], 'end() twice yields nothing more');
    assertChunkingInvariant(input);
  });

  it('holds a frame until its blank line arrives, and end() of an empty parser is empty', () => {
    const parser = new SseFrameParser();
    assert.deepEqual(parser.end(), []);
    assert.deepEqual(parser.push(new Uint8Array(0)), []);
    assert.deepEqual(parser.push(Buffer.from('data: a\n')), []);
    assert.deepEqual(fields(view(parser.push(Buffer.from('\n')))), [[null, 'a']]);
    assert.deepEqual(parser.end(), []);
  });

  it('does not hold a read it consumed whole (LF and CRLF streams): only an unfinished frame is kept', async () => {
    // An empty view of the read would keep all of its memory until the next push, which on a paced stream is
    // long enough for V8 to move it to the old generation.
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    for (const text of ['data: {"n":1}\n\n', 'data: {"n":1}\r\n\r\n']) {
      const parser = new SseFrameParser();
      // Buffer.alloc: a read of its own, not a slice of Node's shared pool.
      let read: Buffer | undefined = Buffer.alloc(Buffer.byteLength(text));
      read.write(text);
      const memory = new WeakRef(read.buffer);
      assert.equal(parser.push(read).length, 1);
      read = undefined;
      await new Promise((resolve) => setImmediate(resolve));
      gc();
      assert.equal(memory.deref(), undefined, `the parser let go of the read (${JSON.stringify(text)})`);
      assert.deepEqual(fields(view(parser.push(Buffer.from('data: 2\n\n')))), [[null, '2']], 'and goes on parsing');
    }
  });

  it('joins a frame that arrives in many reads once, when it ends, not again at each read (LF and CRLF)', () => {
    // An image stream's partial image is a frame of several MB in 64 KB reads: joined at each read, its bytes
    // would be copied once per read (quadratic). Buffer.concat is counted while the parser runs.
    for (const eol of ['\n', '\r\n']) {
      const data = 'x'.repeat(4 * 1024 * 1024);
      const bytes = Buffer.from(`event: image_generation.partial_image${eol}data: {"b64_json":"${data}"}${eol}${eol}data: next${eol}${eol}`, 'latin1');
      const parser = new SseFrameParser();
      const concat = Buffer.concat;
      let copied = 0;
      Buffer.concat = ((list: readonly Uint8Array[], length?: number) => {
        const joined = concat(list, length);
        copied += joined.length;
        return joined;
      }) as typeof Buffer.concat;
      const frames: SseFrame[] = [];
      try {
        for (let at = 0; at < bytes.length; at += 64 * 1024) frames.push(...parser.push(bytes.subarray(at, at + 64 * 1024)));
        frames.push(...parser.end());
      } finally {
        Buffer.concat = concat;
      }
      assert.equal(frames.length, 2, JSON.stringify(eol));
      assert.equal(Buffer.concat(frames.map((f) => f.raw)).equals(bytes), true, 'byte-exact');
      assert.equal(frames[0]?.data?.length, data.length + '{"b64_json":""}'.length);
      assert.ok(copied <= bytes.length, `copied ${copied} bytes for a ${bytes.length}-byte stream`);
    }
  });

  it('lets a long frame\'s reads go at the next scavenge once the frame is out, though the parser is old', async () => {
    // The parser lives as long as its stream: old by the time a partial image arrives. Were the reads of a frame
    // left in an old array, the next scavenge would promote all of them (4 MB here) until a full GC.
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as (options?: { type: 'minor' | 'major' }) => void;
    const settle = async (type: 'minor' | 'major', times: number): Promise<void> => {
      for (let i = 0; i < times; i++) {
        gc({ type });
        await new Promise((resolve) => setImmediate(resolve));
      }
    };
    await settle('major', 1);
    const parser = new SseFrameParser();
    await settle('minor', 4);
    const before = process.memoryUsage().arrayBuffers;
    for (let i = 0; i < 64; i++) {
      const read = Buffer.alloc(64 * 1024, 0x78);
      if (i === 0) read.write('data: ', 0, 'latin1');
      parser.push(read);
    }
    assert.equal(parser.push(Buffer.from('\n\n')).length, 1);
    await settle('minor', 4);
    const kept = process.memoryUsage().arrayBuffers - before;
    assert.ok(kept < 1024 * 1024, `${kept} bytes of reads survived the scavenges`);
  });

  it('keeps mixed line endings and a leading blank line byte-exact', () => {
    assertChunkingInvariant(Buffer.from('\ndata: a\r\n\ndata: b\r\rdata: c\n\r\n: x\r\n\r', 'utf8'));
  });
});

describe('SseFrameParser on generated streams', () => {
  // Frame boundaries the plain way: a line ends at CRLF, CR or LF; a frame ends with its blank line; what is
  // left at the end is one last frame.
  function specFrames(input: Buffer): string[] {
    const frames: string[] = [];
    let start = 0;
    let lineStart = 0;
    let i = 0;
    while (i < input.length) {
      const b = input[i];
      if (b !== 10 && b !== 13) {
        i++;
        continue;
      }
      const end = b === 13 && input[i + 1] === 10 ? i + 2 : i + 1;
      if (i === lineStart) {
        frames.push(input.subarray(start, end).toString('latin1'));
        start = end;
      }
      i = end;
      lineStart = end;
    }
    if (start < input.length) frames.push(input.subarray(start).toString('latin1'));
    return frames;
  }

  it('cuts frames where the spec does, with LF-only and CR bytes, however the bytes are chunked', () => {
    const piece = fc.constantFrom('data: x', 'event: e', ': c', 'é', '\n', '\n\n', '\r', '\r\n', '\r\n\r\n', '{"a":"b"}');
    const stream = fc.array(piece, { maxLength: 30 }).map((pieces) => Buffer.from(pieces.join(''), 'utf8'));
    fc.assert(
      fc.property(stream, fc.array(fc.nat(), { maxLength: 6 }), (input, cutSeeds) => {
        const cuts = [...new Set(cutSeeds.map((c) => (input.length === 0 ? 0 : c % input.length)))].sort((a, b) => a - b);
        const chunks = [0, ...cuts].map((from, k) => copy(input, from, [...cuts, input.length][k] ?? input.length));
        const expected = specFrames(input);
        const rawOf = (frames: readonly FrameView[]): string[] => frames.map((f) => Buffer.from(f.raw).toString('latin1'));
        assert.deepEqual(rawOf(feed([input])), expected);
        assert.deepEqual(rawOf(feed(chunks)), expected);
      }),
      { numRuns: 3000 },
    );
  });
});

describe('readFields', () => {
  it('strips one space after the colon, keeps a value without a colon empty, ignores unknown fields', () => {
    assert.deepEqual(readFields('data:no-space\n\n'), { event: null, data: 'no-space' });
    assert.deepEqual(readFields('data:  two\n\n'), { event: null, data: ' two' });
    assert.deepEqual(readFields('data\n\n'), { event: null, data: '' });
    assert.deepEqual(readFields('data: a:b: c\n\n'), { event: null, data: 'a:b: c' });
    assert.deepEqual(readFields('id: 1\nretry: 10\nfoo: bar\n\n'), { event: null, data: null });
    assert.deepEqual(readFields(': comment\n\n'), { event: null, data: null });
    assert.deepEqual(readFields('event: a\nevent: b\ndata: x\n\n'), { event: 'b', data: 'x' });
    assert.deepEqual(readFields('data: one\ndata:\ndata: three'), { event: null, data: 'one\n\nthree' });
    assert.deepEqual(readFields('event\ndata: x:y\n\n'), { event: '', data: 'x:y' });
    assert.deepEqual(readFields('datum: x\nevents: y\n\n'), { event: null, data: null });
  });

  // The spec's field parsing, written the plain way: every line ending, a regex per line. readFields reads
  // LF-only text without either; both must agree on any text.
  function specFields(text: string): { event: string | null; data: string | null } {
    let event: string | null = null;
    let data: string | null = null;
    for (const line of text.split(/\r\n|\r|\n/)) {
      if (line === '' || line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const name = colon === -1 ? line : line.slice(0, colon);
      let value = colon === -1 ? '' : line.slice(colon + 1);
      if (value.startsWith(' ')) value = value.slice(1);
      if (name === 'data') data = data === null ? value : `${data}\n${value}`;
      else if (name === 'event') event = value;
    }
    return { event, data };
  }

  it('agrees with the spec on any text made of field-like lines, with or without CRs', () => {
    const piece = fc.constantFrom('data', 'event', 'id', 'dat', 'datas', ':', ': ', ' ', 'x', 'é', '\u2028', '\n', '\r', '\r\n', '{"a":1}');
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 24 }), (pieces) => {
        const text = pieces.join('');
        assert.deepEqual(readFields(text), specFields(text));
      }),
      { numRuns: 3000 },
    );
  });
});

describe('encodeFrame', () => {
  it('writes an event line and one data: line per line of data', () => {
    const frame = encodeFrame('first\nsecond\r\nthird', 'error');
    assert.equal(Buffer.from(frame.raw).toString('utf8'), 'event: error\ndata: first\ndata: second\ndata: third\n\n');
    assert.equal(frame.event, 'error');
    assert.equal(frame.data, 'first\nsecond\r\nthird');
  });

  it('omits the event line when there is no event, and round-trips through the parser', () => {
    const frame = encodeFrame('{"text":"héllo — 你好 🎉"}');
    assert.equal(Buffer.from(frame.raw).toString('utf8'), 'data: {"text":"héllo — 你好 🎉"}\n\n');
    assert.equal(frame.event, null);
    const parsed = feed([frame.raw]);
    assert.deepEqual(fields(parsed), [[null, '{"text":"héllo — 你好 🎉"}']]);
    assert.deepEqual(fields(feed([encodeFrame('a\nb', 'note').raw])), [['note', 'a\nb']]);
  });

  it('encodes a batch into one buffer whose parts are, byte for byte, the frames encodeFrame writes', () => {
    const batch = [
      { data: '{"text":"héllo — 你好 🎉"}', event: 'content_block_delta' },
      { data: 'multi\nline' },
      { data: '' },
      { data: '{"type":"message_stop"}', event: 'message_stop' },
    ];
    const frames = encodeFrames(batch);
    assert.equal(frames.length, batch.length);
    frames.forEach((frame, i) => {
      const one = encodeFrame(batch[i]?.data ?? '', batch[i]?.event);
      assert.deepEqual(Buffer.from(frame.raw), Buffer.from(one.raw), `frame ${i}`);
      assert.equal(frame.event, one.event);
      assert.equal(frame.data, one.data);
      // Side by side in one buffer: the relay writes them as one.
      if (i > 0) {
        const prev = frames[i - 1]?.raw as Uint8Array;
        assert.equal(frame.raw.buffer, prev.buffer);
        assert.equal(frame.raw.byteOffset, prev.byteOffset + prev.length);
      }
    });
    assert.deepEqual(fields(feed(frames.map((f) => f.raw))), batch.map((f) => [f.event ?? null, f.data]));
  });

  it('writes data with a lone CR or a trailing line break as several data lines that read back the same', () => {
    for (const data of ['a\rb', 'a\n', '\r\n', '', 'x\u2028y']) {
      const frame = encodeFrame(data, 'e');
      assert.deepEqual(fields(feed([frame.raw])), [['e', data.replace(/\r\n|\r/g, '\n')]], JSON.stringify(data));
    }
  });
});
