// x-gateway-overhead-ms as runChain writes it: the time to the answer's headers less the upstreams' part (and the
// client's body), on every answer an upstream took part in (a whole one, a stream, the error after it failed), on
// none other, and on none when the server's overhead_header is off.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { performance } from 'node:perf_hooks';
import { GatewayError } from '../../../core/errors.js';
import { BodyBytes } from '../../../core/formats/body-bytes.js';
import { createOpenAIChatFormat } from '../../../core/formats/openai-chat/index.js';
import { GatewayMetrics } from '../../../core/metrics/gateway-metrics.js';
import type { Chain } from '../../../core/pipeline/chain.js';
import { ClientAbort } from '../../../core/client-abort.js';
import type { RelayResult } from '../../../core/pipeline/plugin.js';
import { RequestState } from '../../../core/pipeline/request-state.js';
import { overheadText, runChain } from '../../../core/pipeline/run.js';
import { OVERHEAD_HEADER, type ResponseSink } from '../../../core/pipeline/sink.js';
import type { RequestContext } from '../../../core/pipeline/context.js';

class HeaderSink implements ResponseSink {
  started = false;
  headers: Readonly<Record<string, string>> = {};
  send(_status: number, headers: Readonly<Record<string, string>>, _body: Buffer | string, overheadMs?: string): void {
    this.open(_status, headers, overheadMs);
  }
  open(_status: number, headers: Readonly<Record<string, string>>, overheadMs?: string): void {
    this.started = true;
    // As RawSink sends them.
    this.headers = overheadMs === undefined ? headers : { ...headers, [OVERHEAD_HEADER]: overheadMs };
  }
  write(): undefined {
    return undefined;
  }
  cork(): void {}
  uncork(): void {}
  end(): void {}
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** A relay that spends `ownMs` of its own, then "waits on an upstream" for `upstreamMs` (counted so), then `answer`. */
function chainOf(answer: (ctx: RequestContext) => RelayResult, options: { ownMs: number; upstreamMs: number | null; overheadHeader?: boolean }): Chain {
  const relay: Chain['relay'] = {
    name: 'test-relay',
    async relay(ctx) {
      const begin = performance.now();
      while (performance.now() - begin < options.ownMs) {
        // The gateway's own work: busy, not waiting.
      }
      if (options.upstreamMs !== null) {
        const sent = performance.now();
        await sleep(options.upstreamMs);
        ctx.upstreamWaitMs = (ctx.upstreamWaitMs ?? 0) + (performance.now() - sent);
      }
      return answer(ctx);
    },
  };
  return { route: '/v1/chat/completions', format: createOpenAIChatFormat(), plugins: [], head: [], request: [], relay, response: [], frame: [], finish: [], overheadHeader: options.overheadHeader ?? true };
}

async function headersOf(chain: Chain): Promise<Readonly<Record<string, string>>> {
  const body = BodyBytes.of(Buffer.from('{"model":"m","messages":[]}'));
  const ctx = new RequestState('req_test', '/v1/chat/completions', '', createOpenAIChatFormat(), {}, new ClientAbort(), Date.now(), performance.now(), body);
  const sink = new HeaderSink();
  await runChain(chain, ctx, sink, new GatewayMetrics({ defaultMetrics: false }));
  return sink.headers;
}

const whole = (): RelayResult => ({ kind: 'body', status: 200, headers: { 'content-type': 'application/json' }, body: Buffer.from('{}') });

describe('x-gateway-overhead-ms', () => {
  it('is the time to the headers less the upstream wait, to the microsecond', async () => {
    const headers = await headersOf(chainOf(whole, { ownMs: 20, upstreamMs: 60 }));
    const overhead = Number(headers['x-gateway-overhead-ms']);
    assert.match(headers['x-gateway-overhead-ms'] ?? '', /^\d+(\.\d{1,3})?$/);
    assert.ok(overhead >= 20 && overhead < 55, `${overhead} ms: the 20 ms of own work, not the 60 ms upstream`);
    assert.equal(headers['content-type'], 'application/json');
  });

  it('is on a stream\'s headers and on the error answered after an upstream failed', async () => {
    const stream = await headersOf(
      // A stream that ends at once: its headers are written all the same.
      chainOf(() => ({ kind: 'stream', status: 200, headers: {}, frames: { poll: () => true, take: () => null, return: () => Promise.resolve(undefined) } }), { ownMs: 1, upstreamMs: 5 }),
    );
    assert.ok(Number(stream['x-gateway-overhead-ms']) >= 1);
    const failed = await headersOf(
      chainOf(
        () => {
          throw new GatewayError('GW_ERR_UPSTREAM_ERROR', 'every channel failed');
        },
        { ownMs: 1, upstreamMs: 5 },
      ),
    );
    assert.ok(Number(failed['x-gateway-overhead-ms']) >= 1);
  });

  it('is absent where no upstream was called, and when server.overhead_header is off', async () => {
    assert.equal((await headersOf(chainOf(whole, { ownMs: 0, upstreamMs: null })))['x-gateway-overhead-ms'], undefined);
    assert.equal((await headersOf(chainOf(whole, { ownMs: 0, upstreamMs: 1, overheadHeader: false })))['x-gateway-overhead-ms'], undefined);
  });

  it('is written as milliseconds with at most three decimals, never below zero', () => {
    assert.deepEqual([0.1234, 12.3456789, 0, -0.2, 1 / 3, 7].map(overheadText), ['0.123', '12.346', '0', '0', '0.333', '7']);
    // Built from integers: the fraction's leading zeros kept, a whole number of milliseconds bare.
    assert.deepEqual([0.0004, 0.05, 0.0071, 2.0001, 1234.5].map(overheadText), ['0', '0.050', '0.007', '2', '1234.500']);
  });
});
