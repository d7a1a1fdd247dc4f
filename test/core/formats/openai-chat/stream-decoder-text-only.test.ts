// The Chat stream decoder's text-only path (a chunk that repeats the last text-delta chunk with another content
// string) must give exactly what the whole parse gives. Differential: the same chunks go to a second decoder
// with a field that changes every chunk put first, so no chunk matches the one before and each is parsed whole.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { openaiChatCodec as codec } from '../../../../core/formats/openai-chat/codec.js';
import type { StreamEvent } from '../../../../core/ir/stream.js';

/** What the whole parse sees: the same chunk with a field that differs from every other chunk's. */
function unmatchable(data: string, n: number): string {
  return data.startsWith('{') ? `{"_n":${n},${data.slice(1)}` : data;
}

function decodeBoth(chunks: readonly string[]): { fast: StreamEvent[]; whole: StreamEvent[] } {
  const a = codec.createStreamDecoder();
  const b = codec.createStreamDecoder();
  const fast: StreamEvent[] = [];
  const whole: StreamEvent[] = [];
  chunks.forEach((data, n) => {
    fast.push(...a.push(null, data));
    whole.push(...b.push(null, unmatchable(data, n)));
  });
  return { fast, whole };
}

const head = (id: string, extra = ''): string => `{"id":${JSON.stringify(id)},"object":"chat.completion.chunk","created":1700000000,"model":"gpt-4o"${extra},"choices":[`;
const textChunk = (id: string, text: string): string => `${head(id)}{"index":0,"delta":{"content":${JSON.stringify(text)}},"logprobs":null,"finish_reason":null}]}`;

describe('Chat stream decoder, text-only chunks', () => {
  it('decodes a run of text chunks as the whole parse does, content of every kind', () => {
    const text = fc.oneof(
      fc.string(),
      fc.string({ unit: 'grapheme' }),
      fc.constantFrom('', '"', '\\', '\\"', '"}]}', '","x":"', 'chatcmpl-1', 'gpt-4o', '\u0000', '\u2028', 'null', '0'),
    );
    fc.assert(
      fc.property(fc.array(text, { maxLength: 12 }), fc.constantFrom('chatcmpl-1', 'x'), (texts, id) => {
        const first = `${head(id)}{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]}`;
        const chunks = [first, ...texts.map((t) => textChunk(id, t)), `${head(id)}{"index":0,"delta":{},"logprobs":null,"finish_reason":"stop"}]}`];
        const { fast, whole } = decodeBoth(chunks);
        assert.deepEqual(fast, whole);
      }),
      { numRuns: 300 },
    );
  });

  it('takes the whole parse for anything else between text chunks: reasoning, tool calls, usage, another shape', () => {
    const piece = fc.oneof(
      fc.string().map((t) => ({ kind: 'text', t })),
      fc.string().map((t) => ({ kind: 'reasoning', t })),
      fc.string().map((t) => ({ kind: 'refusal', t })),
      fc.string().map((t) => ({ kind: 'text+refusal', t })),
      fc.string().map((t) => ({ kind: 'spaced', t })),
      fc.string().map((t) => ({ kind: 'tool', t })),
      fc.constant({ kind: 'keepalive', t: '' }),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 16 }), (pieces) => {
        const id = 'chatcmpl-9';
        const chunks = pieces.map(({ kind, t }, k) => {
          const s = JSON.stringify(t);
          switch (kind) {
            case 'reasoning':
              return `${head(id)}{"index":0,"delta":{"reasoning_content":${s}},"finish_reason":null}]}`;
            case 'refusal':
              return `${head(id)}{"index":0,"delta":{"refusal":${s}},"finish_reason":null}]}`;
            case 'text+refusal':
              // Empty content gives way to the refusal: the template must not hide that.
              return `${head(id)}{"index":0,"delta":{"content":${k % 3 === 0 ? '""' : s},"refusal":"r"},"finish_reason":null}]}`;
            case 'spaced':
              return `${head(id)}{"index":0, "delta":{"content":${s}},"logprobs":null,"finish_reason":null}]}`;
            case 'tool':
              return `${head(id)}{"index":0,"delta":{"tool_calls":[{"index":${k % 2},"id":"call_${k}","function":{"name":"f","arguments":${s}}}]},"finish_reason":null}]}`;
            case 'keepalive':
              return '';
            default:
              return textChunk(id, t);
          }
        });
        chunks.push(`${head(id, ',"usage":{"prompt_tokens":3,"completion_tokens":4,"total_tokens":7}')}]}`);
        const { fast, whole } = decodeBoth(chunks);
        assert.deepEqual(fast, whole);
      }),
      { numRuns: 300 },
    );
  });

  it('an empty content next to a refusal the template holds is decoded as the whole parse does (a reviewer\'s case)', () => {
    const chunks = [
      '{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"a"},"finish_reason":null}]}',
      '{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"x","refusal":"y"},"finish_reason":null}]}',
      '{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"","refusal":"y"},"finish_reason":null}]}',
    ];
    const { fast, whole } = decodeBoth(chunks);
    assert.deepEqual(fast, whole);
    assert.deepEqual(fast.at(-1), { type: 'text_delta', index: 0, text: 'y' });
  });

  it('a content equal to the probe string does not mislead the slot check (a reviewer\'s case)', () => {
    const chunks = [
      '{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"a"},"finish_reason":null}]}',
      '{"x":"\\u0000gateway probe","id":"c","choices":[{"index":0,"delta":{"content":"\\u0000gateway prob\\u0065"},"finish_reason":null}]}',
      '{"x":"hello","id":"c","choices":[{"index":0,"delta":{"content":"\\u0000gateway prob\\u0065"},"finish_reason":null}]}',
    ];
    const { fast, whole } = decodeBoth(chunks);
    assert.deepEqual(fast, whole);
    assert.deepEqual(fast.at(-1), { type: 'text_delta', index: 0, text: '\u0000gateway probe' });
  });

  it('a chunk that is no longer JSON after a text run is still the broken stream, not a text delta', () => {
    const decoder = codec.createStreamDecoder();
    decoder.push(null, textChunk('c', 'a'));
    decoder.push(null, textChunk('c', 'b'));
    const broken = decoder.push(null, `${head('c')}{"index":0,"delta":{"content":"x"y"},"logprobs":null,"finish_reason":null}]}`);
    assert.equal(broken.length, 1);
    assert.equal(broken[0]?.type, 'error');
  });

  it('the fast path is taken: a text chunk after the first text delta costs no whole parse', () => {
    const decoder = codec.createStreamDecoder();
    decoder.push(null, textChunk('c', 'a'));
    decoder.push(null, textChunk('c', 'b'));
    const parse = JSON.parse;
    let wholeParses = 0;
    JSON.parse = ((text: string, reviver?: Parameters<typeof JSON.parse>[1]) => {
      if (text.startsWith('{')) wholeParses++;
      return parse(text, reviver);
    }) as typeof JSON.parse;
    try {
      assert.deepEqual(decoder.push(null, textChunk('c', 'hello "world"')), [{ type: 'text_delta', index: 0, text: 'hello "world"' }]);
    } finally {
      JSON.parse = parse;
    }
    assert.equal(wholeParses, 0);
  });
});
