// What the clients of a chaos run send: every API the gateway speaks, streamed and not, native and translated,
// with the keys of gateway.yaml (chaos/config.ts). Each request names the upstreams it needs, so that a failure
// can be told expected (a fault took away every upstream of one of them) or not.

export const KEYS = {
  /** Unmetered, no limits. */
  free: 'sk-chaos-free-0123456789abcdef',
  /** Metered on an account with plenty. */
  rich: 'sk-chaos-rich-0123456789abcdef',
  /** Metered on an account credited little: it runs out (402). */
  poor: 'sk-chaos-poor-0123456789abcdef',
  /** Unmetered, rpm 30: hits its limit (429). */
  rpm: 'sk-chaos-rpm-01234567890abcdef',
  /** Metered on the rich account, two requests at a time (429 beyond). */
  busy: 'sk-chaos-busy-0123456789abcdef',
} as const;

export type KeyName = keyof typeof KEYS;

export interface ChaosRequest {
  /** What it is, for the table: `chat stream native`, `asset CreateAsset`, ... */
  readonly kind: string;
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  readonly stream: boolean;
  /**
   * What it needs, as groups of fault proxies: one upstream of each group must answer (a group's upstreams are
   * alternatives, one tier of channels; the groups are all needed: a video task needs Ark and, for its asset://
   * links, the library).
   */
  readonly upstreams: readonly (readonly string[])[];
  /** A POST the usage records count (every one here). */
  readonly metered: boolean;
}

const json = (value: unknown): string => JSON.stringify(value);

function openai(key: string): Record<string, string> {
  return { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
}

function anthropic(key: string): Record<string, string> {
  return { 'x-api-key': key, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' };
}

const CHAT = [['chat-a', 'chat-b', 'chat-spare']];

/** One request of each model kind, by name; `pick` chooses among them. */
const MAKERS: readonly ((key: string, stream: boolean, n: number) => ChaosRequest)[] = [
  (key, stream, n) => ({
    kind: `chat ${stream ? 'stream' : 'whole'} native`,
    path: '/v1/chat/completions',
    headers: openai(key),
    body: json({ model: n % 2 === 0 ? 'gpt-4o' : 'gpt-4o-mini', stream, max_tokens: 64, messages: [{ role: 'user', content: `chaos ${n}` }] }),
    stream,
    upstreams: CHAT,
    metered: true,
  }),
  (key, stream, n) => ({
    kind: `chat ${stream ? 'stream' : 'whole'} to messages`,
    path: '/v1/chat/completions',
    headers: openai(key),
    body: json({ model: 'claude-sonnet-4-5-20250929', stream, max_tokens: 64, messages: [{ role: 'user', content: `chaos ${n}` }] }),
    stream,
    upstreams: [['anthropic']],
    metered: true,
  }),
  (key, stream, n) => ({
    kind: `messages ${stream ? 'stream' : 'whole'} native`,
    path: '/v1/messages',
    headers: anthropic(key),
    body: json({ model: 'claude-haiku-4-5-20251001', stream, max_tokens: 64, messages: [{ role: 'user', content: `chaos ${n}` }] }),
    stream,
    upstreams: [['anthropic']],
    metered: true,
  }),
  (key, stream, n) => ({
    kind: `messages ${stream ? 'stream' : 'whole'} to chat`,
    path: '/v1/messages',
    headers: anthropic(key),
    body: json({ model: 'gpt-4o-mini', stream, max_tokens: 64, messages: [{ role: 'user', content: `chaos ${n}` }] }),
    stream,
    upstreams: CHAT,
    metered: true,
  }),
  (key, stream, n) => ({
    kind: `responses ${stream ? 'stream' : 'whole'} native`,
    path: '/v1/responses',
    headers: openai(key),
    body: json({ model: 'gpt-5-codex', stream, max_output_tokens: 64, input: `chaos ${n}` }),
    stream,
    upstreams: [['responses']],
    metered: true,
  }),
  (key, stream, n) => ({
    kind: `responses ${stream ? 'stream' : 'whole'} to chat`,
    path: '/v1/responses',
    headers: openai(key),
    body: json({ model: 'gpt-4o', stream, max_output_tokens: 64, input: [{ role: 'user', content: `chaos ${n}` }] }),
    stream,
    upstreams: CHAT,
    metered: true,
  }),
  (key, _stream, n) => ({
    kind: 'images generation',
    path: '/v1/images/generations',
    headers: openai(key),
    body: json({ model: 'gpt-image-1', prompt: `chaos ${n}`, n: 1, size: '1024x1024' }),
    stream: false,
    upstreams: [['images']],
    metered: true,
  }),
];

/** A model request of a random kind; `streamShare` of them streamed. */
export function modelRequest(key: string, random: () => number, n: number): ChaosRequest {
  const maker = MAKERS[Math.floor(random() * MAKERS.length)] as (typeof MAKERS)[number];
  return maker(key, random() < 0.5, n);
}

export function assetRequest(key: string, action: string, body: unknown): ChaosRequest {
  return {
    kind: `asset ${action}`,
    path: `/v1/videogen/asset/${action}`,
    headers: openai(key),
    body: json(body),
    stream: false,
    upstreams: [['control']],
    metered: true,
  };
}

/** A video task in either shape; `asset`: an asset:// link of the key's own to use as its reference image. */
export function videoRequest(key: string, random: () => number, n: number, asset: string | null): ChaosRequest {
  const openaiShape = random() < 0.5;
  const content = asset === null ? undefined : [{ type: 'image_url', image_url: { url: `asset://${asset}` }, role: 'reference_image' }];
  const body = openaiShape
    ? { model: 'doubao-seedance-1-0-pro', prompt: `chaos ${n}`, seconds: '5', size: '1280x720' }
    : { model: 'doubao-seedance-1-0-pro', prompt: `chaos ${n}`, seconds: 5, metadata: Object.assign({ resolution: '720p', ratio: '16:9' }, content === undefined ? {} : { content }) };
  return {
    kind: `video ${openaiShape ? '/v1/videos' : '/v1/video/generations'}${asset === null ? '' : ' asset://'}`,
    path: openaiShape ? '/v1/videos' : '/v1/video/generations',
    headers: openai(key),
    body: json(body),
    stream: false,
    upstreams: asset === null ? [['ark']] : [['ark'], ['control']],
    metered: true,
  };
}
