// Stream frames are written to the client as soon as they arrive: frames that arrive together leave together
// (adjacent frames as one write, the batch corked), and a frame is never held back waiting for the next one. The upstream here
// sends its next frame only once the client has seen the previous ones, so any buffering in the gateway
// would stall the stream (caught by a timeout, not a hang).

import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { after, before, test } from 'node:test';
import { LoopbackHttpServer } from '../helpers/loopback-http-server.js';
import { TEST_KEY, channel, configWith, startGatewayUnderTest, type GatewayUnderTest } from '../helpers/gateway-under-test.js';
import { withDeadline } from '../helpers/poll.js';

const chunk = (content: string): string =>
  `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'gpt-x', choices: [{ index: 0, delta: { content }, finish_reason: null }] })}\n\n`;
const FINISH = `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'gpt-x', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\n`;
const USAGE = `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'gpt-x', choices: [], usage: { prompt_tokens: 3, completion_tokens: 3, total_tokens: 6 } })}\n\n`;

/** An upstream that writes in steps, each step only after the test opened its gate. */
class SteppedUpstream extends LoopbackHttpServer {
  gates: (() => Promise<void>)[] = [];
  steps: string[] = [];

  protected async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    for await (const _ of req) {
      // drain the body
    }
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.flushHeaders();
    try {
      for (let i = 0; i < this.steps.length; i++) {
        await this.gates[i]?.();
        // One write per step: several frames in one step reach the gateway in one read.
        res.write(this.steps[i]);
      }
      res.end();
    } catch {
      // A gate timed out: the test fails on the client's side.
      res.destroy();
    }
  }
}

let upstream: SteppedUpstream;
let gw: GatewayUnderTest;

before(async () => {
  upstream = await new SteppedUpstream().start();
  // No model list read (models_refresh_ms 0): this upstream answers every request with the test's steps.
  gw = await startGatewayUnderTest(configWith(channel('stepped', upstream.url, '    models_refresh_ms: 0\n')));
});

after(async () => {
  await gw.stop();
  await upstream.close();
});

/** A gate the upstream waits on; opened by the client when it has seen `marker`. */
function gate(): { wait: () => Promise<void>; open: () => void } {
  let open = (): void => undefined;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { wait: () => withDeadline(opened, 5000, 'the client saw the previous frames (buffered in the gateway?)'), open };
}

test('frames reach the client without waiting for the next ones, whether they arrive alone or together', async () => {
  const afterPair = gate();
  const afterLone = gate();
  // Step 1: two frames in one write; step 2: one lone frame; step 3: the rest.
  upstream.steps = [chunk('one ') + chunk('two '), chunk('three '), FINISH + USAGE + 'data: [DONE]\n\n'];
  upstream.gates = [async () => undefined, afterPair.wait, afterLone.wait];

  const res = await fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-x', stream: true, messages: [{ role: 'user', content: 'count' }] }),
    signal: AbortSignal.timeout(10_000),
  });
  assert.equal(res.status, 200);
  const id = res.headers.get('x-request-id');
  assert.match(id ?? '', /^req_[0-9a-f]{32}$/);
  assert.equal(res.headers.get('request-id'), id, 'Anthropic-style request-id names the same request');
  const reader = res.body?.getReader();
  assert.ok(reader);
  const decoder = new TextDecoder();
  let text = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
    if (text.includes('two ')) afterPair.open();
    if (text.includes('three ')) afterLone.open();
  }
  // Byte for byte what the upstream sent, but for the usage-only chunk: the client did not ask for usage, so
  // the gateway asked upstream and drops it from between the frames that came in the same read.
  assert.equal(text, chunk('one ') + chunk('two ') + chunk('three ') + FINISH + 'data: [DONE]\n\n');
});

test('an error answered by the chain carries the request ids too', async () => {
  const res = await fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: 'Bearer sk-not-a-key-000000000000', 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-x', messages: [{ role: 'user', content: 'hi' }] }),
  });
  assert.equal(res.status, 401);
  await res.arrayBuffer();
  const id = res.headers.get('x-request-id');
  assert.match(id ?? '', /^req_[0-9a-f]{32}$/);
  assert.equal(res.headers.get('request-id'), id);
});
