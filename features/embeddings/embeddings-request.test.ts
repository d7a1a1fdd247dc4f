// The gateway's reading of an embeddings body: the model routed, the whole body kept, and the reservation core makes
// from it (core/money/estimate.ts: the body's bytes / 4). For text, that covers the tokens the mock counts; for token
// ids it covers one token an id from 3-digit ids on, and never less than half a token an id (ids of one digit).

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { GatewayError } from '../../core/errors.js';
import { BodyBytes } from '../../core/formats/body-bytes.js';
import { inputEstimate } from '../../core/money/estimate.js';
import { createOpenAIEmbeddingsFormat } from './format.js';

const format = createOpenAIEmbeddingsFormat();

function decode(body: unknown): ReturnType<typeof format.decodeRequest> {
  return format.decodeRequest(BodyBytes.of(Buffer.from(JSON.stringify(body))));
}

describe('decoding POST /v1/embeddings', () => {
  it('reads the model, never a stream, and keeps the whole body', () => {
    const body = { model: 'text-embedding-3-small', input: ['a', 'b'], encoding_format: 'base64', dimensions: 8, user: 'u1' };
    const request = decode(body);
    assert.deepEqual([request.model, request.stream, request.conversation, request.images], ['text-embedding-3-small', false, null, undefined]);
    assert.deepEqual(request.json, body);
  });

  it('refuses more than 2048 inputs before walking them, and a body past 4 MiB before parsing it', () => {
    const many = (): unknown => decode({ model: 'm', input: Array.from({ length: 2049 }, () => [1]) });
    assert.throws(many, (err: unknown) => err instanceof GatewayError && err.status === 400 && err.param === 'input' && /at most 2048 inputs/.test(err.message));
    const huge = (): unknown => decode({ model: 'm', input: 'x'.repeat(4 * 1024 * 1024) });
    assert.throws(huge, (err: unknown) => err instanceof GatewayError && err.status === 413 && err.code === 'GW_ERR_REQUEST_TOO_LARGE');
    // The bound is the body's: 2048 inputs of a long text each are read.
    assert.equal(decode({ model: 'm', input: Array.from({ length: 2048 }, () => 'a text') }).model, 'm');
  });

  it('reserves at least the tokens of text, and of token ids of 3 digits or more', () => {
    const text = 'The quick brown fox jumped over the lazy dog. '.repeat(40);
    assert.ok(inputEstimate(decode({ model: 'm', input: text })) >= Math.ceil(text.length / 4));
    assert.ok(inputEstimate(decode({ model: 'm', input: Array.from({ length: 50 }, () => 'a b') })) >= 50);
    const ids = Array.from({ length: 1000 }, (_, i) => 100 + i);
    assert.ok(inputEstimate(decode({ model: 'm', input: ids })) >= ids.length);
    assert.ok(inputEstimate(decode({ model: 'm', input: [ids, ids] })) >= 2 * ids.length);
  });

  it('reserves at least half a token an id for ids of one digit: the bound of its overrun', () => {
    const ids = Array.from({ length: 1000 }, (_, i) => i % 10);
    const estimate = inputEstimate(decode({ model: 'm', input: ids }));
    assert.ok(estimate >= ids.length / 2 && estimate < ids.length, String(estimate));
  });
});
