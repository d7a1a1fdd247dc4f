// GET /v1/mock/images/<id>.png: the pictures the mock channel handed out as `url`s. No key is asked for, as none
// is for OpenAI's image URLs: the name is random, and only the caller who got the answer knows it.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { GatewayError } from '../errors.js';
import type { Runtime } from '../runtime.js';
import { refuse } from './refusal.js';

export function serveMockImage(runtime: Runtime, req: IncomingMessage, res: ServerResponse, name: string): void {
  const png = runtime.deps.mockImages.get(name);
  if (png === undefined) {
    const err = new GatewayError('GW_ERR_ROUTE_NOT_FOUND', 'This image does not exist, or it expired (images are kept for an hour).');
    refuse(runtime, req, res, err, undefined);
    return;
  }
  const id = runtime.ids.next();
  res.writeHead(200, {
    'content-type': 'image/png',
    'content-length': String(png.length),
    'cache-control': 'private, max-age=3600',
    'x-request-id': id,
    'request-id': id,
  });
  res.end(png);
}
