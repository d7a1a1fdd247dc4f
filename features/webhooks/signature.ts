// The webhook signature, as the Standard Webhooks specification writes it (standardwebhooks.com; the `standardwebhooks`
// libraries verify it): HMAC-SHA256 over "<id>.<timestamp>.<body>", base64, in `webhook-signature: v1,<sig>`, with
// `webhook-id` and `webhook-timestamp` (seconds) beside it. The timestamp is signed: a receiver refuses an old one, so a
// captured delivery cannot be replayed later.

import { createHmac } from 'node:crypto';

export interface SignedHeaders {
  readonly 'webhook-id': string;
  readonly 'webhook-timestamp': string;
  readonly 'webhook-signature': string;
}

export function signedHeaders(secret: Buffer, id: string, atMs: number, body: string): SignedHeaders {
  const timestamp = String(Math.floor(atMs / 1000));
  const signature = createHmac('sha256', secret).update(`${id}.${timestamp}.${body}`).digest('base64');
  return { 'webhook-id': id, 'webhook-timestamp': timestamp, 'webhook-signature': `v1,${signature}` };
}
