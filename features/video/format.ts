// The video task endpoints' client formats: new-api's POST /v1/video/generations (JSON), OpenAI's POST /v1/videos
// (JSON, or the multipart form OpenAI's SDK sends), and the reads of a task (GET, DELETE: a path and no body). Never
// relayed as sent: the video routes read the fields (task-request.ts) into Ark's body. Errors in OpenAI's
// shape, as both APIs answer them.

import { GatewayError } from '../../core/errors.js';
import type { BodyBytes } from '../../core/formats/body-bytes.js';
import type { ClientFormat, ParsedRequest } from '../../core/formats/format.js';
import { createJsonBodyReader } from '../../core/formats/json-request.js';
import { LazyRequest } from '../../core/formats/lazy-request.js';
import { isMultipartForm, MultipartProblem, readMultipartForm } from '../../core/formats/multipart-form.js';
import { isJson, mediaTypeOf, unsupportedMedia } from '../../core/formats/content-type.js';
import { encodeError, encodeStreamError, isErrorFrame } from '../../core/formats/openai-chat/errors.js';
import { wordOpenAIProblem } from '../../core/formats/openai-chat/request.js';
import { plainFormat } from '../../core/formats/plain-format.js';
import type { ScanMemory } from '../../core/formats/scan-memory.js';

/** OpenAI's default video model, for a request that names none. */
const DEFAULT_MODEL = 'sora-2';
const NONE: Readonly<Record<string, unknown>> = Object.freeze({});

function videoFormat(decodeRequest: ClientFormat['decodeRequest']): ClientFormat {
  return plainFormat({ name: 'video', decodeRequest, encodeError, encodeStreamError, isErrorFrame });
}

export function createVideoGenerationsFormat(memory: ScanMemory): ClientFormat {
  const read = createJsonBodyReader('video-generations.request.schema.json', wordOpenAIProblem, memory);
  return videoFormat((raw: BodyBytes, contentType?: string): ParsedRequest => {
    const mediaType = mediaTypeOf(contentType);
    if (!isJson(mediaType)) throw unsupportedMedia('/v1/video/generations', mediaType, 'a JSON body (application/json)');
    const body = read(raw);
    return new LazyRequest(raw, body.head, body, String(body.head['model']), false, null);
  });
}

export function createOpenAIVideosFormat(memory: ScanMemory): ClientFormat {
  const read = createJsonBodyReader('openai-videos.request.schema.json', wordOpenAIProblem, memory);
  return videoFormat((raw: BodyBytes, contentType?: string): ParsedRequest => {
    if (isMultipartForm(contentType)) return decodeForm(raw, contentType);
    const mediaType = mediaTypeOf(contentType);
    if (!isJson(mediaType)) throw unsupportedMedia('/v1/videos', mediaType, 'a JSON body or a multipart/form-data form');
    const body = read(raw);
    const model = typeof body.head['model'] === 'string' ? body.head['model'] : DEFAULT_MODEL;
    return new LazyRequest(raw, body.head, body, model, false, null);
  });
}

/** OpenAI's SDK sends the fields as a form: `input_reference` a text (a URL) or `input_reference[image_url]`. */
function decodeForm(raw: BodyBytes, contentType: string): ParsedRequest {
  let form;
  try {
    form = readMultipartForm(raw.joined(), contentType);
  } catch (err) {
    if (!(err instanceof MultipartProblem)) throw err;
    throw new GatewayError('GW_ERR_REQUEST_INVALID_FIELD', `The multipart body could not be read: ${err.message}.`);
  }
  const file = form.files[0];
  if (file !== undefined) {
    // Ark takes images by URL: an upload has nowhere to go but the asset library, which is where it belongs.
    throw new GatewayError('GW_ERR_REQUEST_INVALID_FIELD', `Invalid '${file.name}': files are not taken here; give an https:// URL or an asset:// link of the asset library.`, {
      param: file.name,
    });
  }
  for (const name of form.fieldNames) {
    if (form.fieldNames.indexOf(name) !== form.fieldNames.lastIndexOf(name)) throw new GatewayError('GW_ERR_REQUEST_INVALID_FIELD', `Invalid '${name}': sent more than once.`, { param: name });
  }
  const head = Object.fromEntries(form.fields) as Record<string, unknown>;
  const prompt = head['prompt'];
  if (typeof prompt !== 'string' || prompt === '') throw new GatewayError('GW_ERR_REQUEST_MISSING_FIELD', "Missing required parameter: 'prompt'.", { param: 'prompt' });
  const model = typeof head['model'] === 'string' && head['model'] !== '' ? head['model'] : DEFAULT_MODEL;
  if (model.length > 256 || /[\u0000-\u001f\u007f]/.test(model)) throw new GatewayError('GW_ERR_REQUEST_INVALID_FIELD', "Invalid 'model': expected a model name of 1 to 256 characters.", { param: 'model' });
  return new LazyRequest(raw, head, { whole: () => head }, model, false, null, undefined, contentType);
}

/** A task's reads and its cancellation: the path names the task, and there is no one model to route by. */
export function createVideoTaskFormat(): ClientFormat {
  return videoFormat((raw: BodyBytes): ParsedRequest => new LazyRequest(raw, NONE, { whole: () => ({}) }, '', false, null));
}
