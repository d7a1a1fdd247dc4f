// The reading protocol's helpers: a body read through failingAs maps its failure once, whatever the reader does.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { UpstreamBody } from '../../../core/providers/upstream-body.js';
import { failingAs, nextChunk } from '../../../core/sse/pulled-body.js';

describe('failingAs', () => {
  it('passes chunks through and maps the failure once, then throws the same error again', async () => {
    const body = new UpstreamBody({ pause() {}, resume() {}, cancel() {} });
    let mapped = 0;
    const read = failingAs(body, (err) => {
      mapped += 1;
      return new Error(`mapped: ${(err as Error).message}`);
    });
    body.push(Buffer.from('a'));
    assert.equal(Buffer.from((await nextChunk(read)).value as Uint8Array).toString(), 'a');
    body.fail(new Error('reset'));
    const first = await nextChunk(read).catch((err: unknown) => err);
    const second = await nextChunk(read).catch((err: unknown) => err);
    assert.match(String(first), /mapped: reset/);
    assert.equal(second, first);
    assert.equal(mapped, 1);
  });
});
