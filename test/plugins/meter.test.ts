// meter: backpressure when usage cannot be written, include_usage forcing, and the dropped usage chunk.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { GatewayError } from '../../core/errors.js';
import { createOpenAIChatFormat } from '../../core/formats/openai-chat/index.js';
import { GatewayMetrics } from '../../core/metrics/gateway-metrics.js';
import { ClientAbort } from '../../core/client-abort.js';
import type { RequestContext } from '../../core/pipeline/context.js';
import type { GatewayServices, UsageSink } from '../../core/pipeline/plugin.js';
import { encodeFrame } from '../../core/sse/frame-writer.js';
import type { UsageRecord } from '../../core/store/store.js';
import { UsageWriter } from '../../core/store/usage-writer.js';
import type { Store } from '../../core/store/store.js';
import { meterPlugin } from '../../plugins/meter/index.js';
import { BodyBytes } from '../../core/formats/body-bytes.js';
import { Router } from '../../core/routing/router.js';
import { SlotValues } from '../../core/slot.js';

function sink(saturated: boolean): UsageSink & { records: UsageRecord[] } {
  const records: UsageRecord[] = [];
  return { records, saturated, add: (r) => records.push(r) };
}

function services(usage: UsageSink): GatewayServices {
  return { usage, metrics: new GatewayMetrics({ defaultMetrics: false }), router: new Router([]) } as unknown as GatewayServices;
}

function context(body: Record<string, unknown>): RequestContext {
  const raw = Buffer.from(JSON.stringify(body));
  const slots = new SlotValues();
  return {
    id: 'req_1',
    route: '/v1/chat/completions',
    query: '',
    format: createOpenAIChatFormat(),
    headers: {},
    clientAddress: '127.0.0.1',
    abort: new ClientAbort(),
    receivedAt: Date.now(),
    startedAt: 0,
    request: { raw: BodyBytes.of(raw), head: body, json: body, model: String(body['model']), stream: body['stream'] === true, conversation: null },
    bodyOverride: null,
    key: { id: 'k1', name: 'tester', group: 'pro' },
    channel: 'a',
    upstreamModel: 'gpt-4o',
    status: 200,
    error: null,
    firstByteAt: null,
    stream: body['stream'] === true,
    aborted: false,
    trace: null,
    framesSent: 0,
    bodyBytesSent: 0,
    upstreamWaitMs: null,
    bodyWaitMs: 0,
    responseHeaders: null,
    safe: false,
    carriesBody: true,
    get: (key) => slots.get(key),
    set: (key, value) => slots.set(key, value),
  };
}

test('a saturated usage backlog refuses new requests with 503 instead of serving them unbilled', () => {
  const plugin = meterPlugin.create({}, services(sink(true)));
  const ctx = context({ model: 'gpt-4o', messages: [] });
  assert.throws(() => plugin.request?.(ctx), (err: unknown) => err instanceof GatewayError && err.code === 'GW_ERR_USAGE_BACKLOG' && err.status === 503);
});

test('UsageWriter reports saturation at its high-water mark and never drops what it accepted', async () => {
  let fail = true;
  const written: UsageRecord[] = [];
  const store = {
    insertUsage: async (records: readonly UsageRecord[]) => {
      if (fail) throw new Error('store down');
      written.push(...records);
    },
  } as unknown as Store;
  const writer = new UsageWriter(store, { flushIntervalMs: 10_000, highWaterMark: 3, onError: () => undefined });
  const ctx = context({ model: 'gpt-4o', messages: [] });
  const plugin = meterPlugin.create({}, services(writer));
  for (let i = 0; i < 3; i++) {
    plugin.request?.(ctx);
    plugin.finish?.(ctx);
  }
  await writer.flush().catch(() => undefined);
  assert.equal(writer.saturated, true);
  assert.throws(() => plugin.request?.(ctx), (err: unknown) => err instanceof GatewayError && err.code === 'GW_ERR_USAGE_BACKLOG');
  fail = false;
  await writer.close();
  assert.equal(written.length, 3);
  assert.equal(writer.saturated, false);
});

test('a stream without include_usage gets it forced upstream, and the usage-only chunk is dropped', () => {
  const usage = sink(false);
  const plugin = meterPlugin.create({}, services(usage));
  const ctx = context({ model: 'gpt-4o', stream: true, messages: [], stream_options: { include_obfuscation: false } });
  plugin.request?.(ctx);
  assert.ok(ctx.bodyOverride !== null);
  const sent = JSON.parse(ctx.bodyOverride.joined().toString('utf8')) as Record<string, unknown>;
  assert.deepEqual(sent['stream_options'], { include_obfuscation: false, include_usage: true });
  assert.deepEqual({ ...sent, stream_options: null }, { ...ctx.request.json, stream_options: null }, 'nothing else changed');
  const content = encodeFrame(JSON.stringify({ choices: [{ index: 0, delta: { content: 'x' } }], usage: null }));
  const usageOnly = encodeFrame(JSON.stringify({ choices: [], usage: { prompt_tokens: 5, completion_tokens: 2, prompt_tokens_details: { cached_tokens: 1 } } }));
  assert.equal(plugin.frame?.(ctx, content), content);
  assert.equal(plugin.frame?.(ctx, usageOnly), null);
  plugin.finish?.(ctx);
  assert.equal(usage.records.length, 1);
  assert.deepEqual([usage.records[0]?.promptTokens, usage.records[0]?.completionTokens, usage.records[0]?.cachedTokens], [5, 2, 1]);
});

test('a client that asked for usage keeps the usage chunk and its body is not rewritten', () => {
  const plugin = meterPlugin.create({}, services(sink(false)));
  const ctx = context({ model: 'gpt-4o', stream: true, messages: [], stream_options: { include_usage: true } });
  plugin.request?.(ctx);
  assert.equal(ctx.bodyOverride, null);
  const usageOnly = encodeFrame(JSON.stringify({ choices: [], usage: { prompt_tokens: 5, completion_tokens: 2 } }));
  assert.equal(plugin.frame?.(ctx, usageOnly), usageOnly);
});
