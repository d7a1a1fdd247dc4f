// The mock channels the bad-input tests run against, and posting to a route as its clients do.

import { TEST_KEY } from './gateway-under-test.js';

/** The error shape of a route: OpenAI's on chat and responses, Anthropic's on messages. */
export type Shape = 'openai' | 'anthropic';

/** demo-chat: a mock channel speaking every format (native); via-*: one speaking only that format (translated). */
export const MOCK_MODELS = ['demo-chat', 'via-chat', 'via-responses', 'via-messages'] as const;

const FORMATS: Readonly<Record<(typeof MOCK_MODELS)[number], string | null>> = {
  'demo-chat': null,
  'via-chat': 'openai-chat',
  'via-responses': 'openai-responses',
  'via-messages': 'anthropic-messages',
};

/** The channels block (for configWith) declaring a mock channel per model of MOCK_MODELS. */
export function mockFormatChannels(): string {
  return MOCK_MODELS.map((model) => {
    const format = FORMATS[model];
    return `  - name: ${model}
    type: mock
    models: ["${model}"]
${format === null ? '' : `    formats: [${format}]\n`}`;
  }).join('');
}

export interface Answer {
  readonly status: number;
  readonly contentType: string;
  readonly text: string;
}

/** POSTs `body` as it is, with the key the way the route's clients send it. */
export async function postAs(url: string, path: string, shape: Shape, body: string): Promise<Answer> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (shape === 'anthropic') {
    headers['x-api-key'] = TEST_KEY;
    headers['anthropic-version'] = '2023-06-01';
  } else {
    headers['authorization'] = `Bearer ${TEST_KEY}`;
  }
  const res = await fetch(`${url}${path}`, { method: 'POST', headers, body });
  return { status: res.status, contentType: res.headers.get('content-type') ?? '', text: await res.text() };
}
