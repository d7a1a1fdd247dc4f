// Routes: method, path, the client API their callers speak (how a request is read, its answers' and errors' shape),
// the chain they get when gateway.yaml writes none and, for a feature's route, its handler. The registry matches a
// request to its route once; everything that needs to know the routes derives from it: the intake
// (http/pipeline-intake.ts), the Gateway's formats and chains, the config's route names and default routes, the 404
// hints and the mock's answers.
//
// A path may be a pattern (`/v1/models/{id}`: each `{name}` one segment, handed to the chain as `ctx.params`) and its
// method any of GET, POST, PATCH, DELETE; routes name an endpoint by its key (routeKeyOf).
//
// The routes come from core (the model routes, endpoints/model-routes.ts) and from the features (features/index.ts),
// composed by core/feature/compose.ts. A registry is an object handed to what derives from it (the config's parsing, the
// runtime): a test or an embedding program may start a gateway with routes of its own.

import type { ApiFormat, ChannelType } from '../config/resolved.js';
import type { ConfigSection } from '../config/section.js';
import type { WireCodec } from '../formats/codec.js';
import type { ClientFormat } from '../formats/format.js';
import type { ScanMemory } from '../formats/scan-memory.js';
import type { RouteHandler } from '../pipeline/plugin.js';
import type { MockAnswer, Provider } from '../providers/provider.js';
import type { HttpMethod } from './http-method.js';
import { percentDecode } from './intake-names.js';

export type { HttpMethod };

export interface Endpoint {
  /** The client's method; also the upstream call's (the endpoint, not the provider, decides the call's shape). */
  readonly method: HttpMethod;
  /**
   * The path, or a pattern whose `{name}` segments each match one segment (`/v1/models/{id}`); a parameter may be
   * followed by literal text in its segment (`/v1beta/models/{model}:generateContent`).
   */
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
  /**
   * A feature's answer on this route: the chain's terminal, after its middleware (`chain`, which then names no
   * relay plugin). The model routes have none: the relay plugin answers them.
   */
  readonly handler?: RouteHandler;
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
  /** Free text the gateway stores (a note, a prompt): the same, but line breaks and tabs are allowed. */
  readonly texts?: readonly string[];
}

export type BodyFamily = 'control' | 'open';

/** A client API a set of routes speaks (an Endpoint's `wire`), and the channel types whose upstreams speak it natively. */
export interface WireDeclaration {
  readonly name: ApiFormat;
  /** The channel types a route of this API is relayed to as it is (the mock answers the routes with a `mock`). */
  readonly native: readonly ChannelType[];
  /**
   * A chat API's translation codec (core/formats/codec.ts): with one, a request of this API is served by a channel of
   * any other chat API, and its channels serve every chat API's requests, through the IR.
   */
  readonly codec?: WireCodec;
}

/**
 * A channel type a feature brings (`type:` in gateway.yaml): its provider, made once per Gateway, and whether a
 * channel of it calls a real upstream (then `base_url` and `keys` are required).
 */
export interface ChannelTypeDeclaration {
  readonly type: ChannelType;
  readonly remote: boolean;
  createProvider(): Provider;
}

/** The admin API's and the console's JSON: a key's edit, a credit, a user's name; never a prompt. */
export const CONTROL_BODY_LIMIT = 64 * 1024;
/** A name and a password, or a link's token and a new password (password.ts: at most 256 characters). */
export const OPEN_BODY_LIMIT = 4 * 1024;

export type ChainStep = string | { readonly use: string; readonly with: Readonly<Record<string, unknown>> };

/**
 * The name routes and chains know an endpoint by: its path for a POST endpoint (every chat endpoint), else its
 * method and path (`GET /v1/models/{id}`), since one path may serve several methods.
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

/**
 * A path pattern's segments: a literal, or a parameter with the literal text that may follow it in its segment
 * (`{id}` -> { param: 'id', suffix: '' }; Google's `{model}:generateContent` -> { param: 'model', suffix:
 * ':generateContent' }).
 */
type Segment = string | { readonly param: string; readonly suffix: string };

const PARAM_SEGMENT = /^\{([A-Za-z_][A-Za-z0-9_]*)\}(.*)$/;

interface Pattern {
  readonly endpoint: Endpoint;
  readonly key: string;
  readonly segments: readonly Segment[];
}

function segmentsOf(path: string): Segment[] {
  return path
    .split('/')
    .slice(1)
    .map((part) => {
      const param = PARAM_SEGMENT.exec(part);
      if (param === null) return part;
      const suffix = param[2] as string;
      // The suffix is literal text: another parameter, or a brace, in it would make the segment ambiguous.
      if (suffix.includes('{') || suffix.includes('}')) throw new Error(`${path}: a segment holds one parameter, then literal text`);
      return { param: param[1] as string, suffix };
    });
}

function isPattern(path: string): boolean {
  return path.includes('{');
}

export class EndpointRegistry {
  /** Exact paths: the matches of each path's endpoints, made once (an exact request allocates nothing). */
  readonly #exact: ReadonlyMap<string, readonly EndpointMatch[]>;
  readonly #patterns: readonly Pattern[];
  readonly #byKey: ReadonlyMap<string, Endpoint>;
  readonly #codecs: ReadonlyMap<ApiFormat, WireCodec>;

  constructor(
    readonly all: readonly Endpoint[],
    /** The client APIs the routes speak, and which channel types speak each natively. */
    readonly wires: readonly WireDeclaration[] = [],
    /** The features' parts of gateway.yaml: the config is validated and resolved against the registry, with them. */
    readonly sections: readonly ConfigSection<unknown>[] = [],
    /** The channel types the features bring, beside core's (providers/index.ts). */
    readonly channelTypes: readonly ChannelTypeDeclaration[] = [],
  ) {
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
    this.#codecs = new Map(wires.flatMap((wire) => (wire.codec === undefined ? [] : [[wire.name, wire.codec] as const])));
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

  /** These routes and `more`, with the same wires. */
  with(more: readonly Endpoint[]): EndpointRegistry {
    return new EndpointRegistry([...this.all, ...more], this.wires, this.sections, this.channelTypes);
  }

  /** The translation codec of a chat API; undefined for an API that is not one (images, embeddings, ...). */
  codecOf(format: ApiFormat): WireCodec | undefined {
    return this.#codecs.get(format);
  }

  /** What a channel of `type` speaks natively (its `formats` when the config names none). */
  nativeFormats(type: ChannelType): readonly ApiFormat[] {
    return this.wires.filter((wire) => wire.native.includes(type)).map((wire) => wire.name);
  }
}

/** The path of a pattern's `segments` with `params` put in, each percent-encoded. */
function pathWith(segments: readonly Segment[], params: Readonly<Record<string, string>>): string {
  return segments.map((s) => `/${typeof s === 'string' ? s : `${encodeURIComponent(params[s.param] as string)}${s.suffix}`}`).join('');
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
      // The literal after the parameter, as sent (`:generateContent`); the parameter is what comes before it.
      if (part.length <= segment.suffix.length || !part.endsWith(segment.suffix)) return null;
      const raw = part.slice(0, part.length - segment.suffix.length);
      let value: string;
      try {
        value = decodeURIComponent(raw);
      } catch {
        // Not UTF-8 once decoded: matched all the same, so that its route refuses it in its own shape (intake-names.ts).
        value = percentDecode(raw, false);
      }
      if (value.length > MAX_PARAM_CHARS || value === '.' || value === '..') return null;
      params[segment.param] = value;
    }
  }
  return params;
}
