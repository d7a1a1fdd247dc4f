// A JSON answer of the admin API.

import type { RelayResult } from '../../core/index.js';

export function json(status: number, value: unknown): RelayResult {
  return { kind: 'body', status, headers: { 'content-type': 'application/json' }, body: Buffer.from(JSON.stringify(value)) };
}
