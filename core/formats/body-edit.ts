// One top-level field of a request body set or removed, in the body's own encoding: a JSON object's pair
// (json-edit.ts) or a multipart form's text part (multipart-edit.ts); every other byte stays the client's.

import type { BodyBytes } from './body-bytes.js';
import type { ParsedRequest } from './format.js';
import { removeBodyFields, setBodyField } from './json-edit.js';
import { removeFormFields, setFormField } from './multipart-edit.js';
import { isMultipartForm } from './multipart-form.js';

export function setRequestField(request: ParsedRequest, body: BodyBytes, name: string, value: string): BodyBytes {
  const { contentType } = request;
  return isMultipartForm(contentType) ? setFormField(body, contentType, name, value) : setBodyField(body, name, value);
}

export function removeRequestFields(request: ParsedRequest, body: BodyBytes, names: ReadonlySet<string>): BodyBytes {
  const { contentType } = request;
  return isMultipartForm(contentType) ? removeFormFields(body, contentType, names) : removeBodyFields(body, names);
}
