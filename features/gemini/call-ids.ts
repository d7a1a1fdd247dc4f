// Tool-call ids where Gemini gave none. They must pair a call with its response and come out the same for the same
// history (a random id per request would break the upstream's prompt-cache prefix), and fit every client's rules:
// Anthropic's ^[a-zA-Z0-9_-]+$ and Responses' 64 characters.

import { randomUUID } from 'node:crypto';

const MAX_LENGTH = 64;
const NOT_ID = /[^a-zA-Z0-9_-]/g;

/** The `k`th call of an answer whose responseId is `responseId` (a random stand-in when the upstream gave none). */
export function answerCallId(responseId: string, k: number): string {
  const suffix = `_${k}`;
  const base = responseId.replace(NOT_ID, '');
  return `call_${base.slice(0, MAX_LENGTH - 'call_'.length - suffix.length)}${suffix}`;
}

/** An id for an answer without a responseId: calls of one answer share it, so they stay apart from other answers'. */
export function standInResponseId(): string {
  return randomUUID().replaceAll('-', '');
}

/** A call in a client's history without an id: named by where it stands (content, part) and its function. */
export function historyCallId(name: string, content: number, part: number): string {
  return `call_${content}_${part}_${name.replace(NOT_ID, '_')}`.slice(0, MAX_LENGTH);
}
