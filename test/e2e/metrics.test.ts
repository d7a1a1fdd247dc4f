// GET /metrics after real traffic: request counts, latency and TTFT histograms, tokens, upstream errors, open
// streams, bounded label values, and no secret anywhere in the exposition text.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { postChat } from '../helpers/chat-requests.js';
import { DEFAULT_USAGE, FakeOpenAI } from '../helpers/fake-openai.js';
import { LIMITED_KEY, TEST_KEY, configWith, startGatewayUnderTest, type GatewayUnderTest } from '../helpers/gateway-under-test.js';
import { until } from '../helpers/poll.js';

const ROUTE = '/v1/chat/completions';
const ADMIN_TOKEN = 'test-admin-token-0123456789';
const SLOW_PIECES = Array.from({ length: 25 }, (_, i) => `p${i} `);

let a: FakeOpenAI;
let flaky: FakeOpenAI;
let backup: FakeOpenAI;
let gw: GatewayUnderTest;

before(async () => {
  a = await new FakeOpenAI('a').start();
  flaky = await new FakeOpenAI('flaky').start();
  backup = await new FakeOpenAI('backup').start();
  a.reply = (req) =>
    req.body['stream'] !== true
      ? { kind: 'completion' }
      : req.body['model'] === 'gpt-slow'
        ? { kind: 'stream', pieces: SLOW_PIECES, delayMs: 120 }
        : { kind: 'stream' };
  flaky.reply = () => ({ kind: 'status', status: 500 });
  gw = await startGatewayUnderTest(
    configWith(`  - name: a
    type: openai
    base_url: ${a.url}
    keys: ["sk-upstream-a-secret-0001"]
    models: ["gpt-4o", "gpt-slow"]
  - name: flaky
    type: openai
    base_url: ${flaky.url}
    keys: ["sk-upstream-flaky-secret-0002"]
    models: ["gpt-failover"]
    priority: 10
    cooldown_ms: 0
  - name: backup
    type: openai
    base_url: ${backup.url}
    keys: ["sk-upstream-backup-secret-0003"]
    models: ["gpt-failover"]
`),
  );
});

after(async () => {
  await gw.stop();
  await a.close();
  await flaky.close();
  await backup.close();
});

// ---- the exposition format ----

interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

function parseExposition(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)(?: \d+)?$/.exec(line);
    assert.ok(m, `not an exposition line: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[l[1] ?? ''] = l[2] ?? '';
    const raw = m[3] ?? '';
    samples.push({ name: m[1] ?? '', labels, value: raw === '+Inf' ? Infinity : raw === '-Inf' ? -Infinity : Number(raw) });
  }
  return samples;
}

function matching(samples: readonly Sample[], name: string, labels: Record<string, string>): Sample[] {
  return samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
}

/** The value of the one sample with this name and these labels; undefined when there is none. */
function valueOf(samples: readonly Sample[], name: string, labels: Record<string, string>): number | undefined {
  const found = matching(samples, name, labels);
  assert.ok(found.length <= 1, `${name} ${JSON.stringify(labels)} matches ${found.length} samples`);
  return found[0]?.value;
}

async function scrape(): Promise<{ text: string; samples: Sample[] }> {
  const res = await fetch(`${gw.url}/metrics`);
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
  const text = await res.text();
  return { text, samples: parseExposition(text) };
}

function chat(body: Record<string, unknown>, key = TEST_KEY): Promise<Response> {
  return postChat(gw.url, { messages: [{ role: 'user', content: 'hi' }], ...body }, { key });
}

/** Cumulative buckets: non-decreasing in `le`, the +Inf bucket equal to _count. */
function assertHistogram(samples: readonly Sample[], name: string, labels: Record<string, string>, count: number): void {
  const buckets = matching(samples, `${name}_bucket`, labels).sort((x, y) => Number(x.labels['le']) - Number(y.labels['le']));
  assert.ok(buckets.length > 5, `${name} has buckets for ${JSON.stringify(labels)}`);
  for (let i = 1; i < buckets.length; i++) assert.ok((buckets[i]?.value ?? 0) >= (buckets[i - 1]?.value ?? 0), `${name} buckets are cumulative`);
  assert.equal(valueOf(samples, `${name}_bucket`, { ...labels, le: '+Inf' }), count);
  assert.equal(valueOf(samples, `${name}_count`, labels), count);
  const sum = valueOf(samples, `${name}_sum`, labels) ?? -1;
  assert.ok(sum > 0 && Number.isFinite(sum), `${name}_sum is a positive number of seconds`);
}

// ---- tests ----

test('counts, histograms, tokens and upstream errors follow a stream, a completion and a failover', async () => {
  const completion = await chat({ model: 'gpt-4o' });
  assert.equal(completion.status, 200);
  await completion.text();
  const stream = await chat({ model: 'gpt-4o', stream: true });
  assert.equal(stream.status, 200);
  assert.ok((await stream.text()).endsWith('data: [DONE]\n\n'));
  const failover = await chat({ model: 'gpt-failover' });
  assert.equal(failover.status, 200);
  assert.equal(((await failover.json()) as { choices: { message: { content: string } }[] }).choices[0]?.message.content, 'reply from backup');
  assert.equal(flaky.requests.length, 1, 'the failover went through the failing channel first');

  const { samples } = await scrape();
  const gpt4o = { route: ROUTE, model: 'gpt-4o', channel: 'a' };
  assert.equal(valueOf(samples, 'gateway_requests_total', { ...gpt4o, status: '200' }), 2);
  assert.equal(valueOf(samples, 'gateway_requests_total', { route: ROUTE, model: 'gpt-failover', channel: 'backup', status: '200' }), 1);
  assert.deepEqual(matching(samples, 'gateway_requests_total', { channel: 'flaky' }), [], 'a failed attempt is not an answered request');
  assert.equal(matching(samples, 'gateway_requests_total', {}).length, 2);

  assert.equal(valueOf(samples, 'gateway_upstream_errors_total', { channel: 'flaky', reason: 'status_500' }), 1);
  assert.equal(matching(samples, 'gateway_upstream_errors_total', {}).length, 1);

  assertHistogram(samples, 'gateway_request_duration_seconds', gpt4o, 2);
  assertHistogram(samples, 'gateway_time_to_first_token_seconds', gpt4o, 2);
  assertHistogram(samples, 'gateway_request_duration_seconds', { route: ROUTE, model: 'gpt-failover', channel: 'backup' }, 1);

  const tokens = (model: string, channel: string, kind: string): number | undefined => valueOf(samples, 'gateway_tokens_total', { model, channel, kind });
  assert.equal(tokens('gpt-4o', 'a', 'prompt'), 2 * DEFAULT_USAGE.prompt);
  assert.equal(tokens('gpt-4o', 'a', 'completion'), 2 * DEFAULT_USAGE.completion);
  assert.equal(tokens('gpt-4o', 'a', 'cached'), 2 * (DEFAULT_USAGE.cached ?? 0));
  assert.equal(tokens('gpt-4o', 'a', 'reasoning'), 2 * (DEFAULT_USAGE.reasoning ?? 0));
  assert.equal(tokens('gpt-failover', 'backup', 'prompt'), DEFAULT_USAGE.prompt);
  assert.equal(tokens('gpt-failover', 'flaky', 'prompt'), undefined);

  assert.equal(valueOf(samples, 'gateway_streams_in_flight', { route: ROUTE }), 0);
  // The process metrics of prom-client are there too.
  assert.ok(matching(samples, 'process_cpu_user_seconds_total', {}).length === 1);
});

test('gateway_streams_in_flight is 1 while a slow stream is open and 0 after it ends', async () => {
  const res = await chat({ model: 'gpt-slow', stream: true });
  assert.equal(res.status, 200);
  const reader = res.body?.getReader();
  assert.ok(reader);
  const first = await reader.read(); // the stream is open and flowing
  assert.equal(first.done, false);

  const open = await scrape();
  assert.equal(valueOf(open.samples, 'gateway_streams_in_flight', { route: ROUTE }), 1);
  assert.equal(valueOf(open.samples, 'gateway_requests_total', { route: ROUTE, model: 'gpt-slow', channel: 'a', status: '200' }), undefined);

  let text = new TextDecoder().decode(first.value);
  for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) text += new TextDecoder().decode(chunk.value);
  assert.ok(text.endsWith('data: [DONE]\n\n'));

  await until(
    'the gauge to drop to 0',
    async () => {
      const { samples } = await scrape();
      return valueOf(samples, 'gateway_streams_in_flight', { route: ROUTE }) === 0 ? true : undefined;
    },
    { timeoutMs: 10_000, intervalMs: 20 },
  );
  const { samples } = await scrape();
  assert.equal(valueOf(samples, 'gateway_requests_total', { route: ROUTE, model: 'gpt-slow', channel: 'a', status: '200' }), 1);
  assertHistogram(samples, 'gateway_time_to_first_token_seconds', { route: ROUTE, model: 'gpt-slow', channel: 'a' }, 1);
});

test('refused and unroutable requests keep caller-chosen names out of the labels', async () => {
  const badKey = 'sk-not-a-real-key-ABCDEFGHIJKL';
  const unauthorized = await chat({ model: 'gpt-4o' }, badKey);
  assert.equal(unauthorized.status, 401);
  await unauthorized.text();
  const unknown = await chat({ model: 'gpt-made-up-model-xyz' });
  assert.equal(unknown.status, 404);
  await unknown.text();
  const forbidden = await chat({ model: 'gpt-4o' }, LIMITED_KEY);
  assert.equal(forbidden.status, 403);
  await forbidden.text();

  const { text, samples } = await scrape();
  assert.ok(!text.includes('gpt-made-up-model-xyz'), 'an unknown model name never becomes a label value');
  const unrouted = { route: ROUTE, model: 'unrouted', channel: 'none' };
  assert.equal(valueOf(samples, 'gateway_requests_total', { ...unrouted, status: '401' }), 1);
  assert.equal(valueOf(samples, 'gateway_requests_total', { ...unrouted, status: '404' }), 1);
  assert.equal(valueOf(samples, 'gateway_requests_total', { ...unrouted, status: '403' }), 1);
});

test('the metrics text contains no key, upstream key or admin token', async () => {
  // Admin traffic (which carries the admin token) happens before this scrape too.
  const listed = await fetch(`${gw.url}/admin/keys`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  assert.equal(listed.status, 200);
  await listed.text();
  const { text } = await scrape();
  for (const secret of [TEST_KEY, LIMITED_KEY, ADMIN_TOKEN, 'sk-upstream-a-secret-0001', 'sk-upstream-flaky-secret-0002', 'sk-upstream-backup-secret-0003', 'sk-not-a-real-key']) {
    assert.ok(!text.includes(secret), `metrics leak ${secret.slice(0, 12)}…`);
  }
  assert.doesNotMatch(text, /sk-[A-Za-z0-9_-]{8,}/, 'nothing key-shaped at all');
  assert.doesNotMatch(text, /Bearer/i);
});
