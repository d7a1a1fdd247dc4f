// Edits one text field of a multipart form in place (the model alias, a channel's drop_params): every other byte,
// each file part included, stays as the client sent it. Re-encoding the form would change its boundary, its part
// headers and the files' names and types, which the upstream then reads (wire-formats.md, 4.2).
//
// Only called on a form readMultipartForm already read, so its delimiters are where busboy found them.

import type { BodyBytes } from './body-bytes.js';
import { boundaryOf } from './multipart-form.js';

interface Part {
  /** Where its delimiter line begins. */
  readonly start: number;
  /** Where its content begins and ends (the CRLF before the next delimiter excluded). */
  readonly contentStart: number;
  readonly contentEnd: number;
  /** The name of a text part; null for a file part (or a part without a name). */
  readonly textName: string | null;
}

const CRLF_CRLF = Buffer.from('\r\n\r\n');

function partsOf(raw: Buffer, boundary: string): Part[] {
  const delimiter = Buffer.from(`--${boundary}`);
  const next = Buffer.from(`\r\n--${boundary}`);
  const parts: Part[] = [];
  let at = raw.indexOf(delimiter);
  while (at !== -1) {
    const afterDelimiter = at + delimiter.length;
    // `--boundary--` closes the form.
    if (raw[afterDelimiter] === 0x2d && raw[afterDelimiter + 1] === 0x2d) break;
    const headersEnd = raw.indexOf(CRLF_CRLF, afterDelimiter);
    if (headersEnd === -1) break;
    const contentEnd = raw.indexOf(next, headersEnd + 4);
    if (contentEnd === -1) break;
    const headers = raw.toString('latin1', afterDelimiter, headersEnd);
    parts.push({ start: at, contentStart: headersEnd + 4, contentEnd, textName: textNameOf(headers) });
    at = contentEnd + 2;
  }
  return parts;
}

function textNameOf(headers: string): string | null {
  const disposition = /^content-disposition:([^\r\n]*)/im.exec(headers)?.[1];
  if (disposition === undefined || /;\s*filename\*?\s*=/i.test(disposition)) return null;
  const name = /;\s*name\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s;]+))/i.exec(disposition);
  return name?.[1] ?? name?.[2] ?? null;
}

/**
 * The names of the text parts, in order, as the edits here find them. A form whose list differs from busboy's
 * (`fieldNames`) is one the two read differently, so an edit could miss the part the upstream reads: the image
 * edit's decoder refuses it.
 */
export function textPartNames(raw: Buffer, contentType: string): string[] {
  const boundary = boundaryOf(contentType);
  if (boundary === null) return [];
  return partsOf(raw, boundary).flatMap((part) => (part.textName === null ? [] : [part.textName]));
}

function partsOfBody(body: BodyBytes, contentType: string): { raw: Buffer; parts: Part[]; boundary: string } {
  const boundary = boundaryOf(contentType);
  if (boundary === null) throw new Error('a multipart content type without a boundary');
  const raw = body.joined();
  return { raw, parts: partsOf(raw, boundary), boundary };
}

/** The form with text field `name` set to `value`: the first such part's content replaced, else a part added first. */
export function setFormField(body: BodyBytes, contentType: string, name: string, value: string): BodyBytes {
  const { raw, parts, boundary } = partsOfBody(body, contentType);
  const part = parts.find((p) => p.textName === name);
  if (part !== undefined) {
    return body.derive([raw.subarray(0, part.contentStart), Buffer.from(value, 'utf8'), raw.subarray(part.contentEnd)]);
  }
  const first = parts[0]?.start ?? raw.indexOf(`--${boundary}`);
  const added = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name.replace(/["\\\r\n]/g, '_')}"\r\n\r\n${value}\r\n`, 'utf8');
  return body.derive([raw.subarray(0, first), added, raw.subarray(first)]);
}

/** The form without the text fields named in `names`; `body` itself when it has none of them. */
export function removeFormFields(body: BodyBytes, contentType: string, names: ReadonlySet<string>): BodyBytes {
  const { raw, parts } = partsOfBody(body, contentType);
  const pieces: Buffer[] = [];
  let at = 0;
  for (const part of parts) {
    if (part.textName === null || !names.has(part.textName)) continue;
    pieces.push(raw.subarray(at, part.start));
    // Up to the next delimiter (the CRLF before it belongs to the removed part).
    at = part.contentEnd + 2;
  }
  if (at === 0) return body;
  pieces.push(raw.subarray(at));
  return body.derive(pieces);
}
