// A JSON answer of the video routes.

import type { RelayResult } from '../../core/pipeline/plugin.js';

export function json(status: number, body: unknown): RelayResult {
  return { kind: 'body', status, headers: { 'content-type': 'application/json' }, body: Buffer.from(JSON.stringify(body)) };
}
