// Conversation affinity over real HTTP: a conversation (metadata.user_id on /v1/messages, prompt_cache_key on
// /v1/chat/completions) stays on the channel and upstream key that first served it, moves when that channel
// fails, and is counted in gateway_affinity_total{route,outcome}.

import assert from 'node:assert/strict';
import { createHash, randomUUID } from 'node:crypto';
import { after, before, beforeEach, describe, test } from 'node:test';
import { postChat } from '../helpers/chat-requests.js';
import { FakeAnthropic, defaultAnthropicReply } from '../helpers/fake-anthropic.js';
import { FakeOpenAI, defaultReply } from '../helpers/fake-openai.js';
import { TEST_KEY, channel, configWith, startGatewayUnderTest, type GatewayUnderTest } from '../helpers/gateway-under-test.js';
import { until } from '../helpers/poll.js';

const SECOND_KEY = 'sk-second-0123456789abcdefghij';
/** Appended right after the keys list of configWith(): one more declared key in group pro. */
const SECOND_KEY_BLOCK = `  - name: second
    key: ${SECOND_KEY}
    group: pro
`;
const MODEL = 'claude-sonnet-4-5';
const NAMES = ['a', 'b', 'c'] as const;
type Name = (typeof NAMES)[number];

// Probability notes for the "sticks" assertions below. Without affinity, each request draws a random order of
// the three equal channels, so N requests all landing on one channel by luck has probability 3 * (1/3)^N:
// about 1.6e-14 for N = 30, 1.9e-5 for N = 11. And each channel has two upstream keys rotated round-robin, so
// without affinity consecutive requests on one channel alternate keys: the same key every time is no accident.

/** A metadata.user_id as Claude Code sends it: a JSON string with device, account and session ids. */
function claudeCodeUserId(): string {
  const device = createHash('sha256').update(randomUUID()).digest('hex');
  return JSON.stringify({ device_id: device, account_uuid: '', session_id: randomUUID() });
}

/** A channel block like anthropicChannel(), with two upstream keys. */
function twoKeyChannel(name: string, url: string): string {
  return `  - name: ${name}
    type: anthropic
    base_url: ${url}
    keys: ["sk-ant-upstream-${name}-1", "sk-ant-upstream-${name}-2"]
    models: ["claude-*"]
    cooldown_ms: 0
`;
}

/** One upstream call as a fake saw it. */
interface UpstreamCall {
  readonly channel: string;
  readonly apiKey: string;
  readonly failed: boolean;
}

/** Three Anthropic fakes that log every call to one shared list; a channel in `failing` answers 500. */
class Upstreams {
  readonly fakes = new Map<Name, FakeAnthropic>();
  readonly calls: UpstreamCall[] = [];
  readonly failing = new Set<string>();

  async start(): Promise<this> {
    for (const name of NAMES) this.fakes.set(name, await new FakeAnthropic(name).start());
    this.reset();
    return this;
  }

  reset(): void {
    this.failing.clear();
    for (const fake of this.fakes.values()) {
      fake.reply = (req) => {
        const failed = this.failing.has(fake.name);
        this.calls.push({ channel: fake.name, apiKey: String(req.headers['x-api-key']), failed });
        return failed ? { kind: 'status', status: 500 } : defaultAnthropicReply(req);
      };
    }
  }

  fake(name: Name): FakeAnthropic {
    const fake = this.fakes.get(name);
    assert.ok(fake);
    return fake;
  }

  channels(extra = ''): string {
    return NAMES.map((name) => twoKeyChannel(name, this.fake(name).url)).join('') + extra;
  }

  async close(): Promise<void> {
    for (const fake of this.fakes.values()) await fake.close();
  }
}

interface Sent {
  /** Every upstream call this request made, in order. */
  readonly calls: readonly UpstreamCall[];
  /** The call that answered. */
  readonly served: UpstreamCall;
}

interface MessageOptions {
  readonly userId?: string;
  readonly key?: string;
  readonly model?: string;
  readonly stream?: boolean;
  /** Claude Code calls /v1/messages?beta=true. */
  readonly beta?: boolean;
}

function postMessages(gw: GatewayUnderTest, options: MessageOptions): Promise<Response> {
  const body: Record<string, unknown> = {
    model: options.model ?? MODEL,
    max_tokens: 64,
    messages: [{ role: 'user', content: 'hi' }],
    ...(options.stream === true ? { stream: true } : {}),
    ...(options.userId === undefined ? {} : { metadata: { user_id: options.userId } }),
  };
  return fetch(`${gw.url}/v1/messages${options.beta === true ? '?beta=true' : ''}`, {
    method: 'POST',
    headers: { 'x-api-key': options.key ?? TEST_KEY, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

/** Sends one /v1/messages request that must succeed; says which upstream calls it made and which one answered. */
async function send(gw: GatewayUnderTest, up: Upstreams, options: MessageOptions): Promise<Sent> {
  const from = up.calls.length;
  const res = await postMessages(gw, options);
  const text = await res.text();
  assert.equal(res.status, 200, text);
  const calls = up.calls.slice(from);
  const served = calls.at(-1);
  assert.ok(served !== undefined && !served.failed, `an upstream answered: ${JSON.stringify(calls)}`);
  if (options.stream !== true) assert.match(text, new RegExp(`reply from ${served.channel}`));
  return { calls, served };
}

/** Sends `n` requests of one conversation; returns where each was served. */
async function sendMany(gw: GatewayUnderTest, up: Upstreams, n: number, options: MessageOptions): Promise<Sent[]> {
  const out: Sent[] = [];
  for (let i = 0; i < n; i++) out.push(await send(gw, up, options));
  return out;
}

function distinct<T>(values: readonly T[]): Set<T> {
  return new Set(values);
}

// ---- metrics ----

type Outcome = 'hit' | 'miss' | 'break';
type AffinityCounts = Record<Outcome, number>;

/** Every gateway_affinity_total sample, as `${route} ${outcome}` -> value. */
async function affinitySamples(gw: GatewayUnderTest): Promise<Map<string, number>> {
  const res = await fetch(`${gw.url}/metrics`);
  assert.equal(res.status, 200);
  const samples = new Map<string, number>();
  for (const line of (await res.text()).split('\n')) {
    const m = /^gateway_affinity_total\{(.*)\} (\S+)$/.exec(line);
    if (m === null) continue;
    const labels = new Map<string, string>();
    for (const l of (m[1] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels.set(l[1] ?? '', l[2] ?? '');
    samples.set(`${labels.get('route') ?? '?'} ${labels.get('outcome') ?? '?'}`, Number(m[2]));
  }
  return samples;
}

async function affinityCounts(gw: GatewayUnderTest, route = '/v1/messages'): Promise<AffinityCounts> {
  const samples = await affinitySamples(gw);
  return { hit: samples.get(`${route} hit`) ?? 0, miss: samples.get(`${route} miss`) ?? 0, break: samples.get(`${route} break`) ?? 0 };
}

/** What the counters grew by since `before`. */
async function countsSince(gw: GatewayUnderTest, before: AffinityCounts, route = '/v1/messages'): Promise<AffinityCounts> {
  const now = await affinityCounts(gw, route);
  return { hit: now.hit - before.hit, miss: now.miss - before.miss, break: now.break - before.break };
}

// ---- /v1/messages, three equal Anthropic channels with two keys each ----

describe('/v1/messages: metadata.user_id keeps a conversation on one channel and key', () => {
  let up: Upstreams;
  let gw: GatewayUnderTest;

  before(async () => {
    up = await new Upstreams().start();
    gw = await startGatewayUnderTest(configWith(up.channels(), SECOND_KEY_BLOCK));
  });

  beforeEach(() => up.reset());

  after(async () => {
    await gw.stop();
    await up.close();
  });

  test('30 requests with one user_id reach one channel with one upstream key', async () => {
    const userId = claudeCodeUserId();
    // Streams and ?beta=true (as Claude Code sends) mixed in: the same route and the same conversation.
    const sent: Sent[] = [];
    for (let i = 0; i < 30; i++) sent.push(await send(gw, up, { userId, stream: i % 3 === 2, beta: i % 2 === 0 }));
    // 3 * (1/3)^30 ~ 1.6e-14 by luck; and two keys rotate round-robin, so one key throughout is affinity's doing.
    const channels = sent.map((s) => s.served.channel);
    assert.equal(distinct(channels).size, 1, `one channel: ${channels.join(',')}`);
    const keys = sent.map((s) => s.served.apiKey);
    assert.equal(distinct(keys).size, 1, `one upstream key: ${keys.join(',')}`);
    assert.ok(sent.every((s) => s.calls.length === 1), 'no other channel was asked');
    const first = sent[0]?.served;
    assert.ok(first);
    assert.match(first.apiKey, new RegExp(`^sk-ant-upstream-${first.channel}-[12]$`), 'the key belongs to the channel');
  });

  test('without a user_id, requests spread and keys rotate (the baseline the test above beats)', async () => {
    const sent = await sendMany(gw, up, 30, {});
    assert.ok(distinct(sent.map((s) => s.served.channel)).size >= 2, 'more than one channel');
    assert.ok(distinct(sent.map((s) => s.served.apiKey)).size >= 3, 'keys rotate');
  });

  test('30 different user_ids spread over more than one channel', async () => {
    const sent: Sent[] = [];
    for (let i = 0; i < 30; i++) sent.push(await send(gw, up, { userId: claudeCodeUserId() }));
    // Each new conversation takes a random channel: all 30 on one has probability 3 * (1/3)^30.
    assert.ok(distinct(sent.map((s) => s.served.channel)).size >= 2, JSON.stringify(sent.map((s) => s.served.channel)));
  });

  test('counted at /metrics: the first request a miss, the 29 repeats hits, no break', async () => {
    const before = await affinityCounts(gw);
    await sendMany(gw, up, 30, { userId: claudeCodeUserId() });
    assert.deepEqual(await countsSince(gw, before), { miss: 1, hit: 29, break: 0 });
  });

  test('a request without a conversation is not counted', async () => {
    const before = await affinityCounts(gw);
    await sendMany(gw, up, 3, {});
    await send(gw, up, { userId: '' });
    assert.deepEqual(await countsSince(gw, before), { miss: 0, hit: 0, break: 0 });
  });

  test('the bound channel fails: the conversation moves to the channel that served, and stays there after recovery', async () => {
    const userId = claudeCodeUserId();
    const before = await affinityCounts(gw);
    const [first] = await sendMany(gw, up, 3, { userId });
    assert.ok(first);
    const bound = first.served;

    up.failing.add(bound.channel);
    const moved = await send(gw, up, { userId });
    assert.deepEqual(moved.calls[0], { ...bound, failed: true }, 'the bound channel, with the bound key, was tried first');
    assert.notEqual(moved.served.channel, bound.channel, 'another channel answered');
    assert.deepEqual(await countsSince(gw, before), { miss: 1, hit: 2, break: 1 });

    up.failing.clear(); // the failed channel is healthy again (and has no cool-down)
    const after = await sendMany(gw, up, 10, { userId });
    for (const s of after) {
      assert.deepEqual(s.calls, [moved.served], 'the new channel and key, and nothing else, every time');
    }
    assert.deepEqual(await countsSince(gw, before), { miss: 1, hit: 12, break: 1 });
  });

  test('every channel fails: 5xx to the client, nothing counted, and the binding stays where it was', async () => {
    const userId = claudeCodeUserId();
    const [first] = await sendMany(gw, up, 1, { userId });
    assert.ok(first);
    const before = await affinityCounts(gw);
    for (const name of NAMES) up.failing.add(name);
    const from = up.calls.length;
    const res = await postMessages(gw, { userId });
    assert.ok(res.status >= 500, `status ${res.status}`);
    await res.arrayBuffer();
    assert.deepEqual(up.calls[from], { ...first.served, failed: true }, 'the bound channel was tried first');
    assert.equal(up.calls.length - from, 3, 'all three channels were tried');
    assert.deepEqual(await countsSince(gw, before), { miss: 0, hit: 0, break: 0 }, 'no upstream served it');

    up.failing.clear();
    const next = await send(gw, up, { userId });
    assert.deepEqual(next.calls, [first.served], 'back on the channel and key it was bound to');
    assert.deepEqual(await countsSince(gw, before), { miss: 0, hit: 1, break: 0 });
  });

  test('the same user_id from two caller keys is bound once per caller key', async () => {
    const userId = claudeCodeUserId();
    const before = await affinityCounts(gw);
    const mine = await send(gw, up, { userId, key: TEST_KEY });
    assert.deepEqual(await countsSince(gw, before), { miss: 1, hit: 0, break: 0 });
    const theirs = await send(gw, up, { userId, key: SECOND_KEY });
    assert.deepEqual(await countsSince(gw, before), { miss: 2, hit: 0, break: 0 }, 'the second caller found no binding: a miss');

    // Each caller's conversation then sticks to where it was first served (the two may or may not coincide).
    for (let i = 0; i < 10; i++) {
      assert.deepEqual((await send(gw, up, { userId, key: TEST_KEY })).calls, [mine.served]);
      assert.deepEqual((await send(gw, up, { userId, key: SECOND_KEY })).calls, [theirs.served]);
    }
    assert.deepEqual(await countsSince(gw, before), { miss: 2, hit: 20, break: 0 });
  });

  test('moving one caller\'s conversation leaves the other caller\'s binding alone', async () => {
    // Find a user_id the two callers have bound to different channels (each new binding is a random pick).
    let userId = '';
    let mine: UpstreamCall | undefined;
    let theirs: UpstreamCall | undefined;
    for (let i = 0; i < 40 && (mine === undefined || theirs === undefined || mine.channel === theirs.channel); i++) {
      userId = claudeCodeUserId();
      mine = (await send(gw, up, { userId, key: TEST_KEY })).served;
      theirs = (await send(gw, up, { userId, key: SECOND_KEY })).served;
    }
    assert.ok(mine && theirs && mine.channel !== theirs.channel, 'two callers bound apart within 40 tries');

    up.failing.add(mine.channel);
    const moved = await send(gw, up, { userId, key: TEST_KEY });
    assert.notEqual(moved.served.channel, mine.channel);
    up.failing.clear();
    assert.deepEqual((await send(gw, up, { userId, key: SECOND_KEY })).calls, [theirs], 'the other caller is where it was');
  });

  test('the same user_id with another model is another binding (Claude Code uses a small model for side tasks)', async () => {
    const userId = claudeCodeUserId();
    const before = await affinityCounts(gw);
    const big = await sendMany(gw, up, 5, { userId, model: 'claude-sonnet-4-5' });
    const small = await sendMany(gw, up, 5, { userId, model: 'claude-haiku-4-5' });
    assert.deepEqual(await countsSince(gw, before), { miss: 2, hit: 8, break: 0 });
    assert.equal(distinct(big.map((s) => `${s.served.channel} ${s.served.apiKey}`)).size, 1);
    assert.equal(distinct(small.map((s) => `${s.served.channel} ${s.served.apiKey}`)).size, 1);
  });
});

describe('/v1/messages: a bound channel that stops listening', () => {
  test('the conversation moves to a live channel and stays there', async () => {
    const up = await new Upstreams().start();
    const gw = await startGatewayUnderTest(configWith(up.channels()));
    try {
      const userId = claudeCodeUserId();
      const before = await affinityCounts(gw);
      const [first] = await sendMany(gw, up, 2, { userId });
      assert.ok(first);
      const dead = first.served.channel;
      await up.fake(dead as Name).close();

      const moved = await send(gw, up, { userId });
      assert.notEqual(moved.served.channel, dead);
      const after = await sendMany(gw, up, 10, { userId });
      for (const s of after) assert.deepEqual(s.calls, [moved.served]);
      assert.deepEqual(await countsSince(gw, before), { miss: 1, hit: 11, break: 1 });
    } finally {
      await gw.stop();
      await up.close(); // closing the already closed fake again is harmless
    }
  });
});

describe('/v1/messages: affinity and priority tiers', () => {
  test('a conversation on a backup tier stays there while the primary cools down, and returns once it is healthy', async () => {
    const up = await new Upstreams().start();
    const primary = twoKeyChannel('a', up.fake('a').url).replace('cooldown_ms: 0', 'cooldown_ms: 1500\n    priority: 1');
    const backups = twoKeyChannel('b', up.fake('b').url) + twoKeyChannel('c', up.fake('c').url);
    const gw = await startGatewayUnderTest(configWith(primary + backups));
    try {
      const userId = claudeCodeUserId();
      const before = await affinityCounts(gw);
      const first = await send(gw, up, { userId });
      assert.equal(first.served.channel, 'a', 'the higher tier serves first');

      up.failing.add('a');
      const moved = await send(gw, up, { userId });
      assert.deepEqual(moved.calls.map((c) => c.channel).slice(0, 1), ['a']);
      assert.notEqual(moved.served.channel, 'a');
      // While a cools down (1.5 s; these requests take milliseconds) the conversation stays on its backup.
      for (const s of await sendMany(gw, up, 5, { userId })) assert.deepEqual(s.calls, [moved.served]);

      up.failing.delete('a');
      const health = gw.gateway.runtime.current.services.router.health;
      await until('the primary has cooled down', () => (health.isCooling('a') ? undefined : true), { timeoutMs: 5000, intervalMs: 50 });
      const back = await send(gw, up, { userId });
      assert.equal(back.served.channel, 'a', 'the healthy primary tier wins over the binding');
      for (const s of await sendMany(gw, up, 3, { userId })) assert.deepEqual(s.calls, [back.served]);
      assert.deepEqual(await countsSince(gw, before), { miss: 1, hit: 8, break: 2 });
    } finally {
      await gw.stop();
      await up.close();
    }
  });
});

describe('/v1/messages: affinity settings', () => {
  test('ttl_ms 0 turns affinity off: one user_id spreads over channels, nothing is counted', async () => {
    const up = await new Upstreams().start();
    const gw = await startGatewayUnderTest(configWith(up.channels(), 'affinity:\n  ttl_ms: 0\n'));
    try {
      const sent = await sendMany(gw, up, 30, { userId: claudeCodeUserId() });
      // With affinity on, this is 1 channel (see above); off, 30 random picks all alike has probability 1.6e-14.
      assert.ok(distinct(sent.map((s) => s.served.channel)).size >= 2, 'more than one channel');
      assert.equal((await affinitySamples(gw)).size, 0, 'no gateway_affinity_total series');
    } finally {
      await gw.stop();
      await up.close();
    }
  });

  test('a binding unused for longer than ttl_ms is gone: the next request is a miss', async () => {
    const up = await new Upstreams().start();
    const gw = await startGatewayUnderTest(configWith(up.channels(), 'affinity:\n  ttl_ms: 1500\n'));
    try {
      const userId = claudeCodeUserId();
      await send(gw, up, { userId });
      await send(gw, up, { userId });
      assert.deepEqual(await affinityCounts(gw), { miss: 1, hit: 1, break: 0 });
      // has() neither renews an entry nor answers a stale one (a get() would renew it: updateAgeOnGet).
      const cache = (gw.gateway.runtime.deps.affinity as unknown as { cache: { has(k: string): boolean; keys(): Iterable<string> } }).cache;
      const keys = [...cache.keys()];
      assert.equal(keys.length, 1);
      await until('the binding expires', () => (keys.some((k) => cache.has(k)) ? undefined : true), { timeoutMs: 5000, intervalMs: 50 });
      await send(gw, up, { userId });
      assert.deepEqual(await affinityCounts(gw), { miss: 2, hit: 1, break: 0 }, 'expired after ttl_ms without use');
    } finally {
      await gw.stop();
      await up.close();
    }
  });

  test('max_entries 1: a second conversation pushes the first one out', async () => {
    const up = await new Upstreams().start();
    const gw = await startGatewayUnderTest(configWith(up.channels(), 'affinity:\n  max_entries: 1\n'));
    try {
      const one = claudeCodeUserId();
      const two = claudeCodeUserId();
      await send(gw, up, { userId: one });
      await send(gw, up, { userId: one });
      await send(gw, up, { userId: two });
      await send(gw, up, { userId: one });
      assert.deepEqual(await affinityCounts(gw), { miss: 3, hit: 1, break: 0 });
    } finally {
      await gw.stop();
      await up.close();
    }
  });
});

// ---- /v1/chat/completions, three equal OpenAI channels ----

describe('/v1/chat/completions: prompt_cache_key keeps a conversation on one channel', () => {
  const fakes: FakeOpenAI[] = [];
  let gw: GatewayUnderTest;

  before(async () => {
    for (const name of NAMES) fakes.push(await new FakeOpenAI(name).start());
    gw = await startGatewayUnderTest(configWith(fakes.map((f) => channel(f.name, f.url)).join('')));
  });

  beforeEach(() => {
    for (const fake of fakes) fake.reply = defaultReply;
  });

  after(async () => {
    await gw.stop();
    for (const fake of fakes) await fake.close();
  });

  /** Sends one chat request; returns the name of the channel that answered. */
  async function chat(body: Record<string, unknown>): Promise<string> {
    const res = await postChat(gw.url, { model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }], ...body });
    const text = await res.text();
    assert.equal(res.status, 200, text);
    const json = JSON.parse(text) as { choices: { message: { content: string } }[] };
    const content = json.choices[0]?.message.content ?? '';
    const m = /^reply from (\w+)$/.exec(content);
    assert.ok(m?.[1], content);
    return m[1];
  }

  test('30 requests with one prompt_cache_key reach one channel; counted under the chat route', async () => {
    const before = await affinityCounts(gw, '/v1/chat/completions');
    const key = `cache-${randomUUID()}`;
    const served: string[] = [];
    for (let i = 0; i < 30; i++) served.push(await chat({ prompt_cache_key: key }));
    // By luck: 3 * (1/3)^30 ~ 1.6e-14.
    assert.equal(distinct(served).size, 1, served.join(','));
    assert.deepEqual(await countsSince(gw, before, '/v1/chat/completions'), { miss: 1, hit: 29, break: 0 });
    assert.deepEqual(await affinityCounts(gw, '/v1/messages'), { miss: 0, hit: 0, break: 0 }, 'nothing under /v1/messages');
  });

  test('different prompt_cache_keys spread over more than one channel', async () => {
    const served: string[] = [];
    for (let i = 0; i < 30; i++) served.push(await chat({ prompt_cache_key: `cache-${randomUUID()}` }));
    assert.ok(distinct(served).size >= 2, served.join(','));
  });

  test('the bound channel answers 500: the conversation moves and stays', async () => {
    const key = `cache-${randomUUID()}`;
    const bound = await chat({ prompt_cache_key: key });
    const failing = fakes.find((f) => f.name === bound);
    assert.ok(failing);
    failing.reply = () => ({ kind: 'status', status: 500 });
    const before = await affinityCounts(gw, '/v1/chat/completions');
    const moved = await chat({ prompt_cache_key: key });
    assert.notEqual(moved, bound);
    failing.reply = defaultReply;
    for (let i = 0; i < 10; i++) assert.equal(await chat({ prompt_cache_key: key }), moved);
    assert.deepEqual(await countsSince(gw, before, '/v1/chat/completions'), { miss: 0, hit: 10, break: 1 });
  });
});
