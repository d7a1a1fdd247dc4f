// The one table of the API endpoints the plugin chains serve: method, path, the client API its callers speak
// (how its request is read, its answers' and errors' shape) and the chain it gets when gateway.yaml writes none.
// Everything that needs to know the endpoints derives from this table: the intake (http/pipeline-intake.ts), the
// Gateway's formats, the config's route names and default routes, the 404 hints and the mock's refusals.
//
// An entry's path may be a pattern (`/v1/videos/{id}`: each `{name}` one segment, handed to the chain as
// `ctx.params`) and its method any of GET, POST, DELETE; routes name an endpoint by its key (routeKeyOf).
//
// Adding an endpoint starts with one entry here. A registry is an object, handed to what derives from it (the
// config's parsing, the runtime): a test or an embedding program may start a gateway with entries of its own.

import type { ApiFormat } from '../config/resolved.js';
import { createAdminFormat } from '../formats/admin/index.js';
import { createAnthropicCountTokensFormat, createAnthropicMessagesFormat } from '../formats/anthropic-messages/index.js';
import type { ClientFormat } from '../formats/format.js';
import type { ScanMemory } from '../formats/scan-memory.js';
import { createModelListFormat } from '../formats/model-list/index.js';
import { createOpenAIChatFormat } from '../formats/openai-chat/index.js';
import { createOpenAIImagesEditsFormat, createOpenAIImagesGenerationsFormat } from '../formats/openai-images/index.js';
import { createOpenAIResponsesCompactFormat, createOpenAIResponsesFormat } from '../formats/openai-responses/index.js';
import { createVolcengineAssetFormat } from '../formats/volcengine-asset/index.js';
import { createOpenAIVideosFormat, createVideoGenerationsFormat, createVideoTaskFormat } from '../formats/video/index.js';
import { MOCK_CHAT, MOCK_COMPACT, MOCK_COUNT_TOKENS, MOCK_IMAGES, MOCK_MESSAGES, MOCK_RESPONSES, type MockAnswer } from '../providers/mock/answers.js';
import type { HttpMethod } from './http-method.js';
import { percentDecode } from './intake-names.js';

export type { HttpMethod };

export interface Endpoint {
  /** The client's method; also the upstream call's (the endpoint, not the provider, decides the call's shape). */
  readonly method: HttpMethod;
  /** The path, or a pattern whose `{name}` segments each match one segment (`/v1/videos/{id}`). */
  readonly path: string;
  /** The API its callers speak (the mock answers and refuses as that API does); none for the gateway's own. */
  readonly wire?: ApiFormat;
  /**
   * Its request's decoding and its answers' shape; one per Gateway (a format may keep per-config state), handed
   * the server's memory for reading large JSON bodies (formats/scan-memory.ts), which a format need not use.
   */
  readonly createFormat: (memory: ScanMemory) => ClientFormat;
  /** The plugin chain of a config that writes no route for this path: plugin names, or a name with its options. */
  readonly chain: readonly ChainStep[];
  /** False for an endpoint whose chain gateway.yaml may not replace (the admin API: its auth must stay). */
  readonly configurable?: false;
  /** What the `mock` channel answers here (providers/mock/answers.ts); an endpoint without one the mock does not serve. */
  readonly mock?: MockAnswer;
  /**
   * Its body family, which caps the body (http/body-intake.ts, 413 past it): none, an API route's (server.body_limit);
   * `control`, the admin and console JSON (CONTROL_BODY_LIMIT); `open`, a route that serves callers with no
   * credential at all (sign-in, a password link, the console's pages: OPEN_BODY_LIMIT), so that what anyone may make
   * the gateway read stays a few KB. Every other route checks its caller in the head phase, before any body byte.
   */
  readonly body?: BodyFamily;
  /**
   * What of the request it reads as names, checked once when the request comes in (intake-names.ts): every path
   * parameter and query parameter always, the model always, and of the body the fields listed here.
   */
  readonly reads?: BodyReads;
}

/**
 * The query parameters and body fields an endpoint reads as names or keeps as text. Body fields are dotted paths
 * from the body's top (`Filter.Name`; `*` is every item of an array: `Filter.GroupIds.*`).
 */
export interface BodyReads {
  /** The query parameters it reads (all are checked; these are the ones it looks at, for the docs and the tests). */
  readonly query?: readonly string[];
  /** Ids, names, filters, cursors: no control character, lone surrogate or byte that was not UTF-8. */
  readonly names?: readonly string[];
  /** Free text the gateway stores (a note, a video prompt): the same, but line breaks and tabs are allowed. */
  readonly texts?: readonly string[];
}

export type BodyFamily = 'control' | 'open';

/** The admin API's and the console's JSON: a key's edit, a credit, a user's name; never a prompt. */
export const CONTROL_BODY_LIMIT = 64 * 1024;
/** A name and a password, or a link's token and a new password (password.ts: at most 256 characters). */
export const OPEN_BODY_LIMIT = 4 * 1024;

export type ChainStep = string | { readonly use: string; readonly with: Readonly<Record<string, unknown>> };

const METERED = ['auth', 'rate-limit', 'quota', 'meter', 'relay'] as const;
/**
 * Free calls (count_tokens): recorded, never charged nor refused for money, nor held to the key's other limits
 * (Anthropic limits token counting apart from messages, and Claude Code counts often), but to a limit of their own:
 * 100 requests per minute per key on the route, Anthropic's figure for its lowest tier.
 */
const COUNT_TOKENS: readonly ChainStep[] = ['auth', { use: 'rate-limit', with: { route_rpm: 100 } }, 'meter', 'relay'];
const ADMIN: readonly ChainStep[] = [{ use: 'auth', with: { credential: 'admin_token' } }, 'admin'];
const VIDEO_CREATE = ['auth', 'rate-limit', 'meter', 'video'] as const;
const VIDEO_READ = ['auth', 'video'] as const;
/** The console plugin signs its callers in itself (a session cookie). */
const CONSOLE: readonly ChainStep[] = ['console'];

// What each endpoint reads as names (Endpoint.reads), besides its path parameters and model, which are always checked.
const CHAT_READS: BodyReads = { names: ['prompt_cache_key'] };
const MESSAGES_READS: BodyReads = { names: ['metadata.user_id'] };
const ASSET_READS: BodyReads = { names: ['Id', 'GroupId', 'Name', 'URL', 'ProjectName', 'Filter.Name', 'Filter.GroupIds.*'], texts: ['Description'] };
const VIDEO_CREATE_READS: BodyReads = { names: ['seconds', 'size'], texts: ['prompt'] };
const KEY_READS: BodyReads = { names: ['name', 'group', 'account', 'max_spend', 'expires_at', 'models.*', 'ips.*'] };
const CREDIT_READS: BodyReads = { names: ['amount', 'idempotency_key'], texts: ['note'] };
const BIND_READS: BodyReads = { names: ['key'] };
const USAGE_QUERY: BodyReads = { query: ['from', 'to', 'key_id', 'model', 'route', 'request_id', 'status', 'cursor', 'limit', 'account'] };

/** The endpoints the gateway serves out of the box. */
export const ENDPOINTS: readonly Endpoint[] = [
  { method: 'POST', path: '/v1/chat/completions', wire: 'openai-chat', createFormat: createOpenAIChatFormat, chain: METERED, mock: MOCK_CHAT, reads: CHAT_READS },
  { method: 'POST', path: '/v1/messages', wire: 'anthropic-messages', createFormat: createAnthropicMessagesFormat, chain: METERED, mock: MOCK_MESSAGES, reads: MESSAGES_READS },
  // Not billed, but metered: the record shows who counted what, and the request counts in the metrics.
  {
    method: 'POST',
    path: '/v1/messages/count_tokens',
    wire: 'anthropic-messages',
    createFormat: createAnthropicCountTokensFormat,
    chain: COUNT_TOKENS,
    mock: MOCK_COUNT_TOKENS,
    reads: MESSAGES_READS,
  },
  { method: 'POST', path: '/v1/responses', wire: 'openai-responses', createFormat: createOpenAIResponsesFormat, chain: METERED, mock: MOCK_RESPONSES, reads: CHAT_READS },
  {
    method: 'POST',
    path: '/v1/responses/compact',
    wire: 'openai-responses',
    createFormat: createOpenAIResponsesCompactFormat,
    chain: METERED,
    mock: MOCK_COMPACT,
    reads: CHAT_READS,
  },
  {
    method: 'POST',
    path: '/v1/images/generations',
    wire: 'openai-images',
    createFormat: createOpenAIImagesGenerationsFormat,
    chain: METERED,
    mock: MOCK_IMAGES,
  },
  // A multipart form: read within server.body_limit, its fields read to route it, its bytes forwarded as sent.
  { method: 'POST', path: '/v1/images/edits', wire: 'openai-images', createFormat: createOpenAIImagesEditsFormat, chain: METERED, mock: MOCK_IMAGES },
  // Volcengine's asset library: eight actions by name (any other is a 404 in its envelope), each key on its own
  // groups and assets; charged per call (pricing.calls), never relayed by model.
  {
    method: 'POST',
    path: '/v1/videogen/asset/{action}',
    wire: 'volcengine-asset',
    createFormat: createVolcengineAssetFormat,
    chain: ['auth', 'rate-limit', 'quota', 'meter', 'asset-store'],
    reads: ASSET_READS,
  },
  // Video tasks (Seedance on volcengine channels, and the mock): made, read, listed, downloaded and cancelled by the key
  // that made them only. A task's money is the video plugin's own (reserved at submission, settled when it ends), so
  // its creation has no quota step; meter records the submission.
  { method: 'POST', path: '/v1/video/generations', wire: 'video', createFormat: createVideoGenerationsFormat, chain: VIDEO_CREATE, reads: VIDEO_CREATE_READS },
  { method: 'GET', path: '/v1/video/generations/{task_id}', wire: 'video', createFormat: createVideoTaskFormat, chain: VIDEO_READ },
  { method: 'POST', path: '/v1/videos', wire: 'video', createFormat: createOpenAIVideosFormat, chain: VIDEO_CREATE, reads: VIDEO_CREATE_READS },
  { method: 'GET', path: '/v1/videos', wire: 'video', createFormat: createVideoTaskFormat, chain: VIDEO_READ, reads: { query: ['after', 'limit', 'order'] } },
  { method: 'GET', path: '/v1/videos/{id}', wire: 'video', createFormat: createVideoTaskFormat, chain: VIDEO_READ },
  { method: 'GET', path: '/v1/videos/{id}/content', wire: 'video', createFormat: createVideoTaskFormat, chain: VIDEO_READ },
  { method: 'DELETE', path: '/v1/videos/{id}', wire: 'video', createFormat: createVideoTaskFormat, chain: VIDEO_READ },
  // The models a key may use, in its caller's API (the format picks OpenAI's or Anthropic's shape per request).
  { method: 'GET', path: '/v1/models', createFormat: createModelListFormat, chain: ['auth', 'models'], reads: { query: ['limit', 'after_id', 'before_id'] } },
  { method: 'GET', path: '/v1/models/{id}', createFormat: createModelListFormat, chain: ['auth', 'models'] },
  // A key's own money: its balance and spend, and the legacy OpenAI billing routes chat front-ends read.
  { method: 'GET', path: '/v1/me', createFormat: createModelListFormat, chain: ['auth', 'billing'] },
  { method: 'GET', path: '/v1/dashboard/billing/subscription', createFormat: createModelListFormat, chain: ['auth', 'billing'] },
  { method: 'GET', path: '/v1/dashboard/billing/usage', createFormat: createModelListFormat, chain: ['auth', 'billing'], reads: { query: ['start_date', 'end_date'] } },
  // The admin API: the operator's token, never a key; its chain cannot be rewritten in gateway.yaml.
  { method: 'GET', path: '/admin/keys', createFormat: createAdminFormat, chain: ADMIN, configurable: false, body: 'control' },
  { method: 'POST', path: '/admin/keys', createFormat: createAdminFormat, chain: ADMIN, configurable: false, body: 'control', reads: KEY_READS },
  { method: 'PATCH', path: '/admin/keys/{id}', createFormat: createAdminFormat, chain: ADMIN, configurable: false, body: 'control', reads: KEY_READS },
  { method: 'DELETE', path: '/admin/keys/{id}', createFormat: createAdminFormat, chain: ADMIN, configurable: false, body: 'control' },
  { method: 'GET', path: '/admin/accounts', createFormat: createAdminFormat, chain: ADMIN, configurable: false, body: 'control' },
  { method: 'POST', path: '/admin/accounts', createFormat: createAdminFormat, chain: ADMIN, configurable: false, body: 'control', reads: { names: ['name'], texts: ['description'] } },
  { method: 'GET', path: '/admin/accounts/{name}', createFormat: createAdminFormat, chain: ADMIN, configurable: false, body: 'control' },
  { method: 'POST', path: '/admin/accounts/{name}/credit', createFormat: createAdminFormat, chain: ADMIN, configurable: false, body: 'control', reads: CREDIT_READS },
  { method: 'GET', path: '/admin/instances', createFormat: createAdminFormat, chain: ADMIN, configurable: false, body: 'control' },
  { method: 'GET', path: '/admin/asset-groups', createFormat: createAdminFormat, chain: ADMIN, configurable: false, body: 'control', reads: { query: ['offset', 'key', 'account'] } },
  { method: 'POST', path: '/admin/asset-groups/{id}/bind', createFormat: createAdminFormat, chain: ADMIN, configurable: false, body: 'control', reads: BIND_READS },
  // The web console's API: a session cookie, not a key; its chain cannot be rewritten either.
  { method: 'POST', path: '/console/api/session', createFormat: createAdminFormat, chain: CONSOLE, configurable: false, body: 'open', reads: { names: ['name', 'admin_token'], texts: ['password'] } },
  { method: 'GET', path: '/console/api/session', createFormat: createAdminFormat, chain: CONSOLE, configurable: false, body: 'control' },
  { method: 'DELETE', path: '/console/api/session', createFormat: createAdminFormat, chain: CONSOLE, configurable: false, body: 'control' },
  { method: 'POST', path: '/console/api/password', createFormat: createAdminFormat, chain: CONSOLE, configurable: false, body: 'open', reads: { names: ['token'], texts: ['password'] } },
  { method: 'POST', path: '/console/api/accounts/{name}/users', createFormat: createAdminFormat, chain: CONSOLE, configurable: false, body: 'control', reads: { names: ['name'] } },
  { method: 'GET', path: '/console/api/dashboard', createFormat: createAdminFormat, chain: CONSOLE, configurable: false, body: 'control', reads: { query: ['from', 'to', 'bucket', 'account'] } },
  { method: 'GET', path: '/console/api/keys', createFormat: createAdminFormat, chain: CONSOLE, configurable: false, body: 'control', reads: { query: ['account'] } },
  { method: 'POST', path: '/console/api/keys', createFormat: createAdminFormat, chain: CONSOLE, configurable: false, body: 'control', reads: KEY_READS },
  { method: 'PATCH', path: '/console/api/keys/{id}', createFormat: createAdminFormat, chain: CONSOLE, configurable: false, body: 'control', reads: KEY_READS },
  { method: 'DELETE', path: '/console/api/keys/{id}', createFormat: createAdminFormat, chain: CONSOLE, configurable: false, body: 'control' },
  { method: 'GET', path: '/console/api/usage', createFormat: createAdminFormat, chain: CONSOLE, configurable: false, body: 'control', reads: USAGE_QUERY },
  { method: 'GET', path: '/console/api/usage.csv', createFormat: createAdminFormat, chain: CONSOLE, configurable: false, body: 'control', reads: USAGE_QUERY },
  { method: 'GET', path: '/console/api/ledger', createFormat: createAdminFormat, chain: CONSOLE, configurable: false, body: 'control', reads: { query: ['cursor', 'limit', 'account'] } },
  { method: 'GET', path: '/console/api/asset-groups', createFormat: createAdminFormat, chain: CONSOLE, configurable: false, body: 'control', reads: { query: ['offset', 'account'] } },
  { method: 'POST', path: '/console/api/asset-groups/{id}/bind', createFormat: createAdminFormat, chain: CONSOLE, configurable: false, body: 'control', reads: BIND_READS },
  { method: 'GET', path: '/console/api/videos', createFormat: createAdminFormat, chain: CONSOLE, configurable: false, body: 'control', reads: { query: ['offset', 'key', 'account'] } },
  { method: 'GET', path: '/console/api/videos/{id}/content', createFormat: createAdminFormat, chain: CONSOLE, configurable: false, body: 'control' },
  { method: 'GET', path: '/console/api/accounts', createFormat: createAdminFormat, chain: CONSOLE, configurable: false, body: 'control' },
  { method: 'POST', path: '/console/api/accounts', createFormat: createAdminFormat, chain: CONSOLE, configurable: false, body: 'control', reads: { names: ['name', 'groups.*'], texts: ['description'] } },
  { method: 'PATCH', path: '/console/api/accounts/{name}', createFormat: createAdminFormat, chain: CONSOLE, configurable: false, body: 'control', reads: { names: ['groups.*'] } },
  { method: 'POST', path: '/console/api/accounts/{name}/credit', createFormat: createAdminFormat, chain: CONSOLE, configurable: false, body: 'control', reads: CREDIT_READS },
  { method: 'GET', path: '/console/api/channels', createFormat: createAdminFormat, chain: CONSOLE, configurable: false, body: 'control' },
  { method: 'GET', path: '/console/api/instances', createFormat: createAdminFormat, chain: CONSOLE, configurable: false, body: 'control' },
  { method: 'GET', path: '/console/api/config', createFormat: createAdminFormat, chain: CONSOLE, configurable: false, body: 'control' },
  { method: 'POST', path: '/console/api/config/reload', createFormat: createAdminFormat, chain: CONSOLE, configurable: false, body: 'control' },
  // The pages: index.html at /console, its script and style under /console/assets/.
  { method: 'GET', path: '/console', createFormat: createAdminFormat, chain: CONSOLE, configurable: false, body: 'open' },
  { method: 'GET', path: '/console/', createFormat: createAdminFormat, chain: CONSOLE, configurable: false, body: 'open' },
  { method: 'GET', path: '/console/assets/{file}', createFormat: createAdminFormat, chain: CONSOLE, configurable: false, body: 'open' },
];

/**
 * The name routes and chains know an endpoint by: its path for a POST endpoint (every chat endpoint), else its
 * method and path (`GET /v1/videos/{id}`), since one path may serve several methods.
 */
export function routeKeyOf(endpoint: Pick<Endpoint, 'method' | 'path'>): string {
  return endpoint.method === 'POST' ? endpoint.path : `${endpoint.method} ${endpoint.path}`;
}

/** The admin API's endpoints: the ones server.admin_listen moves to a listener of their own. */
export function isAdminEndpoint(endpoint: Pick<Endpoint, 'path'>): boolean {
  return endpoint.path.startsWith('/admin/');
}

/** A request's endpoint: its route key, and the values of its path's `{name}` segments. */
export interface EndpointMatch {
  readonly endpoint: Endpoint;
  readonly key: string;
  readonly params: Readonly<Record<string, string>>;
  /**
   * The path to call upstream: the endpoint's, its parameters put back percent-encoded (never the client's raw
   * text, which an upstream or a proxy might normalise into another path).
   */
  readonly path: string;
}

/** A path parameter longer than this matches nothing (ids are short; a longer one is no id of ours). */
const MAX_PARAM_CHARS = 256;

/** The parameters of an exact path: none (one object for every such match). */
export const NO_PARAMS: Readonly<Record<string, string>> = Object.freeze({});

/** A path pattern's segments: a literal, or the name of a parameter (`{id}` -> { param: 'id' }). */
type Segment = string | { readonly param: string };

interface Pattern {
  readonly endpoint: Endpoint;
  readonly key: string;
  readonly segments: readonly Segment[];
}

function segmentsOf(path: string): Segment[] {
  return path
    .split('/')
    .slice(1)
    .map((part) => (part.startsWith('{') && part.endsWith('}') ? { param: part.slice(1, -1) } : part));
}

function isPattern(path: string): boolean {
  return path.includes('{');
}

export class EndpointRegistry {
  /** Exact paths: the matches of each path's endpoints, made once (an exact request allocates nothing). */
  readonly #exact: ReadonlyMap<string, readonly EndpointMatch[]>;
  readonly #patterns: readonly Pattern[];
  readonly #byKey: ReadonlyMap<string, Endpoint>;

  constructor(readonly all: readonly Endpoint[]) {
    const exact = new Map<string, EndpointMatch[]>();
    const patterns: Pattern[] = [];
    const byKey = new Map<string, Endpoint>();
    for (const endpoint of all) {
      const key = routeKeyOf(endpoint);
      if (byKey.has(key)) throw new Error(`two endpoints of a registry are ${key}`);
      // Without a family a body may be as large as an API's (server.body_limit): the admin and console routes, whose
      // chains the config cannot change, say which of theirs it is, so a new one cannot forget.
      if (endpoint.configurable === false && endpoint.body === undefined) throw new Error(`${key}: a route of the admin API or the console declares its body family`);
      byKey.set(key, endpoint);
      if (isPattern(endpoint.path)) patterns.push({ endpoint, key, segments: segmentsOf(endpoint.path) });
      else exact.set(endpoint.path, [...(exact.get(endpoint.path) ?? []), { endpoint, key, params: NO_PARAMS, path: endpoint.path }]);
    }
    this.#exact = exact;
    this.#patterns = patterns;
    this.#byKey = byKey;
  }

  /**
   * The endpoint serving `method` on `path` (a request's path, without its query); undefined when none does. A
   * HEAD is served by the GET endpoint, as HTTP asks (Node sends no body with the answer).
   */
  match(method: string | undefined, path: string): EndpointMatch | undefined {
    if (method === 'HEAD') return this.match('GET', path);
    const exact = this.#exact.get(path);
    if (exact !== undefined) {
      for (const found of exact) if (found.endpoint.method === method) return found;
    }
    if (this.#patterns.length === 0) return undefined;
    const parts = path.split('/').slice(1);
    for (const pattern of this.#patterns) {
      if (pattern.endpoint.method !== method) continue;
      const params = paramsOf(pattern.segments, parts);
      if (params !== null) return { endpoint: pattern.endpoint, key: pattern.key, params, path: pathWith(pattern.segments, params) };
    }
    return undefined;
  }

  /** The endpoints at `path`, whatever their method (for the error shape of a refusal, and 405 hints). */
  at(path: string): readonly Endpoint[] {
    const exact = this.#exact.get(path)?.map((found) => found.endpoint) ?? [];
    if (this.#patterns.length === 0) return exact;
    const parts = path.split('/').slice(1);
    return [...exact, ...this.#patterns.filter((p) => paramsOf(p.segments, parts) !== null).map((p) => p.endpoint)];
  }

  /** The endpoint a route key names (routeKeyOf). */
  byKey(key: string): Endpoint | undefined {
    return this.#byKey.get(key);
  }

  /** The built-in endpoints and `more`. */
  with(more: readonly Endpoint[]): EndpointRegistry {
    return new EndpointRegistry([...this.all, ...more]);
  }
}

/** The path of a pattern's `segments` with `params` put in, each percent-encoded. */
function pathWith(segments: readonly Segment[], params: Readonly<Record<string, string>>): string {
  return segments.map((s) => `/${typeof s === 'string' ? s : encodeURIComponent(params[s.param] as string)}`).join('');
}

/**
 * A pattern's parameters in `parts` (a path's segments), or null when it does not match. A parameter is one
 * non-empty segment, decoded, at most MAX_PARAM_CHARS long, and not `.` or `..` (no id is); bytes that are not UTF-8
 * are decoded as U+FFFD, which the intake refuses.
 */
function paramsOf(segments: readonly Segment[], parts: readonly string[]): Record<string, string> | null {
  if (segments.length !== parts.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i] as Segment;
    const part = parts[i] as string;
    if (typeof segment === 'string') {
      if (segment !== part) return null;
    } else {
      if (part === '') return null;
      let value: string;
      try {
        value = decodeURIComponent(part);
      } catch {
        // Not UTF-8 once decoded: matched all the same, so that its route refuses it in its own shape (intake-names.ts).
        value = percentDecode(part, false);
      }
      if (value.length > MAX_PARAM_CHARS || value === '.' || value === '..') return null;
      params[segment.param] = value;
    }
  }
  return params;
}

/** The registry of the built-in endpoints (immutable, so one serves every gateway of a process). */
export const BUILTIN_ENDPOINTS = new EndpointRegistry(ENDPOINTS);
