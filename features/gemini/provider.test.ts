// The gemini channel's 429 and 503: Google tells the wait only in the body (RetryInfo's retryDelay), and the relay reads
// only retry-after (it drops the body of a status that fails a channel over), so the provider puts it there.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { UpstreamResponse } from '../../core/providers/provider.js';
import { readBody } from '../../core/providers/read-body.js';
import { withRetryAfter } from './provider.js';

function googleError(status: number, delay: string | null): Record<string, unknown> {
  const details = delay === null ? [] : [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: delay }];
  return { error: { code: status, message: 'Resource has been exhausted (e.g. check quota).', status: 'RESOURCE_EXHAUSTED', details } };
}

async function* chunks(parts: readonly (Buffer | Error)[]): AsyncGenerator<Uint8Array> {
  for (const part of parts) {
    if (part instanceof Error) throw part;
    yield part;
  }
}

function answer(status: number, body: unknown, headers: Record<string, string> = {}): UpstreamResponse {
  const bytes = Buffer.from(JSON.stringify(body));
  // In two chunks, as a body read off the wire may come.
  return { status, headers: { 'content-type': 'application/json; charset=UTF-8', ...headers }, body: chunks([bytes.subarray(0, 10), bytes.subarray(10)]), discard: () => Promise.resolve() };
}

async function bodyText(res: UpstreamResponse): Promise<string> {
  return (await readBody(res.body)).toString('utf8');
}

describe('a gemini channel\'s wait, from its body to retry-after', () => {
  it('a 429\'s RetryInfo is its retry-after, in whole seconds rounded up; the body is given again as it came', async () => {
    const body = googleError(429, '7s');
    const res = await withRetryAfter(answer(429, body));
    assert.equal(res.status, 429);
    assert.equal(res.headers['retry-after'], '7');
    assert.equal(res.headers['content-type'], 'application/json; charset=UTF-8');
    assert.equal(await bodyText(res), JSON.stringify(body));
    assert.equal((await withRetryAfter(answer(429, googleError(429, '45.837906927s')))).headers['retry-after'], '46', 'a protobuf duration, as Google writes it');
  });

  it('reads the one-element array streamGenerateContent wraps its errors in, and a 503\'s RetryInfo', async () => {
    assert.equal((await withRetryAfter(answer(429, [googleError(429, '3s')]))).headers['retry-after'], '3');
    assert.equal((await withRetryAfter(answer(503, googleError(503, '2s')))).headers['retry-after'], '2');
  });

  it('leaves alone a retry-after the upstream sent, another status, and a body that names no wait', async () => {
    const sent = answer(429, googleError(429, '7s'), { 'retry-after': '30' });
    assert.equal(await withRetryAfter(sent), sent, 'the upstream\'s own header wins');
    const invalid = answer(400, { error: { code: 400, message: 'Request contains an invalid argument.', status: 'INVALID_ARGUMENT' } });
    assert.equal(await withRetryAfter(invalid), invalid, 'a 400 is not read here: the client gets its message');
    const none = await withRetryAfter(answer(429, googleError(429, null)));
    assert.equal(none.headers['retry-after'], undefined);
    assert.equal(JSON.parse(await bodyText(none)).error.status, 'RESOURCE_EXHAUSTED');
    for (const delay of ['soon', '-1s', '0s', '']) {
      assert.equal((await withRetryAfter(answer(429, googleError(429, delay)))).headers['retry-after'], undefined, delay);
    }
  });

  it('a body that is no JSON, breaks off or is too large names no wait (and is dropped)', async () => {
    const html: UpstreamResponse = { status: 429, headers: {}, body: chunks([Buffer.from('<html>Too Many Requests</html>')]), discard: () => Promise.resolve() };
    assert.equal((await withRetryAfter(html)).headers['retry-after'], undefined);
    const broken: UpstreamResponse = { status: 429, headers: {}, body: chunks([Buffer.from('{"error":'), new Error('socket hang up')]), discard: () => Promise.resolve() };
    const afterBreak = await withRetryAfter(broken);
    assert.deepEqual([afterBreak.status, afterBreak.headers['retry-after'], await bodyText(afterBreak)], [429, undefined, '']);
    const huge: UpstreamResponse = { status: 429, headers: {}, body: chunks([Buffer.alloc(100 * 1024, 0x20)]), discard: () => Promise.resolve() };
    const big = await withRetryAfter(huge);
    assert.deepEqual([big.headers['retry-after'], await bodyText(big)], [undefined, '']);
  });
});
