// Answers what Node's HTTP parser refuses (headers too large, malformed HTTP, a header timeout) in the shape of
// the API the request was meant for, not in Node's or fastify's own: OpenAI's by default, Anthropic's for a
// request that looks like an Anthropic client's.

import { STATUS_CODES, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { GatewayError } from '../errors.js';
import type { Runtime } from '../runtime.js';
import type { BodyIntake } from './body-intake.js';
import { errorFormatFor } from './error-format.js';
import { closeLingering, endLingering, isClosing } from './lingering-close.js';
import { noteRefusal } from './refusal.js';

/** What Node hands the 'clientError' listener: its parser's code and the bytes it failed on. */
export interface ClientError extends Error {
  readonly code?: string | undefined;
  /** A Buffer from Node (fastify's types say otherwise). */
  readonly rawPacket?: unknown;
}

/** How much of a refused packet is searched for the request line and the Anthropic headers. */
const SNIFF_BYTES = 16 * 1024;

export function answerClientError(runtime: Runtime, bodies: BodyIntake, err: ClientError, socket: Socket): void {
  // A closing connection's late bytes need no answer (its own answer is, or will be, the last); they are dropped
  // until it closes.
  if (isClosing(socket) && err.code !== 'ECONNRESET') return;
  const inFlight = responseOn(socket);
  // Nothing can be said on a socket that is gone, or inside a response already under way (a pipelined request
  // behind a streaming one): only closing is safe.
  if (err.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent === true) {
    socket.destroy();
    return;
  }
  const error = toGatewayError(err);
  // A pipeline route reading this body answers through its chain, in its format, and records the request. The
  // socket reads no more: more bytes would only be more parse errors. (A body that has all arrived is not failed:
  // the fault lies after it, below.)
  if (bodies.fail(socket, error)) {
    socket.pause();
    return;
  }
  if (inFlight?.req.complete === true) {
    // Bytes after a whole request whose answer is still to come (a pipelined request Node could not parse): an
    // answer written now would come before that one and garble both. The pending answer is the connection's last.
    closeLingering(inFlight);
    socket.pause();
    return;
  }
  // Otherwise the fault is in the request being read (its body, for a fastify route): the answer is to it.
  const request =
    inFlight === null ? sniff(err.rawPacket) : { method: inFlight.req.method ?? 'GET', url: inFlight.req.url ?? '/', headers: inFlight.req.headers };
  const format = errorFormatFor(runtime.current, request.url, request.headers);
  const id = runtime.ids.next();
  const rendered = format?.encodeError(error, { requestId: id, path: request.url.split('?', 1)[0] });
  if (rendered === undefined) {
    socket.destroy();
    return;
  }
  noteRefusal(runtime, id, request.method, request.url, error);
  const head = [`HTTP/1.1 ${rendered.status} ${STATUS_CODES[rendered.status] ?? 'Error'}`];
  for (const [name, value] of Object.entries(rendered.headers)) head.push(`${name}: ${value}`);
  head.push(`content-length: ${Buffer.byteLength(rendered.body)}`, `x-request-id: ${id}`, `request-id: ${id}`, 'connection: close');
  // The parser cannot be trusted with what follows on this connection: it closes once the answer is out.
  endLingering(socket, `${head.join('\r\n')}\r\n\r\n${rendered.body}`);
}

function toGatewayError(err: ClientError): GatewayError {
  if (err.code === 'HPE_HEADER_OVERFLOW') {
    return new GatewayError('GW_ERR_REQUEST_HEADERS_TOO_LARGE', 'The request headers are larger than this gateway accepts (16 KiB in all).');
  }
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return new GatewayError('GW_ERR_REQUEST_TIMEOUT', 'The request headers did not arrive in time.');
  }
  // llhttp's codes name the fault (HPE_INVALID_CHUNK_SIZE, HPE_UNEXPECTED_CONTENT_LENGTH, ...) and carry nothing
  // of the request's content.
  const code = err.code?.startsWith('HPE_') === true ? ` (${err.code})` : '';
  return new GatewayError('GW_ERR_REQUEST_MALFORMED', `The request is not valid HTTP/1.1${code}.`);
}

/**
 * The response Node has under way on this socket (its own bookkeeping: the check Node's default handler makes),
 * or null before a request's head was parsed.
 */
function responseOn(socket: Socket): ServerResponse | null {
  return (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage ?? null;
}

/** The path and the headers that choose the error shape, from the bytes of a request Node could not parse. */
function sniff(raw: unknown): { method: string; url: string; headers: IncomingHttpHeaders } {
  const text = Buffer.isBuffer(raw) ? raw.toString('latin1', 0, Math.min(raw.length, SNIFF_BYTES)) : '';
  const line = /^([A-Z]+) (\S+) HTTP\//.exec(text);
  const method = line?.[1] ?? '-';
  const url = line?.[2] ?? '/';
  const headers: IncomingHttpHeaders = {};
  if (/\r\nanthropic-version\s*:/i.test(text)) headers['anthropic-version'] = '';
  if (/\r\nx-api-key\s*:/i.test(text)) headers['x-api-key'] = '';
  return { method, url, headers };
}
