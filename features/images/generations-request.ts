// Reads a POST /v1/images/generations request: a JSON body, checked shallowly, forwarded as the client's bytes.

import type { BodyBytes } from '../../core/formats/body-bytes.js';
import type { ParsedRequest } from '../../core/formats/format.js';
import { createJsonBodyReader } from '../../core/formats/json-request.js';
import type { ScanMemory } from '../../core/formats/scan-memory.js';
import { LazyRequest } from '../../core/formats/lazy-request.js';
import { wordOpenAIProblem } from '../../core/formats/openai-chat/request.js';
import { isJson, mediaTypeOf, unsupportedMedia } from '../../core/formats/content-type.js';
import { defaultImageModel } from './default-model.js';

export function createGenerationsDecoder(memory: ScanMemory): (raw: BodyBytes, contentType?: string) => ParsedRequest {
  const read = createJsonBodyReader('openai-images-generations.request.schema.json', wordOpenAIProblem, memory);
  return function decodeImageGeneration(raw: BodyBytes, contentType?: string): ParsedRequest {
    const mediaType = mediaTypeOf(contentType);
    if (!isJson(mediaType)) throw unsupportedMedia('/v1/images/generations', mediaType, 'a JSON body (application/json)');
    const body = read(raw);
    const { head } = body;
    const model = typeof head['model'] === 'string' ? head['model'] : defaultImageModel((field) => head[field] !== undefined && head[field] !== null);
    const n = typeof head['n'] === 'number' ? head['n'] : 1;
    return new LazyRequest(raw, head, body, model, head['stream'] === true, null, n);
  };
}
