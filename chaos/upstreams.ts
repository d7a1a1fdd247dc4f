// The providers of a chaos run: the test suite's fakes (OpenAI chat and Responses, Anthropic, OpenAI images, Ark's
// data plane and the Volcengine control plane), each behind a fault proxy, and the channels of gateway.yaml that
// reach them. Two OpenAI chat upstreams share a tier, so a fault on one is mostly hidden by failover.

import { AK, SK } from '../test/helpers/asset-gateway.js';
import { FakeAnthropic } from '../test/helpers/fake-anthropic.js';
import { startFakeArk, type FakeArk } from '../test/helpers/fake-ark.js';
import { FakeOpenAIImages } from '../test/helpers/fake-openai-images.js';
import { FakeOpenAI } from '../test/helpers/fake-openai.js';
import { FakeResponses } from '../test/helpers/fake-responses.js';
import { startFakeVolcengine, type FakeVolcengine } from '../test/helpers/fake-volcengine.js';
import { startFaultProxy, type ErrorAnswer, type FaultProxy } from './fault-proxy.js';

const openaiError: ErrorAnswer = (status) => ({
  headers: status === 429 ? { 'retry-after': '1' } : {},
  body: JSON.stringify({
    error: status === 429 ? { message: 'Rate limit reached (chaos)', type: 'requests', param: null, code: 'rate_limit_exceeded' } : { message: `chaos says ${status}`, type: 'server_error', param: null, code: null },
  }),
});

const anthropicError: ErrorAnswer = (status) => ({
  headers: status === 429 ? { 'retry-after': '1' } : {},
  body: JSON.stringify({ type: 'error', error: { type: status === 429 ? 'rate_limit_error' : status === 503 ? 'overloaded_error' : 'api_error', message: `chaos says ${status}` } }),
});

const arkError: ErrorAnswer = (status) => ({
  headers: {},
  body: JSON.stringify({ error: { code: status === 429 ? 'RateLimitExceeded.EndpointRPMExceeded' : 'InternalServiceError', message: `chaos says ${status}`, param: '', type: status === 429 ? 'TooManyRequests' : 'InternalServerError' } }),
});

const controlError: ErrorAnswer = (status) => ({
  headers: {},
  body: JSON.stringify({
    ResponseMetadata: {
      RequestId: 'chaos',
      Action: 'Unknown',
      Version: '2024-01-01',
      Service: 'ark',
      Region: 'cn-beijing',
      Error: { Code: status === 429 ? 'RequestLimitExceeded' : 'InternalError', Message: `chaos says ${status}` },
    },
  }),
});

export interface Upstreams {
  readonly proxies: readonly FaultProxy[];
  /** The upstreams serving each kind of request, by proxy name (a fault on them may show in its answers). */
  readonly serving: Readonly<Record<string, readonly string[]>>;
  readonly ark: FakeArk;
  readonly control: FakeVolcengine;
  /**
   * The channels: `spare` adds a third chat channel (what a reload changes); `health` gives a chat channel a `health:`
   * of its own (a YAML flow mapping), by name.
   */
  channels(spare: boolean, health?: Readonly<Record<string, string>>): string;
  /** Drops what the fakes recorded of the requests (a long run would keep them all). */
  forget(): void;
  close(): Promise<void>;
}

export async function startUpstreams(random: () => number): Promise<Upstreams> {
  const chatA = await new FakeOpenAI('chat-a').start();
  const chatB = await new FakeOpenAI('chat-b').start();
  const chatSpare = await new FakeOpenAI('chat-spare').start();
  const responses = await new FakeResponses('responses').start();
  const anthropic = await new FakeAnthropic('anthropic').start();
  const images = await new FakeOpenAIImages('images').start();
  const ark = await startFakeArk({ autoAdvance: { runningAfterMs: 300, succeededAfterMs: 1500 } });
  const control = await startFakeVolcengine({ accessKeyId: AK, secretAccessKey: SK, processingMs: 300 });
  const proxy = (name: string, url: string, shape: ErrorAnswer): Promise<FaultProxy> => startFaultProxy(name, url, shape, random);
  const proxies = await Promise.all([
    proxy('chat-a', chatA.url, openaiError),
    proxy('chat-b', chatB.url, openaiError),
    proxy('chat-spare', chatSpare.url, openaiError),
    proxy('responses', responses.url, openaiError),
    proxy('anthropic', anthropic.url, anthropicError),
    proxy('images', images.url, openaiError),
    proxy('ark', ark.url, arkError),
    proxy('control', control.url, controlError),
  ]);
  const at = (name: string): FaultProxy => proxies.find((p) => p.name === name) as FaultProxy;
  const chatChannel = (name: string, health: string | undefined): string => `  - name: ${name}
    type: openai
    base_url: ${at(name).url}
    keys: [sk-upstream-${name}]
    models: ["gpt-4o", "gpt-4o-mini"]
    formats: [openai-chat]
    timeout_ms: 2000
    idle_timeout_ms: 3000
    cooldown_ms: 2000
${health === undefined ? '' : `    health: ${health}\n`}`;
  return {
    proxies,
    ark,
    control,
    serving: {
      chat: ['chat-a', 'chat-b', 'chat-spare'],
      responses: ['responses'],
      messages: ['anthropic'],
      images: ['images'],
      video: ['ark'],
      asset: ['control'],
    },
    channels(spare, health = {}) {
      return `${chatChannel('chat-a', health['chat-a'])}${chatChannel('chat-b', health['chat-b'])}${spare ? chatChannel('chat-spare', health['chat-spare']) : ''}  - name: responses
    type: openai
    base_url: ${at('responses').url}
    keys: [sk-upstream-responses]
    models: ["gpt-5-codex"]
    formats: [openai-responses]
    timeout_ms: 2000
    idle_timeout_ms: 3000
    cooldown_ms: 2000
  - name: anthropic
    type: anthropic
    base_url: ${at('anthropic').url}
    keys: [sk-ant-upstream]
    models: ["claude-*"]
    timeout_ms: 2000
    idle_timeout_ms: 3000
    cooldown_ms: 2000
  - name: images
    type: openai
    base_url: ${at('images').url}
    keys: [sk-upstream-images]
    models: ["gpt-image-1"]
    formats: [openai-images]
    timeout_ms: 2000
    cooldown_ms: 2000
  - name: ark
    type: volcengine
    base_url: ${at('ark').url}
    keys: ${JSON.stringify(ark.keys)}
    control:
      url: ${at('control').url}
      region: cn-beijing
      access_key_id: ${AK}
      secret_access_key: ${SK}
      timeout_ms: 2000
    models: ["doubao-seedance-*"]
    timeout_ms: 2000
    cooldown_ms: 1000
    assets: true
`;
    },
    forget() {
      for (const fake of [chatA, chatB, chatSpare, responses, anthropic, images]) fake.requests.length = 0;
      ark.calls.length = 0;
      control.calls.length = 0;
    },
    async close() {
      await Promise.all(proxies.map((p) => p.close()));
      await Promise.all([chatA.close(), chatB.close(), chatSpare.close(), responses.close(), anthropic.close(), images.close(), ark.close(), control.close()]);
    },
  };
}
