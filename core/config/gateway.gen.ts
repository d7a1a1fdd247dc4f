// Generated from schemas/gateway.schema.json by `npm run gen`; do not edit. Change the schema and regenerate.

export type Name = string;
/**
 * The upstream's dialect. openai: OpenAI Chat Completions, Responses and Images (Bearer key). anthropic: Anthropic Messages (x-api-key). volcengine: Volcengine Ark (its asset library through the signed control plane; Bearer key on the data plane). mock: in-process replies in all of them, and an asset library kept in the store.
 */
export type ChannelType = "openai" | "anthropic" | "volcengine" | "mock";
/**
 * Client-visible model names: globs ("gpt-*"), or a map of client name to upstream name.
 */
export type ModelList =
  | [string, ...string[]]
  | {
      [k: string]: string | undefined;
    };
/**
 * A client API: the chat APIs (translated into one another), OpenAI Images, Volcengine's asset library (served by the asset-store plugin from the channels with assets: true, never relayed), and video tasks (the video plugin: Seedance on volcengine channels, and the mock).
 */
export type ApiFormat =
  "openai-chat" | "openai-responses" | "anthropic-messages" | "openai-images" | "volcengine-asset" | "video";
/**
 * A non-negative decimal amount of the currency (at most 9 decimal places), as a number or a string.
 */
export type Amount = number | string;

/**
 * gateway.yaml: server, store, channels (upstreams), groups, keys, accounts, pricing and routes.
 */
export interface GatewayConfig {
  server?: Server;
  store?: Store;
  redis?: Redis;
  /**
   * @minItems 1
   */
  channels: [Channel, ...Channel[]];
  /**
   * Key groups by name; a group decides which models its keys may call.
   */
  groups?: {
    [k: string]: Group | undefined;
  };
  /**
   * Gateway keys declared in the file (keys created at run time live in the store).
   */
  keys?: DeclaredKey[];
  /**
   * Accounts that pay for their keys' requests. Balances are state in the store, changed only through its ledger (credits from the CLI or the admin API); accounts may also be created at run time.
   */
  accounts?: Account[];
  pricing?: Pricing;
  /**
   * Routes and their plugin chains. Omitted routes get the default chain.
   */
  routes?: Route[];
  affinity?: Affinity;
  video?: Video;
  usage?: Usage;
  log?: Log;
}
export interface Server {
  port?: number;
  host?: string;
  /**
   * Largest accepted request body of an API route in bytes (413 above it); the admin and console routes have smaller caps of their own (README, Bodies by route family).
   */
  body_limit?: number;
  /**
   * Bearer token for /admin/*. Without it the admin API is off.
   */
  admin_token?: string;
  /**
   * How long SIGTERM waits for in-flight requests before aborting them.
   */
  shutdown_grace_ms?: number;
  /**
   * On SIGTERM, how long /readyz answers 503 while requests are still served, so that load balancers stop sending new ones before the drain begins.
   */
  drain_delay_ms?: number;
  /**
   * Longest time a request body may take to arrive once the gateway asks for it, right after the key was checked (408 after it).
   */
  body_timeout_ms?: number;
  /**
   * Longest time a request's headers may take to arrive on a connection (408 after it).
   */
  header_timeout_ms?: number;
  /**
   * Bytes of all request bodies being read, or held by requests not yet answered; a body that would exceed it gets 503.
   */
  max_inflight_body_bytes?: number;
  /**
   * When set, GET /metrics requires Authorization: Bearer <metrics_token>.
   */
  metrics_token?: string;
  /**
   * host:port of a separate listener that serves /metrics (and /healthz) only; /metrics then leaves the main port.
   */
  metrics_listen?: string;
  /**
   * host:port of a separate listener that serves the admin API (/admin/*) only; the main port then answers 404 there.
   */
  admin_listen?: string;
  /**
   * Addresses or CIDRs of the proxies in front of the gateway. A request from one of them is taken to come from the nearest address in X-Forwarded-For that is not itself a trusted proxy (for key IP allow-lists and the console's sign-in limits). Without it, the TCP peer's address.
   *
   * @maxItems 100
   */
  trusted_proxies?: string[];
}
export interface Store {
  /**
   * sqlite:<path> (absolute, or relative to the folder of the config file; the CLI and the server resolve it alike), sqlite::memory:, or postgres://user[:password]@host[:port]/database (several instances may share one).
   */
  url: string;
  /**
   * PostgreSQL: most connections this instance opens (default 10). Ignored for SQLite.
   */
  pool_max?: number;
  /**
   * PostgreSQL: the local SQLite file where usage records (with their charges) wait while the database is down, written when it answers again (absolute, or relative to the folder of the config file). Default ./data/usage-journal-<port>.db, the port being the one the instance listens on (server.port, or PORT); each instance needs its own. Ignored for SQLite.
   */
  journal_path?: string;
  /**
   * PostgreSQL: records the journal may hold (default 1000000); when full, new billable requests are answered 503 usage_backlog. Ignored for SQLite.
   */
  journal_max_records?: number;
}
/**
 * Shared state for several instances: rate-limit counters, conversation affinity, channel cool-downs.
 */
export interface Redis {
  /**
   * redis://[user:password@]host:port[/db]
   */
  url: string;
  /**
   * Every key the gateway writes starts with this: several deployments (or test runs) can share one Redis.
   */
  prefix?: string;
  /**
   * While Redis is unreachable: open admits under per-instance limits (the shared one divided by the live instances); closed answers 503.
   */
  on_failure?: "open" | "closed";
  /**
   * The longest a request waits on Redis (its limits, its conversation's binding) before on_failure applies; raise it where Redis may be slow without being out (a host whose CPU is oversubscribed, a distant Redis).
   */
  timeout_ms?: number;
}
export interface Channel {
  name: Name;
  type: ChannelType;
  /**
   * Origin and optional path prefix; /v1/... is appended.
   */
  base_url?: string;
  /**
   * Upstream API keys, rotated round-robin.
   */
  keys?: string[];
  models: ModelList;
  /**
   * Higher tiers are tried first.
   */
  priority?: number;
  /**
   * Share of traffic inside a priority tier.
   */
  weight?: number;
  /**
   * Time allowed until the upstream's response headers arrive.
   */
  timeout_ms?: number;
  /**
   * Longest silence allowed between two body chunks.
   */
  idle_timeout_ms?: number;
  /**
   * How long a failed channel is skipped.
   */
  cooldown_ms?: number;
  /**
   * How often the upstream's GET /v1/models is read (at start, then every this many ms) to expand the glob patterns of `models` in the gateway's own /v1/models. Types openai and anthropic, channels with a glob pattern only; 0 turns it off.
   */
  models_refresh_ms?: number;
  /**
   * Extra headers sent upstream.
   */
  headers?: {
    [k: string]: string | undefined;
  };
  /**
   * The client APIs this upstream speaks natively; by type when omitted (openai: openai-chat, openai-responses and openai-images; anthropic: anthropic-messages; volcengine: video; mock: all five).
   *
   * @minItems 1
   */
  formats?: [ApiFormat, ...ApiFormat[]];
  /**
   * Top-level request fields removed before the upstream call, for upstreams that reject them (e.g. client_metadata).
   */
  drop_params?: string[];
  images?: ImageOptions;
  mock?: MockOptions;
  control?: VolcengineControl;
  /**
   * This channel holds the asset library (/v1/videogen/asset/*) for the gateway's callers: type volcengine (with `control`) or mock.
   */
  assets?: boolean;
}
export interface ImageOptions {
  /**
   * The most images one request may ask this channel for (`n` of /v1/images/generations and /v1/images/edits): one cap for every model, or a cap per model glob (first match wins, in file order; models no glob matches are not capped). A request above the cap is not sent to this channel; when no channel takes it, it is a 400 that names the cap.
   */
  max_n?:
    | number
    | {
        [k: string]: number | undefined;
      };
}
export interface MockOptions {
  chunk_delay_ms?: number;
  /**
   * Fixed reply text instead of the default echo.
   */
  reply?: string;
}
/**
 * Volcengine's OpenAPI control plane, where the asset library lives: its actions are signed with the account's AK/SK (never shown to callers).
 */
export interface VolcengineControl {
  /**
   * e.g. https://ark.cn-beijing.volcengineapi.com
   */
  url: string;
  /**
   * e.g. cn-beijing (BytePlus: ap-southeast-1)
   */
  region: string;
  access_key_id: string;
  secret_access_key: string;
  /**
   * The project the library's groups and assets are created in.
   */
  project_name?: string;
  /**
   * Time allowed for one action's answer.
   */
  timeout_ms?: number;
}
export interface Group {
  /**
   * Model globs this group may call.
   */
  models: string[];
  /**
   * Every price is multiplied by this for the keys of this group (default 1).
   */
  price_multiplier?: number | string;
  limits?: GroupLimits;
}
/**
 * The limits of each key of the group (a key's own limits override them, value by value), and per model.
 */
export interface GroupLimits {
  /**
   * Requests per minute.
   */
  rpm?: number;
  /**
   * Input plus output tokens per minute: a request is admitted against its estimate (its body's bytes / 4 plus its own max_tokens), corrected to its usage when it ends.
   */
  tpm?: number;
  /**
   * Requests in flight at once, streams included.
   */
  concurrency?: number;
  /**
   * Limits of each key on the models a glob matches (the first that matches, in file order), on top of its others.
   */
  models?: {
    [k: string]: Limits | undefined;
  };
}
/**
 * Rate limits, each optional: of each key of a group (a key's own override its group's, value by value), of a key, or of all an account's keys together. rpm and tpm are token buckets that refill continuously, as OpenAI's and Anthropic's own: the whole limit at once, then more as it refills; a request that does not fit gets 429.
 */
export interface Limits {
  /**
   * Requests per minute.
   */
  rpm?: number;
  /**
   * Input plus output tokens per minute: a request is admitted against its estimate (its body's bytes / 4 plus its own max_tokens), corrected to its usage when it ends.
   */
  tpm?: number;
  /**
   * Requests in flight at once, streams included.
   */
  concurrency?: number;
}
export interface DeclaredKey {
  name: Name;
  key: string;
  group: Name;
  /**
   * The account that pays for this key's requests: the key is metered (refused with 402 when the balance does not cover a request). Without one the key is unmetered: never refused for money, its cost still computed and recorded.
   */
  account?: string;
  /**
   * Most this key may spend in all (a decimal in the currency); 402 once its charges and open reservations would pass it.
   */
  max_spend?: number | string;
  limits?: Limits | undefined;
}
export interface Account {
  name: Name;
  description?: string;
  limits?: Limits | undefined;
  /**
   * The groups the account's console users may create keys in (a group sets the models, prices and limits). Without it, only the operator makes the account's keys.
   *
   * @maxItems 100
   */
  groups?: Name[];
}
export interface Pricing {
  /**
   * Shown next to amounts (default USD); amounts are never converted.
   */
  currency?: string;
  /**
   * Model name or glob -> prices; the first match wins, in file order.
   */
  models?: {
    [k: string]: ModelPrice | undefined;
  };
  /**
   * Flat charges per call, by operation name (videogen.asset.CreateAsset).
   */
  calls?: {
    [k: string]: Amount;
  };
  /**
   * Output tokens reserved for a request that sets no output cap (max_tokens, max_completion_tokens, max_output_tokens); default 4096.
   */
  default_output_reserve?: number;
  /**
   * A metered key calling a model with no price: refused with 403 model_not_priced (default), or served free.
   */
  unpriced?: "refuse" | "free";
  /**
   * How long balance held by an instance that stopped renewing it (killed) stays held before it is released; default 30000.
   */
  reservation_timeout_ms?: number;
}
/**
 * Prices per 1M tokens of each kind, per image made, and per second of video made; a kind not given costs nothing, except cache_read and cache_write (the input price when not given), input_image (input) and output_image (output).
 */
export interface ModelPrice {
  input?: Amount;
  output?: Amount;
  cache_read?: Amount;
  cache_write?: Amount;
  input_image?: Amount;
  output_image?: Amount;
  per_image?: Amount;
  /**
   * A non-negative decimal amount of the currency (at most 9 decimal places), as a number or a string.
   */
  per_second?: number | string;
  /**
   * A non-negative decimal amount of the currency (at most 9 decimal places), as a number or a string.
   */
  task_reserve?: number | string;
}
export interface Route {
  /**
   * The endpoint this route is for: its path for a POST endpoint (/v1/chat/completions), else its method and path pattern (GET /v1/videos/{id}). The allowed values come from the endpoint registry (core/endpoints/registry.ts), put in as an enum when the config is validated.
   */
  path: string;
  /**
   * @minItems 1
   */
  plugins: [PluginUse, ...PluginUse[]];
}
export interface PluginUse {
  use: string;
  with?: {
    [k: string]: unknown | undefined;
  };
}
/**
 * Sticky conversations: a conversation key (Anthropic metadata.user_id, OpenAI prompt_cache_key) stays on the channel and upstream key that served it.
 */
export interface Affinity {
  /**
   * How long an unused binding lives; each request renews it. 0 turns affinity off.
   */
  ttl_ms?: number;
  /**
   * Bindings kept in memory; the least recently used go first.
   */
  max_entries?: number;
}
/**
 * Video tasks (/v1/videos, /v1/video/generations): how unfinished tasks are polled and when they expire.
 */
export interface Video {
  /**
   * How soon after submission a task is first read from its upstream; each later read waits half as long again, up to max_poll_interval_ms.
   */
  poll_interval_ms?: number;
  /**
   * The longest wait between two reads of an unfinished task.
   */
  max_poll_interval_ms?: number;
  /**
   * A client's GET of an unfinished task not read for this long reads it from its upstream at once.
   */
  refresh_after_ms?: number;
  /**
   * A task its upstream has not finished this long after submission expires: it is charged nothing and its reservation is released (Ark's own default is 48 h).
   */
  task_timeout_ms?: number;
}
/**
 * Usage records: how long they are kept.
 */
export interface Usage {
  /**
   * Usage records older than this are deleted, a small batch at a time, off the request path; their hourly sums (dashboards, billing totals) are kept, and what they cost stays in the audit. Without it every record is kept.
   */
  retention_days?: number;
}
export interface Log {
  /**
   * Lowest level written; LOG_LEVEL, else info, when not set.
   */
  level?: "fatal" | "error" | "warn" | "info" | "debug" | "trace" | "silent";
  /**
   * One info line per request (failed requests are logged whatever this says).
   */
  access?: boolean;
}
