// Affinity on the Gemini routes: Gemini's requests name no conversation, so its opening (the system instruction and
// the first content, kept as the history grows) stands for it: every turn of a conversation stays on the channel that
// served its first, whichever of three equal channels that drew. Three equal channels drawn at random: 11 requests on
// one by luck has probability 3 x (1/3)^11, about 1.9e-5. A cache name (cachedContent) is refused: it is the
// channel's project's.

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

/** A turn of a conversation: its opening, then `turn` exchanges after it (a long opening, as Gemini CLI's is). */
function body(opening: string, turn: number): string {
  const contents: unknown[] = [{ role: 'user', parts: [{ text: `${opening} ${'context '.repeat(100)}` }] }];
  for (let i = 0; i < turn; i++) contents.push({ role: 'model', parts: [{ text: `answer ${i}` }] }, { role: 'user', parts: [{ text: `question ${i + 1}` }] });
  return JSON.stringify({ systemInstruction: { parts: [{ text: 'You are a coding agent.' }] }, contents });
}

async function generate(payload: string): Promise<Response> {
  return fetch(`${gw.url}/v1beta/models/gemini-2.5-pro:generateContent`, { method: 'POST', headers: { 'x-goog-api-key': TEST_KEY, 'content-type': 'application/json' }, body: payload });
}

async function channelOf(res: Response): Promise<string> {
  assert.equal(res.status, 200, await res.clone().text());
  await res.arrayBuffer();
  const record = (await gw.usage()).find((r) => r.requestId === res.headers.get('x-request-id'));
  assert.ok(record?.channel !== undefined && record.channel !== null);
  return record.channel;
}

describe('Gemini: a conversation sticks to one channel', () => {
  it('sends every turn of one conversation (same opening, growing history) to the channel of its first turn', async () => {
    const served = new Set<string>();
    for (let turn = 0; turn < 11; turn++) served.add(await channelOf(await generate(body('Session one, in /home/a.', turn))));
    assert.equal(served.size, 1, `one conversation, one channel: ${[...served].join(', ')}`);
    const fake = fakes[Number(([...served][0] as string).slice(1))] as FakeGemini;
    assert.equal(fake.requests.length, 11, 'that channel\'s upstream got them all');
  });

  it('refuses a cache name (the channel\'s Google project\'s) and a Files API or Cloud Storage file, before any upstream', async () => {
    const before = fakes.reduce((n, fake) => n + fake.requests.length, 0);
    const cached = await generate(JSON.stringify({ cachedContent: 'cachedContents/someone-elses', contents: [{ parts: [{ text: 'hi' }] }] }));
    const file = (uri: string): string => JSON.stringify({ contents: [{ parts: [{ fileData: { mimeType: 'application/pdf', fileUri: uri } }] }] });
    const answers = [cached, await generate(file('https://generativelanguage.googleapis.com/v1beta/files/abc123')), await generate(file('gs://bucket/a.pdf')), await generate(file('files/abc123'))];
    for (const res of answers) {
      assert.equal(res.status, 400, await res.clone().text());
      assert.equal(((await res.json()) as { error: { status: string } }).error.status, 'INVALID_ARGUMENT');
    }
    assert.equal(fakes.reduce((n, fake) => n + fake.requests.length, 0), before, 'no upstream was asked');
    // A public file by URL is the caller's to send.
    assert.equal((await generate(file('https://example.com/a.pdf'))).status, 200);
  });
});
