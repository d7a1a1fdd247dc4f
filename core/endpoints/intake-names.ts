// The names a request carries (path parameters, query parameters, the body fields an endpoint declares it reads,
// its model), checked once for every route before any store or upstream sees them: a NUL made PostgreSQL answer
// 500 on ~20 endpoints, some after the upstream had acted (issue 40), and a model name padded with a space, a
// zero-width character or a slash matched prices and limits by a glob meant for another.
//
// Text that was not valid UTF-8 is decoded to U+FFFD (the path and query here, Buffer's decoding for bodies), so
// refusing U+FFFD in names refuses such bytes wherever they came in.

import { GatewayError } from '../errors.js';
import type { BodyReads } from './registry.js';

/** What no name holds: control characters (C0, DEL, C1), lone surrogates, U+FFFD (a byte that was not UTF-8). */
const NOT_IN_NAME = /[\u0000-\u001f\u007f-\u009f\ufffd]|\p{Cs}/u;
/** Free text the gateway stores (a note, a prompt): the same, but line breaks and tabs are text. */
const NOT_IN_TEXT = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\ufffd]|\p{Cs}/u;
/** What a model name never holds besides: whitespace and invisible characters (zero-width, BOM, soft hyphen...). */
const NOT_IN_MODEL = /[\p{White_Space}\p{Cf}\p{Default_Ignorable_Code_Point}]/u;
/** Nearly every model name: printable ASCII, no space, not ending in a slash (one test, no Unicode tables). */
const PLAIN_MODEL = /^[!-~]*[!-.0-~]$/;
/** A query string that escapes nothing and holds no byte outside printable ASCII is clean as it is. */
const PLAIN_QUERY = /^[!-$&-~]*$/;

export type NameRule = 'name' | 'text';

/** Why `value` is no `rule` (a phrase completing "<field> must ..."), or null when it is one. */
export function nameProblem(value: string, rule: NameRule): string | null {
  if (!(rule === 'name' ? NOT_IN_NAME : NOT_IN_TEXT).test(value)) return null;
  return rule === 'name'
    ? 'be valid UTF-8 text without control characters (no NUL, no line break, no lone surrogate)'
    : 'be valid UTF-8 text without control characters other than line breaks and tabs (no NUL, no lone surrogate)';
}

/** Why `model` is no model name, or null: the name of a configured model, as written there. */
export function modelProblem(model: string): string | null {
  if (PLAIN_MODEL.test(model)) return null;
  if (NOT_IN_NAME.test(model) || NOT_IN_MODEL.test(model)) {
    return 'be a model name without whitespace, invisible or control characters';
  }
  if (model.endsWith('/')) return 'be a model name without a trailing slash';
  return null;
}

function invalid(param: string, where: string, problem: string): GatewayError {
  return new GatewayError('GW_ERR_REQUEST_INVALID_FIELD', `Invalid ${where} '${param.slice(0, 64)}': it must ${problem}.`, { param });
}

/**
 * `text` percent-decoded as UTF-8, `+` as a space when `plus`; a byte sequence that is not UTF-8 becomes U+FFFD
 * (decodeURIComponent would throw) so that the name rule refuses it.
 */
export function percentDecode(text: string, plus: boolean): string {
  const bytes: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const hex = c === 0x25 ? text.slice(i + 1, i + 3) : '';
    if (hex.length === 2 && /^[0-9a-fA-F]{2}$/.test(hex)) {
      bytes.push(parseInt(hex, 16));
      i += 2;
    } else if (c === 0x2b && plus) {
      bytes.push(0x20);
    } else if (c < 0x80) {
      bytes.push(c);
    } else {
      // A raw byte past ASCII in a URL (Node reads the request line as latin1): not percent-encoded, so not UTF-8.
      bytes.push(0xff);
    }
  }
  return Buffer.from(bytes).toString('utf8');
}

/**
 * The first problem of a request's path parameters and query string (`?a=1&b=2`, or ''), as the 400 to answer before
 * anything else runs; null when there is none (nearly every request: no parameter, or nothing escaped).
 */
export function urlProblem(params: Readonly<Record<string, string>>, query: string): GatewayError | null {
  for (const name in params) {
    const problem = nameProblem(params[name] as string, 'name');
    if (problem !== null) return invalid(name, 'path parameter', problem);
  }
  if (query.length <= 1 || PLAIN_QUERY.test(query)) return null;
  for (const pair of query.slice(1).split('&')) {
    const eq = pair.indexOf('=');
    const name = percentDecode(eq < 0 ? pair : pair.slice(0, eq), true);
    const nameIssue = nameProblem(name, 'name');
    if (nameIssue !== null) return invalid(name.replace(NOT_IN_NAME, '?'), 'query parameter name', nameIssue);
    const problem = eq < 0 ? null : nameProblem(percentDecode(pair.slice(eq + 1), true), 'name');
    if (problem !== null) return invalid(name, 'query parameter', problem);
  }
  return null;
}

/**
 * The first problem of a decoded body's declared names and texts and of its model, as a 400 naming the field;
 * null when there is none. `model`: the request's ('' when it names none).
 */
export function bodyProblem(head: Readonly<Record<string, unknown>>, model: string, reads: BodyReads | undefined): GatewayError | null {
  if (model !== '') {
    const problem = modelProblem(model);
    if (problem !== null) return invalid('model', 'field', problem);
  }
  if (reads === undefined) return null;
  if (reads.names !== undefined) {
    for (const path of reads.names) {
      const found = firstBadAt(head, path, 0, '', 'name');
      if (found !== null) return found;
    }
  }
  if (reads.texts !== undefined) {
    for (const path of reads.texts) {
      const found = firstBadAt(head, path, 0, '', 'text');
      if (found !== null) return found;
    }
  }
  return null;
}

/**
 * The first string at `path` (dotted, `*` any item of an array) under `value` that breaks `rule`. `at`: the index in
 * `path` where the rest starts; `where`: the field so far, for the message.
 */
function firstBadAt(value: unknown, path: string, at: number, where: string, rule: NameRule): GatewayError | null {
  if (at >= path.length) {
    if (typeof value !== 'string') return null;
    const problem = nameProblem(value, rule);
    return problem === null ? null : invalid(where, 'field', problem);
  }
  const dot = path.indexOf('.', at);
  const step = dot < 0 ? path.slice(at) : path.slice(at, dot);
  const next = dot < 0 ? path.length : dot + 1;
  if (step === '*') {
    if (!Array.isArray(value)) return null;
    for (let i = 0; i < value.length; i++) {
      const found = firstBadAt(value[i], path, next, `${where}[${i}]`, rule);
      if (found !== null) return found;
    }
    return null;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value) || !Object.hasOwn(value, step)) return null;
  return firstBadAt((value as Record<string, unknown>)[step], path, next, where === '' ? step : `${where}.${step}`, rule);
}
