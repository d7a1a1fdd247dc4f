// The HTTP side every remote dialect shares: one keep-alive undici pool per origin (no connection cap), the
// base URL joined without doubling /v1, timeouts, and transport failures classified for failover.

import { Pool, errors as undiciErrors, type Dispatcher } from 'undici';
import type { ResolvedChannel } from '../config/resolved.js';
import { GatewayError } from '../errors.js';
import { getJson, type ModelListReader } from './model-discovery.js';
import type { Provider, UpstreamRequest, UpstreamResponse } from './provider.js';
import { UpstreamFailure } from './provider.js';
import { clientGone, UpstreamCall } from './upstream-call.js';

const CONNECT_TIMEOUT_MS = 10_000;

/** What differs between dialects: the headers of one upstream call (auth included). */
export type HeaderBuilder = (request: UpstreamRequest) => Record<string, string>;

/** `readModels`: how the dialect lists its models, when its API has a list; it shares the request pools. */
export function createHttpProvider(buildHeaders: HeaderBuilder, readModels?: ModelListReader): Provider {
  // A pool without a connection cap: a capped pool silently queues streams beyond the cap.
  const pools = new Map<string, Pool>();

  function poolFor(origin: string): Pool {
    let pool = pools.get(origin);
    if (pool === undefined) {
      pool = new Pool(origin, { keepAliveTimeout: 30_000, connect: { timeout: CONNECT_TIMEOUT_MS } });
      pools.set(origin, pool);
    }
    return pool;
  }

  // Base URLs come from the config, a handful per process: parsed once, not per request.
  const bases = new Map<string, { origin: string; prefix: string }>();
  function baseOf(baseUrl: string): { origin: string; prefix: string } {
    let base = bases.get(baseUrl);
    if (base === undefined) {
      const url = new URL(baseUrl);
      base = { origin: url.origin, prefix: url.pathname.replace(/\/+$/, '') };
      bases.set(baseUrl, base);
    }
    return base;
  }

  const provider: Provider = {
    send(request: UpstreamRequest): Promise<UpstreamResponse> {
      const { channel } = request;
      if (channel.baseUrl === null) return Promise.reject(noBaseUrl(channel));
      if (request.abort.aborted) return Promise.reject(clientGone());
      const { origin, prefix } = baseOf(channel.baseUrl);
      const path = joinPath(prefix, request.path);
      const headers = buildHeaders(request);
      const method = request.method ?? 'POST';
      const body = method === 'POST' ? request.body.forUpstream() : null;
      // An iterable (a large body's copies, body-bytes.ts) needs its length given, or undici sends it chunked.
      if (body !== null && !Buffer.isBuffer(body)) headers['content-length'] = String(request.body.length);
      return new Promise((resolve, reject) => {
        const call = new UpstreamCall(request.abort, resolve, (err) => reject(classify(err, request.abort.aborted)));
        poolFor(origin).dispatch(
          {
            method,
            path: path + request.query,
            headers,
            // undici takes an Iterable body (docs/api/Dispatcher.md); its type declarations list fewer kinds.
            body: body as Exclude<Dispatcher.DispatchOptions['body'], undefined>,
            headersTimeout: channel.timeoutMs,
            bodyTimeout: channel.idleTimeoutMs,
          },
          call,
        );
      });
    },
    async close(): Promise<void> {
      await Promise.all([...pools.values()].map((pool) => pool.close()));
    },
  };
  if (readModels === undefined) return provider;
  return {
    send: provider.send,
    close: provider.close,
    listModels(channel: ResolvedChannel, key: string, signal: AbortSignal): Promise<readonly string[]> {
      if (channel.baseUrl === null) return Promise.reject(noBaseUrl(channel));
      const { origin, prefix } = baseOf(channel.baseUrl);
      const pool = poolFor(origin);
      return readModels((path, headers) => getJson(pool, joinPath(prefix, path), headers, channel.timeoutMs, signal), channel, key);
    },
  };
}

/** A base URL that already ends in /v1 must not produce /v1/v1/... */
function joinPath(prefix: string, path: string): string {
  return prefix.endsWith('/v1') && path.startsWith('/v1/') ? prefix + path.slice(3) : prefix + path;
}

function noBaseUrl(channel: ResolvedChannel): GatewayError {
  return new GatewayError('GW_ERR_INTERNAL', `channel ${channel.name} has no base_url`);
}

/**
 * Headers every call sends, set on `headers` over what is there: the body's type, the right Accept, and an
 * uncompressed body (the meter reads usage from it).
 */
export function setBaseHeaders(headers: Record<string, string>, request: UpstreamRequest): Record<string, string> {
  // A GET, HEAD or DELETE sends no body, so names no type for one.
  if ((request.method ?? 'POST') === 'POST') headers['content-type'] = request.contentType ?? 'application/json';
  else delete headers['content-type'];
  headers['accept'] = request.stream ? 'text/event-stream' : 'application/json';
  headers['accept-encoding'] = 'identity';
  return headers;
}

/** The channel's configured headers over the client's forwarded ones. */
export function addChannelHeaders(headers: Record<string, string>, request: UpstreamRequest): Record<string, string> {
  const own = request.channel.headers;
  for (const name in own) headers[name] = own[name] as string;
  return headers;
}

function classify(err: unknown, clientGone: boolean): unknown {
  if (clientGone || err instanceof UpstreamFailure) return err;
  if (err instanceof undiciErrors.HeadersTimeoutError || err instanceof undiciErrors.ConnectTimeoutError) {
    return new UpstreamFailure('timeout', 'the upstream did not answer in time', { cause: err });
  }
  if (err instanceof undiciErrors.UndiciError) {
    return new UpstreamFailure('protocol', `the upstream connection failed (${err.code})`, { cause: err });
  }
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string') {
    return new UpstreamFailure('connect', `the upstream could not be reached (${code})`, { cause: err });
  }
  return err;
}
