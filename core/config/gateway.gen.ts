// Generated from schemas/gateway.schema.json by `npm run gen`; do not edit. Change the schema and regenerate.

/**
 * The upstream's dialect. openai (every OpenAI-compatible API, Bearer key): Chat Completions, Responses and the OpenAI-shaped feature APIs. anthropic (x-api-key): Messages and count_tokens. volcengine: Volcengine Ark, for the features that use its data plane (the Bearer keys) or its signed control plane; no chat API. mock: in-process answers in every API (docs/api.md, the mock channel). A feature may bring more (gemini: Google's Gemini API, x-goog-api-key; features/gemini/README.md). The allowed values are core's and the features' types, put in as an enum when the config is validated.
 */
export type ChannelType = string;
/**
 * Which client-visible models a channel serves: globs ("gpt-*"; * any run of characters, ? one), or a map of client name to upstream name, which renames the model in the forwarded body.
 */
export type ModelList =
  | [string, ...string[]]
  | {
      [k: string]: string | undefined;
    };
/**
 * A client API: the chat APIs (translated into one another: openai-chat, openai-responses, anthropic-messages) and each feature's own (docs/api.md lists every route with its API). The allowed values are the wires the model routes and the features declare (core/endpoints/model-routes.ts, features/<name>/index.ts), put in as an enum when the config is validated.
 */
export type ApiFormat = string;
/**
 * A non-negative decimal amount of the currency (at most 9 decimal places), as a number or a string.
 */
export type Amount = number | string;
export type Name = string;

/**
 * gateway.yaml: server, store, channels (upstreams), groups, keys, accounts, pricing and routes.
 */
export interface GatewayConfig {
  server?: Server;
  store?: Store;
  redis?: Redis;
  /**
   * The upstreams.
   *
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
   * Routes and their plugin chains (docs/config.md, Routes and plugins). Routes not written get the default chain; the admin API's routes cannot be written.
   */
  routes?: Route[];
  affinity?: Affinity;
  health?: Health1;
  usage?: Usage;
  log?: Log;
}
/**
 * The HTTP server: listeners, body and time limits, tokens, shutdown.
 */
export interface Server {
  /**
   * Listen port; the PORT environment variable overrides it.
   */
  port?: number;
  /**
   * Listen address: 127.0.0.1 for loopback only, 0.0.0.0 to serve other machines.
   */
  host?: string;
  /**
   * Largest accepted request body of an API route in bytes (413 above it); the admin and console routes have smaller caps of their own (docs/api.md, Bodies by route family).
   */
  body_limit?: number;
  /**
   * Enables /admin/* with Authorization: Bearer <token> (at least 16 characters); without it the admin API is off. Wrong tokens are limited per client address with the console's sign-ins (ten, then one every 6 s: 429 with retry-after, even for the right token), shared by the fleet through Redis.
   */
  admin_token?: string;
  /**
   * On SIGTERM or SIGINT, how long requests in flight may finish before they are aborted.
   */
  shutdown_grace_ms?: number;
  /**
   * On SIGTERM or SIGINT, how long /readyz answers 503 while requests are still served, before the drain, so that load balancers stop sending new ones (behind one: longer than its health checks take to notice).
   */
  drain_delay_ms?: number;
  /**
   * Longest time a request body may take to arrive once the gateway asks for it, right after the key was checked; then 408 and the connection is closed.
   */
  body_timeout_ms?: number;
  /**
   * Longest time a request's headers may take to arrive on a connection (408 after it).
   */
  header_timeout_ms?: number;
  /**
   * Bytes of all request bodies being read, or held by requests not yet answered (at least body_limit); a body that would exceed it gets 503 server_busy with retry-after: 1.
   */
  max_inflight_body_bytes?: number;
  /**
   * Largest upstream answer the gateway reads whole (a JSON answer, to read its usage); a larger one is refused as a broken answer (502, or the next channel), so an endless upstream cannot fill the memory. Streams and files are relayed as they arrive and are not held to it. 2048 embeddings of 3072 floats are about 130 MB.
   */
  max_answer_bytes?: number;
  /**
   * Every answer an upstream took part in (a stream's too, and the error after every channel failed) carries x-gateway-overhead-ms: the milliseconds the gateway itself spent on the request until the answer's headers, i.e. all but the wait for the upstreams and for the client's body (as LiteLLM's x-litellm-overhead-duration-ms). false leaves it out.
   */
  overhead_header?: boolean;
  /**
   * When set (at least 16 characters), GET /metrics requires Authorization: Bearer <metrics_token>.
   */
  metrics_token?: string;
  /**
   * host:port of a separate listener that serves /metrics (and /healthz) only, e.g. one only the monitoring network reaches; /metrics then leaves the main port.
   */
  metrics_listen?: string;
  /**
   * host:port of a separate listener that serves the admin API (/admin/*) only, e.g. one only the operators' network reaches; the main port then answers 404 there (the console stays on the main port).
   */
  admin_listen?: string;
  /**
   * Addresses or CIDRs of the proxies in front of the gateway. A request from one of them is taken to come from the nearest address in X-Forwarded-For that is not itself a trusted proxy (for key IP allow-lists and the console's sign-in limits). Without it the TCP peer is the client and the header is ignored.
   *
   * @maxItems 100
   */
  trusted_proxies?: string[];
}
/**
 * Where run-time keys, usage records and money live; sqlite:./data/gateway.db when not set.
 */
export interface Store {
  /**
   * Where run-time keys and usage records live: sqlite:<path> (the directory is created; absolute, or relative to the config file's folder, not the working directory, for serve and keys alike: the gateway logs the absolute path on start, keys create names it), sqlite::memory: for throwaway runs, or postgres://user[:password]@host[:port]/database. SQLite is for one instance; several instances share one PostgreSQL database (the schema is created and migrated at start; the URL's password never appears in logs). The environment variable GATEWAY_STORE_URL, when set, takes the place of this value.
   */
  url: string;
  /**
   * PostgreSQL: most connections this instance opens. Ignored for SQLite.
   */
  pool_max?: number;
  /**
   * PostgreSQL: the local SQLite file where usage records (with their charges) wait while the database is down, written when it answers again (absolute, or relative to the folder of the config file; docs/operations.md, Several instances). Default ./data/usage-journal-<port>.db, the port being the one the instance listens on (server.port, or PORT). Each instance needs its own: a second one on the same file stops at start naming it. Ignored for SQLite.
   */
  journal_path?: string;
  /**
   * PostgreSQL: records the journal may hold; when full, new requests on metered routes are answered 503 usage_backlog. Ignored for SQLite.
   */
  journal_max_records?: number;
}
/**
 * Shared state for several instances: rate limits, conversation affinity, channel cool-downs and the live instances (docs/operations.md, Several instances).
 */
export interface Redis {
  /**
   * redis://[user:password@]host:port[/db], or rediss:// for TLS; the password never appears in logs.
   */
  url: string;
  /**
   * Every key the gateway writes starts with this: several deployments (or test runs) can share one Redis.
   */
  prefix?: string;
  /**
   * While Redis does not answer (within redis.timeout_ms): open admits under each instance's own limits (each shared limit divided by the instances last seen alive); closed answers 503 rate_limits_unavailable to limited keys.
   */
  on_failure?: "open" | "closed";
  /**
   * The longest a request waits on Redis (its limits, its conversation's binding) before on_failure applies; raise it where Redis may be slow without being out (a host whose CPU is oversubscribed, a distant Redis): see docs/operations.md, Several instances.
   */
  timeout_ms?: number;
}
export interface Channel {
  /**
   * Unique; used in logs, metrics and usage records.
   */
  name: string;
  type: ChannelType;
  /**
   * Origin plus optional path prefix; /v1/... is appended (a trailing /v1 is not doubled). Required for openai, anthropic and volcengine.
   */
  base_url?: string;
  /**
   * Upstream API keys, rotated round-robin (a conversation keeps its key, see affinity). Required for openai, anthropic and volcengine.
   */
  keys?: string[];
  models: ModelList;
  /**
   * Higher tiers are tried first.
   */
  priority?: number;
  /**
   * Share of traffic inside a priority tier (weighted random order).
   */
  weight?: number;
  /**
   * Time allowed until the upstream's response headers arrive; then the next channel is tried (undici's timers tick about once a second, so values under 1000 act as about 1 s).
   */
  timeout_ms?: number;
  /**
   * Longest silence between two body chunks before the stream is broken off.
   */
  idle_timeout_ms?: number;
  /**
   * A failed channel is tried last for this long.
   */
  cooldown_ms?: number;
  health?: Health;
  /**
   * How often the upstream's GET /v1/models is read (at start, then every this many ms) to expand the glob patterns of `models` in the gateway's own /v1/models (docs/api.md, How /v1/models is built). Types openai and anthropic, channels with a glob pattern only; 0 turns it off.
   */
  models_refresh_ms?: number;
  /**
   * Extra headers sent upstream; they override the client's forwarded headers, never the upstream key.
   */
  headers?: {
    [k: string]: string | undefined;
  };
  /**
   * The client APIs this upstream speaks natively, a subset of its type's (e.g. [openai-chat] for a vendor without the Responses API, [openai-images] for an image-only one); by type when omitted, every API the routes declare that type speaks natively (docs/api.md). Requests in one of them pass through byte for byte; chat requests in another chat API are translated into the first chat API listed (docs/translation.md); count_tokens, /v1/responses/compact and the features' routes are only served natively.
   *
   * @minItems 1
   */
  formats?: [ApiFormat, ...ApiFormat[]];
  /**
   * Top-level request fields removed before the upstream call, for upstreams that reject them (e.g. client_metadata), translated bodies included; every other byte goes as sent.
   */
  drop_params?: string[];
  mock?: MockOptions;
}
/**
 * When this channel is taken out of rotation, and when it is probed (the top-level `health` fills what is unset).
 */
export interface Health {
  /**
   * Failures in the window that take the channel out; more than `window`: never.
   */
  errors?: number;
  /**
   * How many of the channel's last requests are counted.
   */
  window?: number;
  /**
   * How long a channel taken out waits for its first probe.
   */
  probe_after_ms?: number;
  /**
   * The longest wait between two probes (each failed probe doubles it).
   */
  probe_max_ms?: number;
}
/**
 * mock only: how the mock channel answers.
 */
export interface MockOptions {
  /**
   * mock only: delay between stream chunks.
   */
  chunk_delay_ms?: number;
  /**
   * mock only: a fixed reply instead of the echo.
   */
  reply?: string;
}
export interface Group {
  /**
   * Model globs this group's keys may call (403 otherwise).
   */
  models: string[];
  /**
   * Every price is multiplied by this for the keys of this group (default 1).
   */
  price_multiplier?: number | string;
  /**
   * Whether this group's keys are told what each request cost (x-gateway-cost, a stream's usage.cost); pricing.show_cost when not set.
   */
  show_cost?: boolean;
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
   * Input plus output tokens per calendar day (UTC midnight, or a stated timezone's; or per week or month with period): a request is admitted against its estimate (as tpm's) while the day's count plus it fits, corrected to its usage when it ends; exact across instances with Redis. A refusal is a 429 that says when the period resets (retry-after, x-gateway-budget-reset).
   */
  tokens_per_day?: number | TokensPerDay;
  /**
   * Limits of each key on the models a glob matches (the first that matches, in file order), on top of its others.
   */
  models?: {
    [k: string]: Limits | undefined;
  };
}
/**
 * A token cap per calendar day (or week, or month) starting at a timezone's midnight.
 */
export interface TokensPerDay {
  /**
   * Input plus output tokens per period.
   */
  tokens: number;
  /**
   * The calendar period the count is of: a day (the default), a week (Monday first) or a month.
   */
  period?: "day" | "week" | "month";
  /**
   * The IANA zone whose midnight starts the day (Europe/Berlin); UTC without one.
   */
  timezone?: string;
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
  /**
   * Input plus output tokens per calendar day (UTC midnight, or a stated timezone's; or per week or month with period): a request is admitted against its estimate (as tpm's) while the day's count plus it fits, corrected to its usage when it ends; exact across instances with Redis. A refusal is a 429 that says when the period resets (retry-after, x-gateway-budget-reset).
   */
  tokens_per_day?: number | TokensPerDay;
}
export interface DeclaredKey {
  /**
   * The key's name: in logs, usage records, the console and the CLI.
   */
  name: string;
  /**
   * The key itself, sk- and at least 16 of A-Z, a-z, 0-9, _ and - (use ${ENV}).
   */
  key: string;
  /**
   * The group whose models, prices and limits apply.
   */
  group: string;
  /**
   * The account that pays for this key's requests: the key is metered (refused with 402 when the balance does not cover a request). Without one the key is unmetered: never refused for money, its cost still computed and recorded.
   */
  account?: string;
  /**
   * Most this key may spend: in all (a decimal in the currency), or per calendar period ({amount, period, timezone}); 402 max_spend_reached once its charges and open reservations would pass it.
   */
  max_spend?: Amount | PeriodicSpend;
  limits?: Limits | undefined;
}
/**
 * A cap that resets each calendar period: what the requests admitted in the period were charged counts against it (a request is charged to the period it was admitted in). A refusal says when the period ends (x-gateway-budget-reset, retry-after).
 */
export interface PeriodicSpend {
  /**
   * A non-negative decimal amount of the currency (at most 9 decimal places), as a number or a string.
   */
  amount: number | string;
  /**
   * The calendar period: a day, a week (Monday first) or a month.
   */
  period: "day" | "week" | "month";
  /**
   * The IANA zone whose midnight starts a period (Europe/Berlin); UTC without one.
   */
  timezone?: string;
}
export interface Account {
  /**
   * The account, created in the store at start.
   */
  name: string;
  /**
   * Free text shown with the account.
   */
  description?: string;
  /**
   * Most all the account's keys together may spend: in all (a decimal in the currency), or per calendar period ({amount, period, timezone}); 402 max_spend_reached once their charges and open reservations would pass it, whatever the balance. Set here, it is gateway.yaml's to change (the admin API sets it on accounts made at run time).
   */
  max_spend?: Amount | PeriodicSpend;
  limits?: Limits | undefined;
  /**
   * The groups the account's console users may create keys in (a group sets the models, prices and limits). Without it, only the operator makes the account's keys.
   *
   * @maxItems 100
   */
  groups?: Name[];
}
/**
 * Prices, and how metered keys are charged (docs/money.md).
 */
export interface Pricing {
  /**
   * Shown next to amounts; amounts are never converted.
   */
  currency?: string;
  /**
   * Model name or glob to its prices; the first match wins, in file order (docs/money.md).
   */
  models?: {
    [k: string]: ModelPrice | undefined;
  };
  /**
   * Flat price per call, by operation name (a feature's priced operation, docs/api.md), times the group's multiplier: reserved before the call, charged when it succeeded.
   */
  calls?: {
    [k: string]: Amount;
  };
  /**
   * Output tokens reserved for a request that sets no output cap its API honours (Chat: max_completion_tokens / max_tokens; Messages: max_tokens; Responses: max_output_tokens). 0 reserves no output: such a request is sent without a cap and all its output is an overrun; keep it above 0 for metered keys.
   */
  default_output_reserve?: number;
  /**
   * Tell the caller what each priced request cost, as charged: a whole answer carries x-gateway-cost (a decimal in the currency), a stream's final usage event a cost field beside its usage (docs/money.md, The price where the client sees it). false keeps prices to the operator; a group's show_cost overrides it for its keys.
   */
  show_cost?: boolean;
  /**
   * A metered key calling a model with no price: refused with 403 model_not_priced, or served free.
   */
  unpriced?: "refuse" | "free";
  /**
   * How long balance held by an instance that stopped renewing it (killed) stays held before it is released.
   */
  reservation_timeout_ms?: number;
}
/**
 * Prices per 1M tokens of each kind, per image made, and per second of timed output made; a kind not given costs nothing, except cache_read and cache_write (the input price when not given), input_image (input) and output_image (output).
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
   * The endpoint this route is for: its path for a POST endpoint (/v1/chat/completions), else its method and path pattern (GET /v1/models/{id}). The allowed values come from the route registry (core/endpoints/model-routes.ts and features/<name>/index.ts), put in as an enum when the config is validated.
   */
  path: string;
  /**
   * The chain, in order. A model route needs exactly one terminal plugin, relay; a feature's route (the model list, /v1/me, and the other features' routes) answers with its own handler after the chain, which then lists middleware only (auth, rate-limit, quota, meter).
   *
   * @minItems 1
   */
  plugins: [PluginUse, ...PluginUse[]];
}
export interface PluginUse {
  /**
   * The plugin's name (its folder under plugins/).
   */
  use: string;
  /**
   * The plugin's options, checked against schemas/plugins/<name>.schema.json.
   */
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
   * Bindings kept in memory; the least recently used go first (restart to change).
   */
  max_entries?: number;
}
/**
 * Every channel's default `health` (docs/operations.md, Channel health).
 */
export interface Health1 {
  /**
   * Failures in the window that take the channel out; more than `window`: never.
   */
  errors?: number;
  /**
   * How many of the channel's last requests are counted.
   */
  window?: number;
  /**
   * How long a channel taken out waits for its first probe.
   */
  probe_after_ms?: number;
  /**
   * The longest wait between two probes (each failed probe doubles it).
   */
  probe_max_ms?: number;
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
/**
 * Logs: JSON lines on stderr (docs/operations.md, Logs).
 */
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
