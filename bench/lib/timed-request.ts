// One HTTP request, timed from the moment it is issued to the first body bytes (TTFB) and to the end, with
// what a stream client checks: the SSE events received and whether the stream ended with its terminal event.
// node:http rather than fetch: fetch's web streams add more CPU per chunk than a gateway under test does,
// and this process shares the machine's cores with the targets.

import { request, type Agent } from 'node:http';
import { performance } from 'node:perf_hooks';

export interface RequestSpec {
  readonly host: string;
  readonly port: number;
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Buffer;
  /**
   * For streams: the last SSE line a complete stream ends with (`data: [DONE]` for Chat Completions). A 2xx
   * stream that ends without it was cut short. Undefined for JSON replies.
   */
  readonly terminal?: string;
  readonly timeoutMs: number;
}

/** Why a request did not complete: the buckets the tables count separately. */
export type Failure =
  /** an answer with a status other than 2xx */
  | 'non2xx'
  /** the connection was reset or closed under the request (ECONNRESET, EPIPE, "socket hang up", a body cut off mid-way) */
  | 'reset'
  /** any other socket error (ECONNREFUSED, EADDRNOTAVAIL, EMFILE, ...) */
  | 'error'
  /** no complete answer within timeoutMs */
  | 'timeout'
  /** a 2xx stream that ended cleanly but without its terminal event */
  | 'truncated'
  /** still running when the run was stopped (time limit of the run, deadline, Ctrl-C) */
  | 'unfinished';

export interface Outcome {
  /** HTTP status; 0 when no answer came. */
  readonly status: number;
  readonly failure: Failure | undefined;
  /** The socket error's code, when there was one. */
  readonly errorCode: string | undefined;
  /** Milliseconds from issuing the request to the first body bytes; NaN when none came. */
  readonly ttfbMs: number;
  /** Milliseconds from issuing the request to the end of the answer (or the failure). */
  readonly totalMs: number;
  readonly bytes: number;
  /** SSE events received (blocks ended by a blank line); 0 for JSON replies. */
  readonly events: number;
}

const LF = 0x0a;
const LFLF = Buffer.from('\n\n');

/** Blank-line event ends (SSE events) in `chunk`, including one split across the previous chunk and this one. */
export function countEventEnds(chunk: Buffer, previousEndedWithLf: boolean): number {
  let n = previousEndedWithLf && chunk[0] === LF ? 1 : 0;
  let at = chunk.indexOf(LFLF, n);
  while (at !== -1) {
    n++;
    at = chunk.indexOf(LFLF, at + 2);
  }
  return n;
}

function classify(err: NodeJS.ErrnoException): Failure {
  if (err.name === 'AbortError' || err.code === 'ABORT_ERR') return 'unfinished';
  const code = err.code ?? '';
  if (code === 'ECONNRESET' || code === 'EPIPE' || err.message === 'aborted' || err.message === 'socket hang up') return 'reset';
  return 'error';
}

/** The end of a stream's text: the last two chunks (references, not copies: this runs for every chunk). */
function streamEnd(previous: Buffer | undefined, last: Buffer | undefined): string {
  const bytes = previous === undefined ? last : last === undefined ? previous : Buffer.concat([previous, last]);
  return bytes === undefined ? '' : bytes.toString('latin1').trimEnd();
}

/** `onFirstByte`: called when the first body bytes arrive (the stream is open from then on). */
export function timedRequest(agent: Agent, spec: RequestSpec, signal?: AbortSignal, onFirstByte?: () => void): Promise<Outcome> {
  return new Promise((resolve) => {
    const start = performance.now();
    let status = 0;
    let ttfb = NaN;
    let bytes = 0;
    let events = 0;
    let endedWithLf = false;
    let previousChunk: Buffer | undefined;
    let lastChunk: Buffer | undefined;
    let settled = false;
    let timedOut = false;
    const stream = spec.terminal !== undefined;

    const settle = (failure: Failure | undefined, errorCode?: string): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ status, failure, errorCode, ttfbMs: ttfb, totalMs: performance.now() - start, bytes, events });
    };
    const onError = (err: NodeJS.ErrnoException): void => settle(timedOut ? 'timeout' : classify(err), err.code ?? err.message);

    const req = request(
      {
        agent,
        host: spec.host,
        port: spec.port,
        path: spec.path,
        method: 'POST',
        headers: { ...spec.headers, 'content-length': String(spec.body.length) },
        ...(signal === undefined ? {} : { signal }),
      },
      (res) => {
        status = res.statusCode ?? 0;
        res.on('data', (chunk: Buffer) => {
          if (bytes === 0) {
            ttfb = performance.now() - start;
            onFirstByte?.();
          }
          bytes += chunk.length;
          if (!stream) return;
          events += countEventEnds(chunk, endedWithLf);
          endedWithLf = chunk[chunk.length - 1] === LF;
          previousChunk = lastChunk;
          lastChunk = chunk;
        });
        res.on('end', () => {
          if (status < 200 || status >= 300) settle('non2xx');
          else if (stream && !streamEnd(previousChunk, lastChunk).endsWith(spec.terminal)) settle('truncated');
          else settle(undefined);
        });
        res.on('error', onError);
        // A body cut off without an error event (seen on some Node versions): a reset as far as the client knows.
        res.on('close', () => {
          if (!res.complete) settle(timedOut ? 'timeout' : signal?.aborted === true ? 'unfinished' : 'reset', 'closed before the end');
        });
      },
    );
    req.on('error', onError);
    const timer = setTimeout(() => {
      timedOut = true;
      req.destroy(new Error('timeout'));
    }, spec.timeoutMs);
    req.end(spec.body);
  });
}
