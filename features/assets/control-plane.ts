// The asset library on Volcengine Ark's control plane: each action one signed POST `/?Action=X&Version=2024-01-01`
// over a pool of its own, answered with the JSON envelope as it came (error envelopes are the caller's to read).
// Error messages name the library and a cause, never the key id, the secret or the Authorization header.

import { Pool, errors as undiciErrors, type Dispatcher } from 'undici';
import { readBody } from '../../core/providers/read-body.js';
import { isRedirect, redirectRefused } from '../../core/providers/upstream-redirect.js';
import { ASSET_API_VERSION, type AssetAction, type AssetLibrary, type LibraryAnswer } from './library.js';
import { GatewayError } from '../../core/errors.js';
import { signControlRequest } from '../../core/providers/volcengine/sign.js';

/** An envelope is a few KB, a full list page well under 1 MB: more is a broken or hostile upstream. */
const MAX_BODY_BYTES = 4 * 1024 * 1024;
const CONNECT_TIMEOUT_MS = 10_000;
const SERVICE = 'ark';
const CONTENT_TYPE = 'application/json';

export interface VolcengineControl {
  /** The control plane's base URL (`https://ark.cn-beijing.volcengineapi.com`), with or without a trailing slash. */
  readonly url: string;
  readonly region: string;
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  /** The channel's project: every action is sent in it, whatever the body says. */
  readonly projectName: string;
}

export interface VolcengineLibraryOptions {
  readonly control: VolcengineControl;
  /** How long to wait for the answer's headers, and then between its body's chunks. */
  readonly timeoutMs: number;
  /** The signature's clock (tests). */
  readonly now?: () => Date;
}

export function createVolcengineLibrary(options: VolcengineLibraryOptions): AssetLibrary {
  const { control, timeoutMs } = options;
  const now = options.now ?? ((): Date => new Date());
  const base = new URL(control.url);
  const path = `${base.pathname.replace(/\/+$/, '')}/`;
  const pool = new Pool(base.origin, { keepAliveTimeout: 30_000, connect: { timeout: Math.min(timeoutMs, CONNECT_TIMEOUT_MS) } });

  return {
    async call(action: AssetAction, body: Readonly<Record<string, unknown>>, signal?: AbortSignal): Promise<LibraryAnswer> {
      if (signal?.aborted === true) throw clientClosed(undefined);
      const payload = Buffer.from(JSON.stringify(Object.assign({}, body, { ProjectName: control.projectName })), 'utf8');
      const signed = signControlRequest({
        host: base.host,
        path,
        query: { Action: action, Version: ASSET_API_VERSION },
        body: payload,
        contentType: CONTENT_TYPE,
        accessKeyId: control.accessKeyId,
        secretAccessKey: control.secretAccessKey,
        region: control.region,
        service: SERVICE,
        date: now(),
      });
      // Host is sent as signed; identity, since the body is parsed here and undici's request() does not decompress.
      const headers = Object.assign(signed, { host: base.host, accept: CONTENT_TYPE, 'accept-encoding': 'identity' });
      const query = `?Action=${encodeURIComponent(action)}&Version=${ASSET_API_VERSION}`;
      let res: Dispatcher.ResponseData;
      try {
        res = await pool.request({ method: 'POST', path: path + query, headers, body: payload, headersTimeout: timeoutMs, bodyTimeout: timeoutMs, signal });
      } catch (err) {
        throw classify(err, signal);
      }
      const text = await readBounded(res, signal);
      if (isRedirect(res.statusCode)) throw new GatewayError('GW_ERR_UPSTREAM_ERROR', redirectRefused('the asset library', res.statusCode), { upstreamStatus: res.statusCode });
      return { status: res.statusCode, body: parseEnvelope(text, res.statusCode) };
    },
    async close(): Promise<void> {
      await pool.close();
    },
  };
}

async function readBounded(res: Dispatcher.ResponseData, signal: AbortSignal | undefined): Promise<string> {
  const tooLarge = (): GatewayError =>
    new GatewayError('GW_ERR_UPSTREAM_ERROR', `the asset library's answer is over ${MAX_BODY_BYTES} bytes`, { upstreamStatus: res.statusCode });
  try {
    return (await readBody(res.body, MAX_BODY_BYTES, tooLarge)).toString('utf8');
  } catch (err) {
    // Leaving the loop has destroyed the body already, so the connection is not reused.
    throw err instanceof GatewayError ? err : classify(err, signal);
  }
}

/** A JSON object, or GW_ERR_UPSTREAM_ERROR; the body's text stays out of the message (it may be anything). */
function parseEnvelope(text: string, status: number): Readonly<Record<string, unknown>> {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new GatewayError('GW_ERR_UPSTREAM_ERROR', `the asset library answered HTTP ${status} with a body that is not JSON`, { upstreamStatus: status });
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw new GatewayError('GW_ERR_UPSTREAM_ERROR', `the asset library answered HTTP ${status} with JSON that is not an object`, { upstreamStatus: status });
  }
  return json as Readonly<Record<string, unknown>>;
}

function classify(err: unknown, signal: AbortSignal | undefined): GatewayError {
  if (signal?.aborted === true || err instanceof undiciErrors.RequestAbortedError) return clientClosed(err);
  if (err instanceof undiciErrors.HeadersTimeoutError || err instanceof undiciErrors.BodyTimeoutError || err instanceof undiciErrors.ConnectTimeoutError) {
    return new GatewayError('GW_ERR_UPSTREAM_TIMEOUT', 'the asset library did not answer in time', { cause: err });
  }
  if (err instanceof undiciErrors.UndiciError) {
    return new GatewayError('GW_ERR_UPSTREAM_UNAVAILABLE', `the asset library's connection failed (${err.code})`, { cause: err });
  }
  const code = (err as { code?: unknown } | null)?.code;
  const why = typeof code === 'string' ? code : err instanceof Error ? err.name : 'unknown error';
  return new GatewayError('GW_ERR_UPSTREAM_UNAVAILABLE', `the asset library could not be reached (${why})`, { cause: err });
}

function clientClosed(cause: unknown): GatewayError {
  return new GatewayError('GW_ERR_CLIENT_CLOSED', 'the client closed the request before the asset library answered', { cause });
}
