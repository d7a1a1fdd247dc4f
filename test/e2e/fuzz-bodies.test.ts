// Fuzzing the API routes over loopback on the mock channel: near-valid bodies of each format broken at arbitrary
// places, and arbitrary JSON, streamed and not, natively and translated. No body is answered with a 5xx, every
// refusal is in the route's error shape, and every answer of 2xx parses (streams frame by frame, no in-band error).

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { anyJson, chatBody, compactBody, countTokensBody, messagesBody, mutate, mutation, responsesBody, type Json } from '../helpers/fuzz-bodies.js';
import { MOCK_MODELS, mockFormatChannels, postAs, type Answer, type Shape } from '../helpers/fuzz-gateway.js';
import { configWith, startGatewayUnderTest, type GatewayUnderTest } from '../helpers/gateway-under-test.js';
import { splitSse } from '../helpers/sse-text.js';

interface Route {
  readonly path: string;
  readonly shape: Shape;
  readonly body: (model: string) => fc.Arbitrary<Json>;
  readonly runs: number;
  /** Served by a channel of another format too (through translation); else only by demo-chat. */
  readonly translatable: boolean;
}

const ROUTES: readonly Route[] = [
  { path: '/v1/chat/completions', shape: 'openai', body: chatBody, runs: 900, translatable: true },
  { path: '/v1/responses', shape: 'openai', body: responsesBody, runs: 900, translatable: true },
  { path: '/v1/messages', shape: 'anthropic', body: messagesBody, runs: 900, translatable: true },
  { path: '/v1/messages/count_tokens', shape: 'anthropic', body: countTokensBody, runs: 300, translatable: false },
  { path: '/v1/responses/compact', shape: 'openai', body: compactBody, runs: 300, translatable: false },
];

let gw: GatewayUnderTest;

before(async () => {
  // count_tokens has its own limit per key (100 a minute by default): the fuzzing sends hundreds in one.
  const routes = `routes:
  - path: /v1/messages/count_tokens
    plugins: [{ use: auth }, { use: rate-limit, with: { route_rpm: 100000 } }, { use: meter }, { use: relay }]
`;
  gw = await startGatewayUnderTest(configWith(mockFormatChannels(), routes));
});

after(async () => {
  await gw.stop();
});

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * An error body in the route's shape: OpenAI {error:{message,type,param,code}}, Anthropic {type:"error",
 * error:{type,message}}. `namesField`: an OpenAI refusal of the body must name the field (the body is an object).
 */
function assertError(shape: Shape, text: string, namesField: boolean): void {
  const json: unknown = JSON.parse(text);
  assert.ok(isObject(json) && isObject(json['error']), 'not an error body');
  const error = json['error'];
  assert.equal(typeof error['message'], 'string');
  assert.equal(typeof error['type'], 'string');
  if (shape === 'anthropic') {
    assert.equal(json['type'], 'error');
    return;
  }
  assert.deepEqual(Object.keys(json), ['error']);
  assert.deepEqual(Object.keys(error), ['message', 'type', 'param', 'code']);
  assert.ok(error['code'] === null || typeof error['code'] === 'string');
  if (namesField) assert.equal(typeof error['param'], 'string', 'the refusal names no field');
  else assert.ok(error['param'] === null || typeof error['param'] === 'string');
}

/** A 2xx answer: a JSON object, or an event stream whose every data frame is one (or Chat's [DONE]) and none an error. */
function assertAnswer(answer: Answer): void {
  if (!answer.contentType.includes('text/event-stream')) {
    assert.ok(isObject(JSON.parse(answer.text)), 'not a JSON object');
    return;
  }
  const frames = splitSse(answer.text);
  assert.ok(frames.length > 0, 'an empty stream');
  for (const frame of frames) {
    if (frame.data === null || frame.data === '[DONE]') continue;
    const data: unknown = JSON.parse(frame.data);
    assert.ok(isObject(data), 'a frame that is not a JSON object');
    assert.ok(data['error'] === undefined && data['type'] !== 'error' && frame.event !== 'error', 'an in-band error');
  }
}

/** Status classes seen by one property, so that it can say it reached both answers and refusals. */
type Seen = Map<string, number>;

function counts(route: string, seen: Seen): string {
  return `fuzz ${route}: ${[...seen.values()].reduce((a, b) => a + b, 0)} cases, ${seen.get('2xx') ?? 0} answered 2xx, ${seen.get('4xx') ?? 0} refused 4xx, ${seen.get('5xx') ?? 0} 5xx`;
}

async function check(route: Route, body: string, seen: Seen, namesField = false): Promise<void> {
  const answer = await postAs(gw.url, route.path, route.shape, body);
  const kind = `${Math.floor(answer.status / 100)}xx`;
  seen.set(kind, (seen.get(kind) ?? 0) + 1);
  try {
    assert.ok(answer.status < 500, 'a 5xx');
    if (answer.status >= 400) assertError(route.shape, answer.text, namesField);
    else assertAnswer(answer);
  } catch (err) {
    const sent = body.length > 2000 ? `${body.slice(0, 2000)}...` : body;
    throw new Error(`${(err as Error).message}\nPOST ${route.path} ${sent}\n-> ${answer.status} ${answer.text.slice(0, 1000)}`, { cause: err });
  }
}

/** At least `share` of the runs in each class: the generator must reach the mock's answers and the refusals alike. */
function assertReached(seen: Seen, runs: number, classes: Record<string, number>): void {
  for (const [kind, share] of Object.entries(classes)) {
    assert.ok((seen.get(kind) ?? 0) >= runs * share, `only ${seen.get(kind) ?? 0} of ${runs} answers were ${kind}: ${JSON.stringify([...seen])}`);
  }
}

function modelFor(route: Route): fc.Arbitrary<string> {
  return route.translatable ? fc.constantFrom(...MOCK_MODELS) : fc.constant(MOCK_MODELS[0]);
}

const REPORT = { includeErrorInReport: true } as const;

describe('near-valid bodies broken at arbitrary places', () => {
  for (const route of ROUTES) {
    it(`${route.path}: never a 5xx, refusals in the route's shape naming the field (${route.runs} runs)`, async (t) => {
      const seen: Seen = new Map();
      const broken = modelFor(route).chain((m) => fc.tuple(route.body(m), fc.array(mutation, { minLength: 1, maxLength: 3 })));
      await fc.assert(
        fc.asyncProperty(broken, (([body, mutations]) => check(route, JSON.stringify(mutate(body, mutations)), seen, true))),
        { numRuns: route.runs, ...REPORT },
      );
      t.diagnostic(counts(`${route.path} broken`, seen));
      assertReached(seen, route.runs, { '2xx': 0.1, '4xx': 0.3 });
    });
  }
});

describe('the near-valid bodies themselves', () => {
  for (const route of ROUTES) {
    const runs = Math.round(route.runs / 3);
    it(`${route.path}: answered, natively and translated (${runs} runs)`, async (t) => {
      const seen: Seen = new Map();
      await fc.assert(
        fc.asyncProperty(modelFor(route).chain(route.body), (body) => check(route, JSON.stringify(body), seen, true)),
        { numRuns: runs, ...REPORT },
      );
      t.diagnostic(counts(`${route.path} near-valid`, seen));
      assertReached(seen, runs, { '2xx': 0.9 });
    });
  }
});

describe('arbitrary JSON and text', () => {
  it('every route: never a 5xx, refusals in the route\'s shape (600 runs)', async (t) => {
    const seen: Seen = new Map();
    const body = fc.oneof(
      anyJson.map((v) => JSON.stringify(v)),
      fc.dictionary(fc.string({ maxLength: 8 }), anyJson, { maxKeys: 5 }).map((o) => JSON.stringify({ model: 'demo-chat', ...o })),
      fc.string({ maxLength: 30 }),
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...ROUTES), body, (route, text) => check(route, text, seen)),
      { numRuns: 600, ...REPORT },
    );
    t.diagnostic(counts('every route, arbitrary JSON and text', seen));
    assertReached(seen, 600, { '4xx': 0.5 });
  });
});
