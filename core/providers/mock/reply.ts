// What the mock channel answers: a deterministic reply and token counts derived from the request.

import type { ResolvedChannel } from '../../config/resolved.js';

export interface MockReply {
  readonly model: string;
  readonly pieces: readonly string[];
  readonly promptTokens: number;
  readonly completionTokens: number;
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part: unknown) =>
      typeof part === 'object' && part !== null && typeof (part as { text?: unknown }).text === 'string'
        ? (part as { text: string }).text
        : '',
    )
    .join(' ');
}

/** The last text part: clients such as Claude Code put reminders before what the user typed. */
function lastTextOf(content: unknown): string {
  if (!Array.isArray(content)) return textOf(content);
  for (let i = content.length - 1; i >= 0; i--) {
    const part: unknown = content[i];
    if (typeof part === 'object' && part !== null && typeof (part as { text?: unknown }).text === 'string') {
      return (part as { text: string }).text;
    }
  }
  return '';
}

/** Roughly four characters a token, like the real tokenizers on English text; exact enough for a demo. */
function countTokens(text: string): number {
  return Math.max(1, Math.ceil(text.length / 4));
}

/** Prompt tokens of a request: its messages, and Anthropic's top-level `system`. */
export function countPromptTokens(body: Record<string, unknown>): number {
  return buildCounts(body).prompt;
}

function buildCounts(body: Record<string, unknown>): { prompt: number; lastUser: string } {
  const messages = Array.isArray(body['messages']) ? (body['messages'] as unknown[]) : [];
  let prompt = body['system'] === undefined ? 0 : countTokens(textOf(body['system']));
  let lastUser = '';
  for (const message of messages) {
    if (typeof message !== 'object' || message === null) continue;
    const m = message as { role?: unknown; content?: unknown };
    const text = textOf(m.content);
    prompt += countTokens(text) + 3;
    if (m.role === 'user') lastUser = lastTextOf(m.content);
  }
  return { prompt, lastUser };
}

export function buildMockReply(channel: ResolvedChannel, body: Record<string, unknown>): MockReply {
  const { prompt, lastUser } = buildCounts(body);
  const echo = lastUser.length > 200 ? `${lastUser.slice(0, 200)}...` : lastUser;
  const text = channel.mock.reply ?? `Hello from the mock channel! You said: "${echo}"`;
  // Words keep their following space so the pieces concatenate back to the exact text.
  const pieces = text.match(/\S+\s*|\s+/g) ?? [text];
  return {
    model: typeof body['model'] === 'string' ? body['model'] : 'mock',
    pieces,
    promptTokens: prompt,
    completionTokens: pieces.length,
  };
}
