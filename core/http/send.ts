// Small writers for answers the HTTP layer gives itself (errors, JSON), in the OpenAI shape by default. Every
// answer carries a request id, as the chains' answers do (the SDKs show it; support asks for it).

import type { ServerResponse } from 'node:http';
import type { GatewayError } from '../errors.js';
import { encodeError } from '../formats/openai-chat/errors.js';
import type { ClientFormat } from '../formats/format.js';

export function sendJson(res: ServerResponse, status: number, value: unknown, id: string, headers: Record<string, string> = {}): void {
  const body = JSON.stringify(value);
  res.writeHead(
    status,
    Object.assign({}, headers, {
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(body)),
      'x-request-id': id,
      'request-id': id,
    }),
  );
  res.end(body);
}

export function sendError(res: ServerResponse, err: GatewayError, format: ClientFormat | undefined, id: string, path?: string): void {
  if (res.headersSent || res.destroyed) return;
  const rendered = format === undefined ? encodeError(err) : format.encodeError(err, { requestId: id, path });
  res.writeHead(
    rendered.status,
    Object.assign({}, rendered.headers, { 'content-length': String(Buffer.byteLength(rendered.body)), 'x-request-id': id, 'request-id': id }),
  );
  res.end(rendered.body);
}
