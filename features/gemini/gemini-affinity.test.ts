// Affinity on the Gemini routes: a request naming an explicit cache (`cachedContent`, which lives on the upstream
// that made it) stays on the channel that first served that name, whichever of three equal channels it drew; another
// cache name may land elsewhere. Three equal channels drawn at random: 11 requests on one by luck has probability
// 3 x (1/3)^11, about 1.9e-5.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { FakeGemini } from '../../test/helpers/fake-gemini.js';
import { TEST_KEY, startGatewayUnderTest, type GatewayUnderTest } from '../../test/helpers/gateway-under-test.js';

const fakes = [new FakeGemini('AIza-a-0123456789'), new FakeGemini('AIza-b-0123456789'), new FakeGemini('AIza-c-0123456789')];
let gw: GatewayUnderTest;

before(async () => {
  await Promise.all(fakes.map((fake) => fake.start()));
  const channels = fakes.map((fake, i) => `  - { name: g${i}, type: gemini, base_url: "${fake.url}", keys: [${fake.key}], models: ["gemini-*"] }`).join('\n');
  gw = await startGatewayUnderTest(`server: { port: 0, host: 127.0.0.1 }
store: { url: "sqlite:./gateway.db" }
groups:
  default: { models: ["*"] }
keys:
  - { name: test, key: ${TEST_KEY}, group: default }
channels:
${channels}
`);
});

after(async () => {
  await gw.stop();
  await Promise.all(fakes.map((fake) => fake.close()));
});

async function generate(cache: string): Promise<string> {
  const res = await fetch(`${gw.url}/v1beta/models/gemini-2.5-pro:generateContent`, {
    method: 'POST',
    headers: { 'x-goog-api-key': TEST_KEY, 'content-type': 'application/json' },
    body: JSON.stringify({ cachedContent: cache, contents: [{ role: 'user', parts: [{ text: 'Go on.' }] }] }),
  });
  assert.equal(res.status, 200, await res.clone().text());
  await res.arrayBuffer();
  const record = (await gw.usage()).find((r) => r.requestId === res.headers.get('x-request-id'));
  assert.ok(record?.channel !== undefined && record.channel !== null);
  return record.channel;
}

describe('Gemini: a request naming an explicit cache sticks to one channel', () => {
  it('sends every request of one cachedContent to the channel that first served it', async () => {
    const served = new Set<string>();
    for (let i = 0; i < 11; i++) served.add(await generate('cachedContents/conversation-one'));
    assert.equal(served.size, 1, `one cache, one channel: ${[...served].join(', ')}`);
    const channel = [...served][0] as string;
    const fake = fakes[Number(channel.slice(1))] as FakeGemini;
    assert.equal(fake.requests.length, 11, 'that channel\'s upstream got them all');
  });
});
