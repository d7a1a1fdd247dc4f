// Reads a POST /v1/images/edits request: a multipart form whose fields are read only to route and check it; the
// upstream gets the client's bytes and content type (boundary included), never a re-encoded form.

import { GatewayError } from '../../core/errors.js';
import type { BodyBytes } from '../../core/formats/body-bytes.js';
import type { ParsedRequest } from '../../core/formats/format.js';
import { LazyRequest } from '../../core/formats/lazy-request.js';
import { textPartNames } from '../../core/formats/multipart-edit.js';
import { isMultipartForm, MultipartProblem, readMultipartForm, type MultipartForm } from '../../core/formats/multipart-form.js';
import { invalidField, missingField } from '../../core/formats/openai-chat/fields.js';
import { isJson, mediaTypeOf, unsupportedMedia } from '../../core/formats/content-type.js';
import { defaultImageModel } from './default-model.js';

const ROUTE = '/v1/images/edits';
/** The fields the gateway reads: each may be sent once (the upstream may read another copy than busboy's first). */
const READ_ONCE = ['model', 'prompt', 'n', 'stream', 'size', 'response_format'] as const;
/** The model name's bound on every route (a longer one is no model any channel serves). */
const MAX_MODEL_LENGTH = 256;
/** As the JSON routes' schemas say of `model`: no control characters (PostgreSQL's text refuses NUL, and a log line breaks on a newline). */
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f]/;

export function decodeImageEdit(raw: BodyBytes, contentType?: string): ParsedRequest {
  if (!isMultipartForm(contentType)) {
    const mediaType = mediaTypeOf(contentType);
    // A JSON body is the usual mistake (the edit's images are files): said as a 400 about the body, as OpenAI does.
    if (isJson(mediaType)) {
      throw new GatewayError(
        'GW_ERR_REQUEST_INVALID_FIELD',
        `${ROUTE} takes a multipart/form-data body (the images as files in 'image'), not ${mediaType === '' ? 'a body without a content type' : mediaType}.`,
        { param: 'image' },
      );
    }
    throw unsupportedMedia(ROUTE, mediaType, 'a multipart/form-data body');
  }
  const bytes = raw.joined();
  let form: MultipartForm;
  try {
    form = readMultipartForm(bytes, contentType);
  } catch (err) {
    if (!(err instanceof MultipartProblem)) throw err;
    throw unreadable(err.message);
  }
  // The gateway edits a form's text parts in place (a model alias): it must find them where busboy did.
  if (textPartNames(bytes, contentType).join('\n') !== form.fieldNames.join('\n')) throw unreadable('its part headers are ambiguous');
  const { fields } = form;
  for (const name of READ_ONCE) {
    if (form.fieldNames.indexOf(name) !== form.fieldNames.lastIndexOf(name)) throw invalidField(name, 'sent more than once');
  }
  checkFiles(form, 'image', true);
  checkFiles(form, 'mask', false);
  const prompt = fields.get('prompt');
  if (prompt === undefined || prompt === '') throw missingField('prompt');
  const model = fields.get('model') ?? defaultImageModel((field) => fields.has(field));
  if (model === '' || model.length > MAX_MODEL_LENGTH || CONTROL_CHARACTER.test(model)) {
    throw invalidField('model', `expected a model name of 1 to ${MAX_MODEL_LENGTH} characters, none of them control characters`);
  }
  const n = countOf(fields.get('n'));
  const head = Object.fromEntries(fields) as Record<string, unknown>;
  return new LazyRequest(raw, head, { whole: () => head }, model, streamOf(fields.get('stream')), null, n, contentType, undefined, form.files.length);
}

function unreadable(why: string): GatewayError {
  return new GatewayError('GW_ERR_REQUEST_INVALID_FIELD', `The multipart body could not be read: ${why}.`);
}

/** `true` or `false` as a form sends them; anything else is refused rather than guessed (a stream billed as none). */
function streamOf(value: string | undefined): boolean {
  if (value === undefined) return false;
  const lower = value.toLowerCase();
  if (lower === 'true') return true;
  if (lower === 'false') return false;
  throw invalidField('stream', `expected true or false, but got '${value.slice(0, 32)}'`);
}

/** `image` (or `image[]`, repeated) and `mask` are files: a text part of that name is refused, and `image` must be sent. */
function checkFiles(form: MultipartForm, name: string, required: boolean): void {
  const names = [name, `${name}[]`];
  const sentAsText = names.find((n) => form.fields.has(n));
  if (sentAsText !== undefined) throw invalidField(sentAsText, 'expected a file, but got a text field (send it as a file part, e.g. curl -F image=@photo.png)');
  if (required && !form.files.some((file) => names.includes(file.name))) throw missingField(name);
}

function countOf(value: string | undefined): number {
  if (value === undefined) return 1;
  if (!/^[1-9][0-9]{0,5}$/.test(value)) throw invalidField('n', `expected a positive integer, but got '${value.slice(0, 32)}'`);
  return Number(value);
}
