// The body is decoded when a plugin first reads it, so auth (headers only) answers 401 before a bad body's 400,
// as the real APIs do. Decoded once; a bad body throws the same 400 on every read.

import { toGatewayError, type GatewayError } from '../errors.js';
import type { ClientFormat, ParsedRequest } from '../formats/format.js';

export function lazyRequest(format: ClientFormat, body: Buffer): () => ParsedRequest {
  let decoded: ParsedRequest | null = null;
  let failure: GatewayError | null = null;
  return function readRequest(): ParsedRequest {
    if (decoded !== null) return decoded;
    if (failure !== null) throw failure;
    try {
      decoded = format.decodeRequest(body);
      return decoded;
    } catch (err) {
      failure = toGatewayError(err);
      throw failure;
    }
  };
}
