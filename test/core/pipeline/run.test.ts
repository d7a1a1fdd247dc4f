// runChain's stream relay on its own (the e2e tests cover it over HTTP): what it keeps while a stream waits for
// its next read, and what a frame plugin that throws does to the upstream.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { BodyBytes } from '../../../core/formats/body-bytes.js';
import { createOpenAIChatFormat } from '../../../core/formats/openai-chat/index.js';
import { GatewayMetrics } from '../../../core/metrics/gateway-metrics.js';
import type { Chain } from '../../../core/pipeline/chain.js';
import { ClientAbort } from '../../../core/client-abort.js';
import type { Plugin } from '../../../core/pipeline/plugin.js';
import { RequestState } from '../../../core/pipeline/request-state.js';
import { runChain } from '../../../core/pipeline/run.js';
import type { ResponseSink } from '../../../core/pipeline/sink.js';
import { UpstreamBody } from '../../../core/providers/upstream-body.js';
import { frameBatches, PASS_THROUGH } from '../../../core/sse/frame-batches.js';
import type { SseFrame } from '../../../core/sse/frame.js';

class RecordingSink implements ResponseSink {
  started = false;
  ended = false;
  readonly written: string[] = [];
  send(): void {
    this.started = true;
    this.ended = true;
  }
  open(): void {
    this.started = true;
  }
  write(chunk: Uint8Array): undefined {
    this.written.push(Buffer.from(chunk).toString());
    return undefined;
  }
  cork(): void {}
  uncork(): void {}
  end(): void {
    this.ended = true;
  }
}

/** A chain whose relay streams `body` through frameBatches, with the given frame plugins. */
function streamChain(body: UpstreamBody, frame: readonly Plugin[]): Chain {
  const relay: Chain['relay'] = {
    name: 'test-relay',
    relay: () => Promise.resolve({ kind: 'stream', status: 200, headers: {}, frames: frameBatches(body, PASS_THROUGH) }),
  };
  return { route: '/v1/chat/completions', format: createOpenAIChatFormat(), plugins: [], head: [], request: [], relay, response: [], frame, finish: [], overheadHeader: true };
}

function context(): RequestState {
  const body = BodyBytes.of(Buffer.from('{"model":"m","stream":true,"messages":[]}'));
  return new RequestState('req_test', '/v1/chat/completions', '', createOpenAIChatFormat(), {}, new ClientAbort(), Date.now(), 0, body);
}

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('runChain relaying a stream', () => {
  it('keeps nothing of a batch while it waits for the next read', async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const cancels: string[] = [];
    const body = new UpstreamBody({ pause() {}, resume() {}, cancel: () => cancels.push('cancel') });
    let seen: WeakRef<SseFrame> | undefined;
    const spy: Plugin = {
      name: 'spy',
      frame(_ctx, frame) {
        seen ??= new WeakRef(frame);
        return frame;
      },
    };
    const sink = new RecordingSink();
    const run = runChain(streamChain(body, [spy]), context(), sink, new GatewayMetrics({ defaultMetrics: false }));
    await tick();
    body.push(Buffer.from('data: {"n":1}\n\n'));
    await tick();
    assert.deepEqual(sink.written, ['data: {"n":1}\n\n']);
    gc();
    assert.notEqual(seen, undefined);
    assert.equal(seen?.deref(), undefined, 'the first batch is not reachable while the relay waits for the second');
    body.push(Buffer.from('data: [DONE]\n\n'));
    body.end();
    await run;
    assert.deepEqual(sink.written, ['data: {"n":1}\n\n', 'data: [DONE]\n\n']);
    assert.equal(sink.ended, true);
    assert.deepEqual(cancels, []);
  });

  it('a frame plugin that throws closes the upstream and ends the stream with the in-band error', async () => {
    const cancels: string[] = [];
    const body = new UpstreamBody({ pause() {}, resume() {}, cancel: () => cancels.push('cancel') });
    const failing: Plugin = {
      name: 'failing',
      frame() {
        throw new Error('frame hook broke');
      },
    };
    const sink = new RecordingSink();
    const ctx = context();
    const run = runChain(streamChain(body, [failing]), ctx, sink, new GatewayMetrics({ defaultMetrics: false }));
    await tick();
    body.push(Buffer.from('data: {"n":1}\n\n'));
    await run;
    assert.deepEqual(cancels, ['cancel'], 'the upstream body was closed');
    assert.equal(sink.ended, true);
    assert.equal(sink.written.length, 1, 'one in-band error frame, nothing of the upstream');
    assert.match(sink.written[0] ?? '', /error/);
    assert.notEqual(ctx.error, null);
  });

  /**
   * Relays `frames` (over `body`) through runChain: each of `reads` is pushed after a tick, then the body ends.
   * The body and the batches are set to fail if read by next(), so a test shows how the relay reads.
   */
  async function relayPulled(
    body: UpstreamBody,
    frames: ReturnType<typeof frameBatches>,
    reads: readonly string[],
  ): Promise<{ ctx: RequestState; sink: RecordingSink }> {
    frames.next = () => Promise.reject(new Error('the batches were read by next()'));
    const relay: Chain['relay'] = { name: 'test-relay', relay: () => Promise.resolve({ kind: 'stream', status: 200, headers: {}, frames }) };
    const sink = new RecordingSink();
    const ctx = context();
    const run = runChain({ ...streamChain(body, []), relay }, ctx, sink, new GatewayMetrics({ defaultMetrics: false }));
    for (const read of reads) {
      await tick();
      body.push(Buffer.from(read));
    }
    body.end();
    await run;
    return { ctx, sink };
  }

  it('relays a pulled stream by polling: no promise per read, not pull() (ARCHITECTURE.md)', async () => {
    const body = new UpstreamBody({ pause() {}, resume() {}, cancel() {} });
    const frames = frameBatches(body, PASS_THROUGH) as ReturnType<typeof frameBatches> & { pull(): Promise<void> };
    frames.pull = () => Promise.reject(new Error('the batches were pull()ed'));
    const { ctx, sink } = await relayPulled(body, frames, ['data: {"n":1}\n\n', 'data: {"n":2}\n\n', 'data: [DONE]\n\n']);
    assert.equal(ctx.error, null);
    assert.deepEqual(sink.written, ['data: {"n":1}\n\n', 'data: {"n":2}\n\n', 'data: [DONE]\n\n']);
    assert.equal(sink.ended, true);
  });

  it('pulls the relay frames: no read or batch comes as the value of a promise (ARCHITECTURE.md)', async () => {
    const body = new UpstreamBody({ pause() {}, resume() {}, cancel() {} });
    const { ctx, sink } = await relayPulled(body, frameBatches(body, PASS_THROUGH), ['data: {"n":1}\n\n', 'data: {"n":2}\n\ndata: [DONE]\n\n']);
    assert.equal(ctx.error, null);
    assert.deepEqual(sink.written, ['data: {"n":1}\n\n', 'data: {"n":2}\n\ndata: [DONE]\n\n']);
    assert.equal(sink.ended, true);
  });
});
