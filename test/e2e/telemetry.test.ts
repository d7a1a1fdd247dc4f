// OpenTelemetry traces over real HTTP: a stand-in collector on loopback receives one trace per request (a SERVER span,
// a CLIENT span per upstream attempt, the balance hold's store write), with the GenAI attributes, the client's
// traceparent continued and each attempt's sent upstream; a failover shows both attempts; a dead collector costs no
// request and is counted; without `telemetry:` nothing of it runs.

import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, beforeEach, describe, it } from 'node:test';
import OpenAI from 'openai';
import { freePort } from '../helpers/cli-process.js';
import { FakeOpenAI, defaultReply } from '../helpers/fake-openai.js';
import { TEST_KEY, startGatewayUnderTest, type GatewayUnderTest } from '../helpers/gateway-under-test.js';
import { OtlpReceiver, type ReceivedSpan } from '../helpers/otlp-receiver.js';
import { until } from '../helpers/poll.js';

const ADMIN = 'test-admin-token-0123456789';
const METERED = 'sk-metered-0123456789abcdef';
const OTLP_TOKEN = 'otlp-token-0123456789abcdef';
// gpt-4o: 2.50 in, 10.00 out, 1.25 cache reads, per 1M tokens; the fake reports 31 prompt tokens (12 cached) and 7
// completion tokens: 19 x 2.5 + 12 x 1.25 + 7 x 10 = 132.5 per 1M = 132,500 nano-units.
const COST = 132_500;
const SERVER = 2;
const CLIENT = 3;
const ERROR = 2;

function config(primary: string, backup: string, telemetry: string): string {
  return `server:
  port: 0
  host: 127.0.0.1
  admin_token: ${ADMIN}
store:
  url: sqlite:./gateway.db
pricing:
  models:
    "gpt-4o": { input: 2.50, output: 10.00, cache_read: 1.25 }
groups:
  pro: { models: ["*"] }
accounts:
  - name: acme
keys:
  - { name: metered, key: ${METERED}, group: pro, account: acme }
  - { name: free, key: ${TEST_KEY}, group: pro }
channels:
  - { name: primary, type: openai, base_url: "${primary}", keys: [sk-up-1], models: ["gpt-*"], priority: 10, cooldown_ms: 0 }
  - { name: backup, type: openai, base_url: "${backup}", keys: [sk-up-2], models: ["gpt-*"], cooldown_ms: 0 }
${telemetry}`;
}

/** A client's span: a random trace and span id, sampled. */
function clientSpan(): { traceId: string; spanId: string; traceparent: string } {
  const traceId = randomBytes(16).toString('hex');
  const spanId = randomBytes(8).toString('hex');
  return { traceId, spanId, traceparent: `00-${traceId}-${spanId}-01` };
}

/** A Chat Completions request with `key` and, when given, the client's traceparent. */
function post(url: string, body: unknown, key: string, traceparent?: string): Promise<Response> {
  const headers: Record<string, string> = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  if (traceparent !== undefined) headers['traceparent'] = traceparent;
  return fetch(`${url}/v1/chat/completions`, { method: 'POST', headers, body: JSON.stringify(body) });
}

const chatBody = { model: 'gpt-4o', messages: [{ role: 'user' as const, content: 'hi' }], max_tokens: 10 };

describe('traces to a collector', () => {
  const primary = new FakeOpenAI('primary');
  const backup = new FakeOpenAI('backup');
  const collector = new OtlpReceiver();
  let gw: GatewayUnderTest;

  /** The spans of `traceId` once its request span arrived (the gateway's batch flushed as often as asked). */
  const traceOf = (traceId: string): Promise<ReceivedSpan[]> =>
    until(
      `the trace ${traceId}`,
      async () => {
        await gw.gateway.runtime.current.tracer?.flush();
        const spans = collector.trace(traceId);
        return spans.some((s) => s.kind === SERVER) ? spans : undefined;
      },
      { timeoutMs: 10_000, intervalMs: 20 },
    );

  before(async () => {
    await primary.start();
    await backup.start();
    await collector.start();
    const telemetry = `telemetry:
  otlp_endpoint: "${collector.url}"
  service_name: gateway-under-test
  headers: { authorization: "Bearer ${OTLP_TOKEN}" }
`;
    gw = await startGatewayUnderTest(config(primary.url, backup.url, telemetry));
    const credit = await fetch(`${gw.url}/admin/accounts/acme/credit`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ amount: '10', idempotency_key: 'telemetry' }),
    });
    assert.equal(credit.status, 201);
  });

  beforeEach(() => {
    primary.reply = defaultReply;
    backup.reply = defaultReply;
  });

  after(async () => {
    await gw.stop();
    await primary.close();
    await backup.close();
    await collector.close();
  });

  it("continues the client's traceparent: one trace, its attempt's id sent upstream, the GenAI attributes and the charge", async () => {
    const client = new OpenAI({ apiKey: METERED, baseURL: `${gw.url}/v1`, maxRetries: 0 });
    const parent = clientSpan();
    const sentBefore = primary.requests.length;
    const completion = await client.chat.completions.create(chatBody, { headers: { traceparent: parent.traceparent } });
    assert.equal(completion.choices[0]?.message.content, 'reply from primary');

    const spans = await traceOf(parent.traceId);
    const servers = spans.filter((s) => s.kind === SERVER);
    assert.equal(servers.length, 1, 'one request span');
    const request = servers[0] as ReceivedSpan;
    assert.equal(request.parentSpanId, parent.spanId, "the request span's parent is the client's span");
    assert.equal(request.serviceName, 'gateway-under-test');
    const attempts = spans.filter((s) => s.kind === CLIENT);
    assert.equal(attempts.length, 1, 'one attempt');
    const attempt = attempts[0] as ReceivedSpan;
    assert.equal(attempt.parentSpanId, request.spanId);
    // The upstream was called with the attempt's span as its parent, not the client's.
    const sent = primary.requests.slice(sentBefore);
    assert.equal(sent.length, 1);
    assert.equal(sent[0]?.headers['traceparent'], `00-${parent.traceId}-${attempt.spanId}-01`);

    assert.deepEqual(
      {
        system: request.attributes['gen_ai.system'],
        model: request.attributes['gen_ai.request.model'],
        responseModel: request.attributes['gen_ai.response.model'],
        input: request.attributes['gen_ai.usage.input_tokens'],
        output: request.attributes['gen_ai.usage.output_tokens'],
        cacheRead: request.attributes['gen_ai.usage.cache_read.input_tokens'],
        cacheWrite: request.attributes['gen_ai.usage.cache_creation.input_tokens'],
        channel: request.attributes['gateway.channel'],
        keyName: request.attributes['gateway.key.name'],
        account: request.attributes['gateway.account'],
        status: request.attributes['http.response.status_code'],
        charge: request.attributes['gateway.charge.nano'],
        error: request.attributes['error.type'],
      },
      {
        system: 'openai',
        model: 'gpt-4o',
        responseModel: 'gpt-4o',
        input: 31,
        output: 7,
        cacheRead: 12,
        cacheWrite: undefined,
        channel: 'primary',
        keyName: 'metered',
        account: 'acme',
        status: 200,
        charge: COST,
        error: undefined,
      },
    );
    assert.equal(attempt.attributes['gen_ai.system'], 'openai');
    assert.equal(attempt.attributes['gateway.channel'], 'primary');
    assert.equal(attempt.attributes['http.response.status_code'], 200);
    // The account's first request waited for its balance hold, written in the store.
    const holds = spans.filter((s) => s.name === 'store acquire_hold');
    assert.equal(holds.length, 1, 'the hold acquisition is on the request path');
    assert.equal(holds[0]?.parentSpanId, request.spanId);
    // Never the key in a span; the collector's credential in the export's headers only.
    assert.ok(!JSON.stringify(spans).includes(METERED));
    assert.ok(collector.exports.every((h) => h['authorization'] === `Bearer ${OTLP_TOKEN}`));
    assert.deepEqual(collector.strays, []);
  });

  it("a stream's request span ends with the stream: its usage, from the last frames, is on it", async () => {
    const client = new OpenAI({ apiKey: TEST_KEY, baseURL: `${gw.url}/v1`, maxRetries: 0 });
    const parent = clientSpan();
    const stream = await client.chat.completions.create(
      Object.assign({ stream: true as const, stream_options: { include_usage: true } }, chatBody),
      { headers: { traceparent: parent.traceparent } },
    );
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    assert.ok(text.length > 0);
    const spans = await traceOf(parent.traceId);
    const request = spans.find((s) => s.kind === SERVER) as ReceivedSpan;
    assert.equal(spans.filter((s) => s.kind === SERVER).length, 1);
    assert.equal(spans.filter((s) => s.kind === CLIENT).length, 1);
    assert.equal(request.attributes['gen_ai.usage.input_tokens'], 31);
    assert.equal(request.attributes['gen_ai.usage.output_tokens'], 7);
    assert.equal(request.attributes['http.response.status_code'], 200);
  });

  it('a failover shows both attempts, the failed one with its status, each sent its own traceparent', async () => {
    primary.reply = () => ({ kind: 'status', status: 503 });
    const parent = clientSpan();
    const [p0, b0] = [primary.requests.length, backup.requests.length];
    const res = await post(gw.url, chatBody, TEST_KEY, parent.traceparent);
    assert.equal(res.status, 200);
    await res.text();

    const spans = await traceOf(parent.traceId);
    const request = spans.find((s) => s.kind === SERVER) as ReceivedSpan;
    const attempts = spans.filter((s) => s.kind === CLIENT);
    assert.deepEqual(
      attempts.map((a) => [a.attributes['gateway.channel'], a.attributes['http.response.status_code'], a.statusCode === ERROR]).sort(),
      [
        ['backup', 200, false],
        ['primary', 503, true],
      ],
    );
    assert.ok(attempts.every((a) => a.parentSpanId === request.spanId));
    const failed = attempts.find((a) => a.attributes['gateway.channel'] === 'primary') as ReceivedSpan;
    const served = attempts.find((a) => a.attributes['gateway.channel'] === 'backup') as ReceivedSpan;
    assert.equal(primary.requests[p0]?.headers['traceparent'], `00-${parent.traceId}-${failed.spanId}-01`);
    assert.equal(backup.requests[b0]?.headers['traceparent'], `00-${parent.traceId}-${served.spanId}-01`);
    assert.equal(request.attributes['gateway.channel'], 'backup');
    // An unmetered key: its cost is recorded (and traced), no account pays it.
    assert.equal(request.attributes['gateway.charge.nano'], COST);
    assert.equal(request.attributes['gateway.account'], undefined);
  });

  it("a translated request (Messages to a Chat channel) sends its attempt's traceparent too", async () => {
    const parent = clientSpan();
    const sentBefore = primary.requests.length;
    const res = await fetch(`${gw.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': TEST_KEY, 'anthropic-version': '2023-06-01', 'content-type': 'application/json', traceparent: parent.traceparent },
      body: JSON.stringify({ model: 'gpt-4o', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }),
    });
    assert.equal(res.status, 200);
    await res.text();
    const attempt = (await traceOf(parent.traceId)).find((s) => s.kind === CLIENT) as ReceivedSpan;
    assert.equal(primary.requests[sentBefore]?.headers['traceparent'], `00-${parent.traceId}-${attempt.spanId}-01`);
  });

  it('each request without a traceparent is a trace of its own, its request span a root', async () => {
    const before = new Set(collector.spans.map((s) => s.traceId));
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await post(gw.url, chatBody, TEST_KEY);
      assert.equal(res.status, 200);
      await res.text();
      ids.push(res.headers.get('x-request-id') ?? '');
    }
    const servers = await until(
      'three request spans',
      async () => {
        await gw.gateway.runtime.current.tracer?.flush();
        const found = collector.spans.filter((s) => s.kind === SERVER && ids.includes(String(s.attributes['gateway.request.id'])));
        return found.length === 3 ? found : undefined;
      },
      { timeoutMs: 10_000, intervalMs: 20 },
    );
    const traces = new Set(servers.map((s) => s.traceId));
    assert.equal(traces.size, 3);
    for (const traceId of traces) {
      assert.ok(!before.has(traceId));
      assert.equal(collector.trace(traceId).filter((s) => s.kind === SERVER).length, 1);
      assert.equal(collector.trace(traceId).find((s) => s.kind === SERVER)?.parentSpanId, '');
    }
  });

  it('an error is the span status and its code the error.type', async () => {
    const parent = clientSpan();
    const res = await post(gw.url, { model: 'no-such-model', messages: [{ role: 'user', content: 'hi' }] }, TEST_KEY, parent.traceparent);
    assert.equal(res.status, 404);
    await res.text();
    const request = (await traceOf(parent.traceId)).find((s) => s.kind === SERVER) as ReceivedSpan;
    assert.equal(request.statusCode, ERROR);
    assert.equal(request.attributes['error.type'], 'GW_ERR_MODEL_NOT_FOUND');
    assert.equal(request.attributes['http.response.status_code'], 404);
  });
});

describe('a collector that is down', () => {
  const upstream = new FakeOpenAI('primary');
  let gw: GatewayUnderTest;

  before(async () => {
    await upstream.start();
    const dead = `http://127.0.0.1:${await freePort()}`;
    gw = await startGatewayUnderTest(config(upstream.url, upstream.url, `telemetry:\n  otlp_endpoint: "${dead}"\n  export_timeout_ms: 300\n`));
  });

  after(async () => {
    await gw.stop();
    await upstream.close();
  });

  it('costs no request; its failed exports are counted', async () => {
    for (let i = 0; i < 3; i++) {
      const res = await post(gw.url, chatBody, TEST_KEY, clientSpan().traceparent);
      assert.equal(res.status, 200);
      await res.text();
    }
    // forceFlush resolves once the export has failed (its retries given up within export_timeout_ms).
    await gw.gateway.runtime.current.tracer?.flush();
    const failures = await until(
      'a counted export failure',
      async () => {
        const text = await (await fetch(`${gw.url}/metrics`)).text();
        const line = text.split('\n').find((l) => l.startsWith('gateway_trace_export_failures_total '));
        const count = Number(line?.split(' ')[1] ?? 0);
        return count > 0 ? count : undefined;
      },
      { timeoutMs: 10_000, intervalMs: 20 },
    );
    assert.ok(failures >= 1);
    // Still serving.
    assert.equal((await post(gw.url, chatBody, TEST_KEY)).status, 200);
  });

  it('a reload without telemetry: no tracer any more, the old one closed without holding the reload up', async () => {
    await gw.writeConfig(config(upstream.url, upstream.url, ''));
    assert.equal(await gw.gateway.reload(), true);
    assert.equal(gw.gateway.runtime.current.tracer, null);
    const parent = clientSpan();
    const res = await post(gw.url, chatBody, TEST_KEY, parent.traceparent);
    assert.equal(res.status, 200);
    await res.text();
    assert.equal(upstream.requests.at(-1)?.headers['traceparent'], parent.traceparent);
  });
});

describe('without telemetry', () => {
  const upstream = new FakeOpenAI('primary');
  let gw: GatewayUnderTest;

  before(async () => {
    await upstream.start();
    gw = await startGatewayUnderTest(config(upstream.url, upstream.url, ''));
  });

  after(async () => {
    await gw.stop();
    await upstream.close();
  });

  it('makes no tracer and no metric; the client traceparent passes as before', async () => {
    assert.equal(gw.gateway.runtime.current.tracer, null);
    const parent = clientSpan();
    const res = await post(gw.url, chatBody, TEST_KEY, parent.traceparent);
    assert.equal(res.status, 200);
    await res.text();
    assert.equal(upstream.requests.at(-1)?.headers['traceparent'], parent.traceparent);
    const text = await (await fetch(`${gw.url}/metrics`)).text();
    assert.ok(!text.includes('gateway_trace_export_failures_total'));
  });
});

describe('sample_ratio 0', () => {
  const upstream = new FakeOpenAI('primary');
  const collector = new OtlpReceiver();
  let gw: GatewayUnderTest;

  before(async () => {
    await upstream.start();
    await collector.start();
    gw = await startGatewayUnderTest(config(upstream.url, upstream.url, `telemetry:\n  otlp_endpoint: "${collector.url}"\n  sample_ratio: 0\n`));
  });

  after(async () => {
    await gw.stop();
    await upstream.close();
    await collector.close();
  });

  it("traces no request of its own, still passes a traceparent (not sampled); a client's sampled one is traced", async () => {
    const res = await post(gw.url, chatBody, TEST_KEY);
    assert.equal(res.status, 200);
    await res.text();
    assert.match(String(upstream.requests.at(-1)?.headers['traceparent']), /^00-[0-9a-f]{32}-[0-9a-f]{16}-00$/);
    const parent = clientSpan();
    const traced = await post(gw.url, chatBody, TEST_KEY, parent.traceparent);
    assert.equal(traced.status, 200);
    await traced.text();
    await gw.gateway.runtime.current.tracer?.flush();
    const spans = await until(
      "the client's trace",
      async () => {
        await gw.gateway.runtime.current.tracer?.flush();
        return collector.spans.some((s) => s.kind === SERVER) ? collector.spans : undefined;
      },
      { timeoutMs: 10_000, intervalMs: 20 },
    );
    // Everything exported is the client's trace: the unsampled request sent nothing.
    assert.deepEqual([...new Set(spans.map((s) => s.traceId))], [parent.traceId]);
  });
});
