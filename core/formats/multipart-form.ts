// What a multipart/form-data body holds, read with busboy from the bytes already read (within server.body_limit):
// its text fields and the names, file names and types of its file parts. Only to route and check the request;
// the body itself goes upstream as the client's bytes, with the client's content type (boundary included).

import busboy from 'busboy';

export interface FormFile {
  /** The part's name (`image`, `image[]`, `mask`). */
  readonly name: string;
  readonly filename: string;
  readonly mimeType: string;
}

export interface MultipartForm {
  /** Text fields by name; a name sent twice keeps its first value (see `fieldNames`). */
  readonly fields: ReadonlyMap<string, string>;
  /** The text fields' names in the order sent, repeated names included. */
  readonly fieldNames: readonly string[];
  /** File parts in the order sent. */
  readonly files: readonly FormFile[];
}

/** Why a body is not a readable multipart form; the caller words it in its API's terms. */
export class MultipartProblem extends Error {
  override readonly name = 'MultipartProblem';
}

/** At most this many parts: a form is a handful of fields and files, and each part costs an object here. */
const MAX_PARTS = 1000;
/** A text field (a prompt, at most 32,000 characters for the GPT image models) is at most this many bytes. */
const MAX_FIELD_BYTES = 1024 * 1024;

/** Whether `contentType` says multipart/form-data (its parameters aside). */
export function isMultipartForm(contentType: string | undefined): contentType is string {
  return contentType !== undefined && /^multipart\/form-data\s*(;|$)/i.test(contentType.trim());
}

/** The boundary a multipart content type names; null when it names none. */
export function boundaryOf(contentType: string): string | null {
  const found = /;\s*boundary\s*=\s*(?:"([^"]+)"|([^\s;]+))/i.exec(contentType);
  return found?.[1] ?? found?.[2] ?? null;
}

/**
 * Reads the form in `body`, whole and synchronously: busboy parses as it is written, and its file streams are
 * given a high-water mark no part reaches, so it never waits for them to be read (their data is dropped
 * unread). Throws a MultipartProblem for a form busboy cannot read.
 */
export function readMultipartForm(body: Buffer, contentType: string): MultipartForm {
  const fields = new Map<string, string>();
  const fieldNames: string[] = [];
  const files: FormFile[] = [];
  let problem: Error | null = null;
  let parser: busboy.Busboy;
  try {
    parser = busboy({
      headers: { 'content-type': contentType },
      fileHwm: Number.MAX_SAFE_INTEGER,
      limits: { parts: MAX_PARTS, fieldSize: MAX_FIELD_BYTES },
      defParamCharset: 'utf8',
    });
  } catch (err) {
    // A content type without a boundary (or with a bad one).
    throw new MultipartProblem((err as Error).message);
  }
  parser.on('field', (name: string | undefined, value, info) => {
    if (typeof name !== 'string' || name === '') problem ??= new Error('a part has no name');
    else if (info.valueTruncated) problem ??= new Error(`the field ${name} is longer than ${MAX_FIELD_BYTES} bytes`);
    else {
      fieldNames.push(name);
      if (!fields.has(name)) fields.set(name, value);
    }
  });
  parser.on('file', (name: string | undefined, stream, info) => {
    if (typeof name !== 'string' || name === '') problem ??= new Error('a part has no name');
    files.push({ name: name ?? '', filename: info.filename ?? '', mimeType: info.mimeType });
    // A part cut short errors its stream a tick later; the form's own `errored` has already said so.
    stream.on('error', () => undefined);
    stream.resume();
  });
  parser.on('partsLimit', () => {
    problem ??= new Error(`the form has more than ${MAX_PARTS} parts`);
  });
  // Writing the last bytes runs busboy's final check (a form that never reached its closing delimiter is cut
  // short) at once, and sets `errored`; its error event comes a tick later. A part whose headers busboy cannot
  // read (too long, a line that is no `name: value`) is only an error event, at once, and the part is skipped:
  // unheard, the rest of the form would be taken as if that part had never been sent.
  parser.on('error', (err: Error) => {
    problem ??= err;
  });
  parser.end(body);
  const failed = problem ?? parser.errored;
  if (failed !== null) throw new MultipartProblem(failed.message);
  return { fields, fieldNames, files };
}
