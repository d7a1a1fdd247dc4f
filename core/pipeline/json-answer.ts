// A handler's JSON answer: the body a route's own answer (not an upstream's) is sent as.

import type { RelayResult } from './plugin.js';

export function jsonAnswer(status: number, value: unknown, headers: Readonly<Record<string, string>> = {}): RelayResult {
  return { kind: 'body', status, headers: Object.assign({ 'content-type': 'application/json' }, headers), body: Buffer.from(JSON.stringify(value)) };
}
