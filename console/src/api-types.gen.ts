// Generated from schemas/console/*.response.schema.json by `npm run gen`; do not edit. Change the schemas and regenerate.

/**
 * DELETE /console/api/keys/{id}, 200: the key, revoked (status revoked, revoked_at set).
 */
export type ConsoleKeyRevoked = ConsoleKey & {
  key?: never;
} & {
  status?: "revoked";
  revoked_at?: string;
};
/**
 * GET /console/api/topup/codes.csv (operator), 200: not JSON but text/csv (an attachment): a header row, then every code the filter matches, newest first, masked (the secrets were shown once, when made), each field as get-topup-codes' data has it (null empty), lines ended by CRLF. This schema is of the body as one string.
 */
export type ConsoleTopupCodesCsv = string;
/**
 * GET /console/api/usage.csv, 200: not JSON but text/csv (an attachment, usage-<from's day>.csv): a header row, then every record the filter matches, newest first, each field as get-usage's data rows have it (null empty; a text a spreadsheet would run as a formula prefixed with '), lines ended by CRLF. This schema is of the body as one string.
 */
export type ConsoleUsageCsv = string;
/**
 * GET /console/api/videos/{id}/content, 200: not JSON but the succeeded task's video/mp4 bytes as the upstream sends them (an attachment, <id>.mp4), relayed as they arrive. This schema is of the body read as one string: an MP4 opens with its ftyp box (a 4-byte size, then ftyp).
 */
export type ConsoleVideoContent = string;
/**
 * PATCH /console/api/accounts/{name} (operator), 200: the account, disabled or enabled.
 */
export type ConsoleAccountEdited = ConsoleAccount;
/**
 * PATCH /console/api/channel-control/{name}, 200: the channel as it now stands.
 */
export type ConsoleChannelOverrideSaved = ConsoleChannelControlRow;
/**
 * PATCH /console/api/keys/{id}, 200: the key as edited.
 */
export type ConsoleKeyEdited = ConsoleKey & {
  key?: never;
};
/**
 * PATCH /console/api/topup/batches/{id} (operator), 200: the batch as it now is.
 */
export type ConsoleTopupBatchEdited = ConsoleTopupBatch;
/**
 * PATCH /console/api/topup/codes/{id} (operator), 200: the code as it now is (a redeemed one stays redeemed).
 */
export type ConsoleTopupCodeEdited = ConsoleTopupCode;
/**
 * POST /console/api/accounts (operator), 201: the new account (balance 0).
 */
export type ConsoleAccountCreated = ConsoleAccount;
/**
 * POST /console/api/asset-groups/{id}/bind (operator), 200: the group as now bound to the key named.
 */
export type ConsoleAssetGroupBound = ConsoleAssetGroup & {
  bound?: true;
};
/**
 * POST /console/api/keys, 201: the new key as the list shows it, plus key, the secret, shown this once.
 */
export type ConsoleKeyCreated = ConsoleKey & {
  /**
   * The secret: shown once, never again.
   */
  key: string;
};

/**
 * Each console API route's answer, by its schema's name.
 */
export interface ConsoleApi {
  "delete-channel-control-name": ConsoleChannelOverrideCleared;
  "delete-keys-id": ConsoleKeyRevoked;
  "delete-session": ConsoleSignedOut;
  "delete-sessions-id": ConsoleSessionEnded;
  error: ConsoleError;
  "get-accounts-name-users": ConsoleAccountUserList;
  "get-accounts": ConsoleAccountList;
  "get-asset-groups": ConsoleAssetGroupList;
  "get-channel-control": ConsoleChannelControlList;
  "get-channels": ConsoleChannels;
  "get-config": ConsoleConfig;
  "get-dashboard": ConsoleDashboard;
  "get-instances": ConsoleInstances;
  "get-keys": ConsoleKeyList;
  "get-ledger-id-requests": ConsoleChargeRequests;
  "get-ledger": ConsoleLedgerPage;
  "get-prices": ConsolePriceList;
  "get-requests-id": ConsoleRequestDetail;
  "get-session": ConsoleSession;
  "get-sessions": ConsoleSessionList;
  "get-topup-batches": ConsoleTopupBatchList;
  "get-topup-codes-csv": ConsoleTopupCodesCsv;
  "get-topup-codes": ConsoleTopupCodeList;
  "get-usage-csv": ConsoleUsageCsv;
  "get-usage": ConsoleUsagePage;
  "get-videos-id-content": ConsoleVideoContent;
  "get-videos": ConsoleVideoTaskList;
  "patch-accounts-name-users-user": ConsoleAccountUserEdited;
  "patch-accounts-name": ConsoleAccountEdited;
  "patch-channel-control-name": ConsoleChannelOverrideSaved;
  "patch-keys-id": ConsoleKeyEdited;
  "patch-topup-batches-id": ConsoleTopupBatchEdited;
  "patch-topup-codes-id": ConsoleTopupCodeEdited;
  "post-accounts-name-adjust": ConsoleAdjustmentMade;
  "post-accounts-name-credit": ConsoleCredited;
  "post-accounts-name-debit": ConsoleDebitMade;
  "post-accounts-name-users": ConsoleUserMade;
  "post-accounts": ConsoleAccountCreated;
  "post-asset-groups-id-bind": ConsoleAssetGroupBound;
  "post-channel-control-name-rotation-reset": ConsoleChannelRotationResetDone;
  "post-config-reload": ConsoleReloaded;
  "post-keys": ConsoleKeyCreated;
  "post-password-change": ConsolePasswordChanged;
  "post-password": ConsolePasswordSet;
  "post-session": ConsoleSignedIn;
  "post-topup-batches": ConsoleTopupBatchMade;
  "post-topup-redeem": ConsoleTopupRedeemed;
}
/**
 * DELETE /console/api/channel-control/{name}, 200: the override is gone (cleared false: there was none); configured false for a name no longer in the config whose stored override was removed.
 */
export interface ConsoleChannelOverrideCleared {
  object: "channel_override";
  name: string;
  cleared: boolean;
  configured: boolean;
}
/**
 * A key as the console shows it: a run-time key (core/keys/key-admin.ts describeKey plus status, last use and spend, features/console/keys.ts), or one declared in gateway.yaml (declared: true, features/console/declared-keys.ts: read-only, id config:<name>, no creation time). Never the hash. account, max_spend and limits are ABSENT (not null) when the key has none; key (the secret) is only in the answer to a create, which each route's schema requires or forbids.
 */
export interface ConsoleKey {
  id: string;
  name: string;
  group: string;
  /**
   * The key's first characters (sk-AbCd), never enough to use it.
   */
  prefix: string;
  /**
   * null for a declared key (gateway.yaml has no creation time).
   */
  created_at: string | null;
  revoked_at: string | null;
  /**
   * The account that pays for it; absent for an unmetered key.
   */
  account?: string;
  /**
   * Its cap; absent when it has none.
   */
  max_spend?: string;
  limits?: ConsoleLimits;
  enabled: boolean;
  expires_at: string | null;
  /**
   * Names or globs within its group's; null: its group's.
   */
  models: string[] | null;
  /**
   * Addresses or CIDRs it may be used from; null: any.
   */
  ips: string[] | null;
  /**
   * Declared in gateway.yaml: changed there, never through this API (PATCH and DELETE answer 409 key_declared_in_config).
   */
  declared: boolean;
  status: "active" | "disabled" | "expired" | "revoked";
  last_used_at: string | null;
  /**
   * An amount of money, zero or more, as formatMoney writes it: no leading or trailing zeros, at most 9 decimal places ("0", "12.5").
   */
  spend: string;
  /**
   * null when the key has no cap; of the current period for a max_spend per period.
   */
  max_spend_left: string | null;
  /**
   * A max_spend per day, week or month (a declared or a run-time key's): the current period's spend and when it resets; absent for a lifetime cap.
   */
  max_spend_period?: {
    period: "day" | "week" | "month";
    timezone: string;
    /**
     * An amount of money, zero or more, as formatMoney writes it: no leading or trailing zeros, at most 9 decimal places ("0", "12.5").
     */
    spend: string;
    /**
     * A time in UTC as Date.toISOString writes it (2026-01-31T09:00:00.000Z).
     */
    resets_at: string;
  };
  /**
   * The secret, in the answer to a create only (shown once).
   */
  key?: string;
}
/**
 * Its own limits over its group's; absent when it has none.
 */
export interface ConsoleLimits {
  rpm?: number;
  tpm?: number;
  concurrency?: number;
  /**
   * Declared in gateway.yaml only: tokens per UTC day, or per day, week or month of a timezone.
   */
  tokens_per_day?:
    | number
    | {
        tokens: number;
        /**
         * absent: day
         */
        period?: "day" | "week" | "month";
        /**
         * absent: UTC
         */
        timezone?: string;
      };
}
/**
 * DELETE /console/api/session, 200: the session ended (its cookie is cleared with Max-Age=0).
 */
export interface ConsoleSignedOut {
  signed_out: true;
}
/**
 * DELETE /console/api/sessions/{id}, 200: one of the user's own sessions ended (its cookie opens nothing more). Another user's id is a 404.
 */
export interface ConsoleSessionEnded {
  id: string;
  ended: true;
}
/**
 * Every console API error (4xx, 5xx): OpenAI's shape, as core/formats/openai-chat/errors.ts writes it. code is the GatewayError's wire code (not_signed_in: go to the sign-in page); param names the request field at fault, or null.
 */
export interface ConsoleError {
  error: {
    message: string;
    type: "invalid_request_error" | "requests" | "tokens" | "insufficient_quota" | "server_error";
    param: string | null;
    code: string | null;
  };
}
/**
 * GET /console/api/accounts/{name}/users, 200: the account's console users, by name.
 */
export interface ConsoleAccountUserList {
  /**
   * OpenAI's marker of a list answer.
   */
  object: "list";
  data: ConsoleAccountUser[];
}
/**
 * An account's console user as the operator's list shows it: whether it may sign in, whether its password is set, and its live sessions.
 */
export interface ConsoleAccountUser {
  name: string;
  account: string;
  /**
   * A time in UTC as Date.toISOString writes it (2026-01-31T09:00:00.000Z).
   */
  created_at: string;
  /**
   * A disabled user cannot sign in; disabling ended their sessions.
   */
  disabled: boolean;
  /**
   * False until the user set a password through a link.
   */
  password_set: boolean;
  /**
   * Sessions open now.
   */
  sessions: number;
  /**
   * The last use of any open session (to the minute); null with none open.
   */
  last_seen_at: string | null;
}
/**
 * GET /console/api/accounts (operator), 200: every account with its balance.
 */
export interface ConsoleAccountList {
  /**
   * OpenAI's marker of a list answer.
   */
  object: "list";
  data: ConsoleAccount[];
}
/**
 * An account as the operator's pages show it: core/money/account-admin.ts describeAccount plus the groups the config gives it, and its max_spend over all its keys (core/money/period-spend.ts accountCapFields).
 */
export interface ConsoleAccount {
  name: string;
  description: string | null;
  /**
   * An amount that may be negative (a balance, a charge in the ledger), as formatMoney writes it.
   */
  balance: string;
  currency: string;
  /**
   * A time in UTC as Date.toISOString writes it (2026-01-31T09:00:00.000Z).
   */
  created_at: string;
  /**
   * Its keys are refused.
   */
  disabled: boolean;
  /**
   * The groups its users may make keys in: file_groups and console_groups together (features/console/account-groups.ts).
   */
  groups: string[];
  /**
   * From gateway.yaml's accounts[].groups: the console cannot remove them.
   */
  file_groups: string[];
  /**
   * Set by the operator in the console (PATCH {groups}).
   */
  console_groups: string[];
  /**
   * Most all its keys together may spend (gateway.yaml's for a declared account); null: no cap.
   */
  max_spend: string | null;
  /**
   * What is left of it (of the current period for a cap per period); null: no cap.
   */
  max_spend_left: string | null;
  /**
   * A max_spend per day, week or month: the current period's spend and when it resets; null for a lifetime cap or none.
   */
  max_spend_period: null | {
    period: "day" | "week" | "month";
    timezone: string;
    /**
     * An amount of money, zero or more, as formatMoney writes it: no leading or trailing zeros, at most 9 decimal places ("0", "12.5").
     */
    spend: string;
    /**
     * A time in UTC as Date.toISOString writes it (2026-01-31T09:00:00.000Z).
     */
    resets_at: string;
  };
}
/**
 * GET /console/api/asset-groups, 200: a page of at most 50 asset groups, newest first, with their newest assets: a user's account's groups; for the operator every account's (?account= narrows). total counts every group of that scope; offset is where this page starts.
 */
export interface ConsoleAssetGroupList {
  /**
   * OpenAI's marker of a list answer.
   */
  object: "list";
  /**
   * @maxItems 50
   */
  data: ConsoleAssetGroup[];
  total: number;
  offset: number;
}
/**
 * An asset group made through the gateway as the console shows it (features/assets/console-groups.ts): its owning key, whether it is bound to that key (false once the key was revoked, until the operator rebinds it), and its newest assets with their statuses.
 */
export interface ConsoleAssetGroup {
  id: string;
  /**
   * As named when made or last renamed through the gateway; may be empty.
   */
  name: string;
  /**
   * The channel whose library holds it.
   */
  channel: string;
  /**
   * The account of the key that made it; null for an unmetered key's.
   */
  account: string | null;
  /**
   * The key it belongs to (a declared key's id is config:<name>).
   */
  key: {
    id: string;
    /**
     * null when no key of the store or the config has that id any more.
     */
    name: string | null;
  };
  bound: boolean;
  /**
   * A time in UTC as Date.toISOString writes it (2026-01-31T09:00:00.000Z).
   */
  created_at: string;
  /**
   * The group's newest assets, newest first.
   *
   * @maxItems 50
   */
  assets: {
    id: string;
    asset_type: string;
    /**
     * The library's last word on it (Processing ones are read again when listed).
     */
    status: "Processing" | "Active" | "Failed";
    /**
     * A time in UTC as Date.toISOString writes it (2026-01-31T09:00:00.000Z).
     */
    created_at: string;
  }[];
}
/**
 * GET /console/api/channel-control, 200: every configured channel with its YAML values, override, cool-down and health over 5 and 60 minutes (from the usage records), and the stored overrides of names no longer configured.
 */
export interface ConsoleChannelControlList {
  /**
   * OpenAI's marker of a list answer.
   */
  object: "list";
  data: ConsoleChannelControlRow[];
  /**
   * Overrides stored for channels no longer in the config: ignored while the name is absent, in force again if it comes back; DELETE clears them.
   */
  orphans: {
    name: string;
    disabled: boolean;
    weight: number | null;
    updated_at: string;
    updated_by: string;
  }[];
}
/**
 * One configured channel: its YAML values, the operator's override beside them, what is in force, its cool-down, its rotation and its health.
 */
export interface ConsoleChannelControlRow {
  name: string;
  type: string;
  priority: number;
  yaml: {
    weight: number;
  };
  /**
   * null: the YAML values are in force.
   */
  override: null | {
    disabled: boolean;
    weight: number | null;
    updated_at: string;
    /**
     * the console user's name
     */
    updated_by: string;
  };
  effective: {
    enabled: boolean;
    weight: number;
  };
  /**
   * What is left of the channel's cool-down on the instance that answered (0: none).
   */
  cooling_ms: number;
  /**
   * The channel's rotation (gateway.yaml health), as the instance that answered knows it; with Redis every instance has the fleet's state.
   */
  health_state: {
    /**
     * in: in rotation; out: left out of every plan until its probe; probing: its one probe is in flight.
     */
    state: "in" | "out" | "probing";
    /**
     * When it is due for its probe (out only).
     */
    until: string | null;
    /**
     * Failures among its last `window` requests, as counted by the instance that answered: without Redis (or while Redis is out) only; with Redis the window is counted on Redis and this is 0.
     */
    failures: number;
    window: number;
  };
  /**
   * The list's figures; null in a change's answer (the page reads the list again).
   */
  health: null | {
    m5: Window;
    m60: Window;
  };
}
export interface Window {
  requests: number;
  /**
   * no answer, 408, 429 or 5xx
   */
  errors: number;
  error_rate: number | null;
  latency_p50_ms: number | null;
  latency_p99_ms: number | null;
  ttfb_p50_ms: number | null;
  ttfb_p99_ms: number | null;
  /**
   * How many of the window's records the percentiles read (the newest 10,000 of the hour at most). Counts and the error rate are exact.
   */
  percentile_sample: number;
  /**
   * true when the window held more records than were read: the percentiles are of the newest percentile_sample.
   */
  percentiles_sampled: boolean;
}
/**
 * GET /console/api/channels (operator), 200: each channel of the running config with its health: cooling down and for how long; on this instance, requests in flight and the last hour's upstream attempts with the failed ones; fleet-wide since the start of the previous clock hour (since), the requests it answered, their errors, error rate and mean latency.
 */
export interface ConsoleChannels {
  /**
   * OpenAI's marker of a list answer.
   */
  object: "list";
  /**
   * A time in UTC as Date.toISOString writes it (2026-01-31T09:00:00.000Z).
   */
  since: string;
  data: {
    name: string;
    /**
     * The channel type (openai, anthropic, mock, ...).
     */
    type: string;
    priority: number;
    /**
     * Its patterns, then its aliases.
     */
    models: string[];
    cooling: boolean;
    /**
     * 0 unless cooling.
     */
    cooldown_left_ms: number;
    in_flight: number;
    last_hour: {
      requests: number;
      errors: number;
      error_rate: number;
      /**
       * null without requests.
       */
      avg_latency_ms: number | null;
    };
    /**
     * This instance's upstream attempts over the last window_minutes, failed ones included even when another channel then served the request.
     */
    attempts: {
      window_minutes: number;
      attempts: number;
      failures: number;
      failure_rate: number;
    };
  }[];
}
/**
 * GET /console/api/config (operator), 200: the running config file's path and text, secrets redacted; both null when the gateway was not started from a file.
 */
export interface ConsoleConfig {
  path: string | null;
  yaml: string | null;
}
/**
 * GET /console/api/dashboard, 200: an account's balance, spend today and this month (UTC), and its usage over the range in hourly or daily buckets (every bucket present, empty ones zero), by model and by key (biggest cost first), from the hourly sums. account and balance are null for an operator's view of all accounts.
 */
export interface ConsoleDashboard {
  account: string | null;
  currency: string;
  balance: string | null;
  /**
   * An amount of money, zero or more, as formatMoney writes it: no leading or trailing zeros, at most 9 decimal places ("0", "12.5").
   */
  spend_today: string;
  /**
   * An amount of money, zero or more, as formatMoney writes it: no leading or trailing zeros, at most 9 decimal places ("0", "12.5").
   */
  spend_month: string;
  /**
   * The range asked, widened to whole buckets (to excluded).
   */
  range: {
    /**
     * A time in UTC as Date.toISOString writes it (2026-01-31T09:00:00.000Z).
     */
    from: string;
    /**
     * A time in UTC as Date.toISOString writes it (2026-01-31T09:00:00.000Z).
     */
    to: string;
    bucket: "hour" | "day";
  };
  totals: {
    requests: number;
    errors: number;
    input_tokens: number;
    output_tokens: number;
    cached_tokens: number;
    reasoning_tokens: number;
    images: number;
    /**
     * An amount of money, zero or more, as formatMoney writes it: no leading or trailing zeros, at most 9 decimal places ("0", "12.5").
     */
    cost: string;
  };
  series: {
    /**
     * A time in UTC as Date.toISOString writes it (2026-01-31T09:00:00.000Z).
     */
    t: string;
    requests: number;
    errors: number;
    input_tokens: number;
    output_tokens: number;
    cached_tokens: number;
    reasoning_tokens: number;
    images: number;
    /**
     * An amount of money, zero or more, as formatMoney writes it: no leading or trailing zeros, at most 9 decimal places ("0", "12.5").
     */
    cost: string;
  }[];
  by_model: {
    model: string;
    requests: number;
    errors: number;
    input_tokens: number;
    output_tokens: number;
    cached_tokens: number;
    reasoning_tokens: number;
    images: number;
    /**
     * An amount of money, zero or more, as formatMoney writes it: no leading or trailing zeros, at most 9 decimal places ("0", "12.5").
     */
    cost: string;
  }[];
  by_key: {
    /**
     * A run-time key's id, or config:<name> for a key declared in gateway.yaml.
     */
    key_id: string;
    /**
     * null for a key deleted since.
     */
    name: string | null;
    requests: number;
    errors: number;
    input_tokens: number;
    output_tokens: number;
    cached_tokens: number;
    reasoning_tokens: number;
    images: number;
    /**
     * An amount of money, zero or more, as formatMoney writes it: no leading or trailing zeros, at most 9 decimal places ("0", "12.5").
     */
    cost: string;
  }[];
  /**
   * The charts split: the five biggest by cost, each a series aligned with series, and the rest summed as "other".
   */
  split: {
    /**
     * @maxItems 6
     */
    by_model: {
      name: string;
      /**
       * Per bucket of series.
       */
      cost: string[];
      /**
       * Input plus output tokens, per bucket of series.
       */
      tokens: number[];
    }[];
    /**
     * @maxItems 6
     */
    by_key: {
      key_id: string;
      name: string | null;
      /**
       * Per bucket of series.
       */
      cost: string[];
      /**
       * Input plus output tokens, per bucket of series.
       */
      tokens: number[];
    }[];
  };
}
/**
 * GET /console/api/instances (operator), 200: the gateway instances alive (through Redis; without it, this one), the one answering marked self.
 */
export interface ConsoleInstances {
  /**
   * OpenAI's marker of a list answer.
   */
  object: "list";
  /**
   * @minItems 1
   */
  data: [
    {
      id: string;
      self: boolean;
    },
    ...{
      id: string;
      self: boolean;
    }[]
  ];
}
/**
 * GET /console/api/keys, 200: a user's account's keys; for the operator every key (?account= narrows): the run-time ones, then those declared in gateway.yaml (declared: true). Never the secret.
 */
export interface ConsoleKeyList {
  /**
   * OpenAI's marker of a list answer.
   */
  object: "list";
  data: (ConsoleKey & {
    key?: never;
  })[];
}
/**
 * GET /console/api/ledger/{id}/requests, 200: the requests a ledger charge covers, in the order written (none for a credit, refund or adjustment), and the cursor of the next page (null on the last).
 */
export interface ConsoleChargeRequests {
  /**
   * OpenAI's marker of a list answer.
   */
  object: "list";
  ledger_id: number;
  currency: string;
  /**
   * @maxItems 200
   */
  data: {
    request_id: string;
    /**
     * A time in UTC as Date.toISOString writes it (2026-01-31T09:00:00.000Z).
     */
    time: string;
    key_name: string;
    model: string;
    status: number;
    cost: string | null;
  }[];
  next_cursor: string | null;
}
/**
 * GET /console/api/ledger, 200: a page of one account's ledger, newest first (features/console/ledger.ts), and the cursor of the next page (the last entry's id as text; null on the last page).
 */
export interface ConsoleLedgerPage {
  /**
   * OpenAI's marker of a list answer.
   */
  object: "list";
  account: string;
  currency: string;
  /**
   * @maxItems 200
   */
  data: (ConsoleLedgerEntry & {})[];
  next_cursor: string | null;
}
/**
 * One entry of an account's ledger: core/money/account-admin.ts describeEntry. The ledger page adds the account; the answer to a credit does not (each route's schema requires or forbids it).
 */
export interface ConsoleLedgerEntry {
  /**
   * A number, not a string (the ledger's next_cursor is its text).
   */
  id: number;
  account?: string;
  kind: "credit" | "charge" | "refund" | "adjustment";
  /**
   * An amount that may be negative (a balance, a charge in the ledger), as formatMoney writes it.
   */
  amount: string;
  request_id: string | null;
  key_id: string | null;
  note: string | null;
  /**
   * A time in UTC as Date.toISOString writes it (2026-01-31T09:00:00.000Z).
   */
  created_at: string;
}
/**
 * GET /console/api/prices, 200: per group the account's keys may use (features/prices/price-list.ts), the models its keys may call with their prices per unit, the group's multiplier applied, and the flat-priced calls (pricing.calls). The current config's prices.
 */
export interface ConsolePriceList {
  /**
   * OpenAI's marker of a list answer.
   */
  object: "list";
  /**
   * null: the operator's view of every group.
   */
  account: string | null;
  currency: string;
  /**
   * What a metered key's call of a model without a price gets (pricing.unpriced).
   */
  unpriced: "refuse" | "free";
  /**
   * @maxItems 1000
   */
  data: {
    name: string;
    /**
     * An amount of money, zero or more, as formatMoney writes it: no leading or trailing zeros, at most 9 decimal places ("0", "12.5").
     */
    multiplier: string;
    models: {
      model: string;
      /**
       * null: no price (pricing.unpriced says whether it is refused or free).
       */
      price: ConsolePriceSheet | null;
    }[];
    calls: {
      operation: string;
      /**
       * An amount of money, zero or more, as formatMoney writes it: no leading or trailing zeros, at most 9 decimal places ("0", "12.5").
       */
      per_call: string;
    }[];
  }[];
}
/**
 * A model's prices in the currency, a group's multiplier applied (core/money/price-sheet.ts): tokens per million, an image, a second of timed output.
 */
export interface ConsolePriceSheet {
  /**
   * An amount of money, zero or more, as formatMoney writes it: no leading or trailing zeros, at most 9 decimal places ("0", "12.5").
   */
  input_per_million: string;
  /**
   * An amount of money, zero or more, as formatMoney writes it: no leading or trailing zeros, at most 9 decimal places ("0", "12.5").
   */
  output_per_million: string;
  /**
   * An amount of money, zero or more, as formatMoney writes it: no leading or trailing zeros, at most 9 decimal places ("0", "12.5").
   */
  cache_read_per_million: string;
  /**
   * An amount of money, zero or more, as formatMoney writes it: no leading or trailing zeros, at most 9 decimal places ("0", "12.5").
   */
  cache_write_per_million: string;
  /**
   * An amount of money, zero or more, as formatMoney writes it: no leading or trailing zeros, at most 9 decimal places ("0", "12.5").
   */
  per_image: string;
  /**
   * An amount of money, zero or more, as formatMoney writes it: no leading or trailing zeros, at most 9 decimal places ("0", "12.5").
   */
  per_second: string;
}
/**
 * GET /console/api/requests/{id}, 200: one request as its usage record tells it (features/requests/request-detail.ts): its route, models, key (never the secret), account, channel and attempts, times, tokens, the prices it was charged at (its price version, its group's multiplier applied), its cost and the ledger charge that covers it.
 */
export interface ConsoleRequestDetail {
  request_id: string;
  /**
   * A time in UTC as Date.toISOString writes it (2026-01-31T09:00:00.000Z).
   */
  time: string;
  route: string;
  /**
   * The model asked (or a flat-priced call's operation).
   */
  model: string;
  /**
   * The model served (the channel's name of it); null when no channel was reached.
   */
  upstream_model: string | null;
  key: {
    id: string;
    name: string;
  };
  account: string | null;
  group: string;
  /**
   * The channel that served it (the last tried); null when none was reached.
   */
  channel: string | null;
  /**
   * @maxItems 100
   */
  attempts: ConsoleRequestAttempt[];
  status: number;
  error_code: string | null;
  /**
   * The error message its client got; null when none, or for records written before it was kept.
   */
  error_message: string | null;
  stream: boolean;
  aborted: boolean;
  ttft_ms: number | null;
  latency_ms: number;
  tokens: {
    input: number;
    output: number;
    cache_read: number;
    cache_write: number;
    reasoning: number;
    images: number;
    seconds: number;
    /**
     * The output tokens were estimated (a stream cut before the upstream told them).
     */
    estimated: boolean;
  };
  currency: string;
  /**
   * null when no price applied.
   */
  price: null | {
    /**
     * The price version the cost was computed with.
     */
    version: string;
    /**
     * An amount of money, zero or more, as formatMoney writes it: no leading or trailing zeros, at most 9 decimal places ("0", "12.5").
     */
    multiplier: string;
    /**
     * A flat-priced call's price (multiplier applied); null for a model's.
     */
    per_call: string | null;
    /**
     * The model's prices (multiplier applied); null for a call, or a model the version did not price.
     */
    per_unit: ConsolePriceSheet | null;
  };
  /**
   * null when no price applied.
   */
  cost: string | null;
  /**
   * The ledger charge that covers this request (with the others of its batch billed to the same account: its note counts them); null when nothing was charged, or for records written before the link was kept.
   */
  charge: ConsoleLedgerEntry | null;
  /**
   * What the request made or acted on, as its route named it (a task it started, a thing it stored); null for most requests.
   */
  made: {
    /**
     * What it is: the route's word for it.
     */
    kind: string;
    id: string;
    /**
     * It has a usage record of its own (a task's, written at its end with the task's id as request id) that this reader may open.
     */
    record: boolean;
  } | null;
}
/**
 * One upstream attempt of a request, in the order tried (the relay's trace, recorded when there was more than one or one failed).
 */
export interface ConsoleRequestAttempt {
  channel: string;
  /**
   * The upstream's HTTP status; null when none came (a connect error, a timeout).
   */
  status: number | null;
  /**
   * Why it failed (timeout, connect, status_503, untranslatable, or the request's error code); null for the attempt that answered.
   */
  error: string | null;
  /**
   * From the call to its answer's headers or its failure; null when not recorded apart from the request's.
   */
  latency_ms: number | null;
}
/**
 * GET /console/api/session, 200: who is signed in, the session's CSRF token, and the groups this user may create keys in (an account's groups; every group for an operator), with their models and limits, and the currency every amount is in.
 */
export interface ConsoleSession {
  user: ConsoleUser;
  csrf: string;
  /**
   * The gateway's money unit (pricing.currency): an ISO 4217 code such as USD, or a name such as credits.
   */
  currency: string;
  groups: {
    name: string;
    /**
     * Model names or globs.
     */
    models: string[];
    limits: ConsoleLimits1;
  }[];
}
/**
 * A console user as the answers show it: an account's user, or an operator (account null).
 */
export interface ConsoleUser {
  name: string;
  /**
   * The account the user reaches; null for an operator.
   */
  account: string | null;
  /**
   * True exactly when account is null.
   */
  operator: boolean;
}
/**
 * {} when the group has none.
 */
export interface ConsoleLimits1 {
  rpm?: number;
  tpm?: number;
  concurrency?: number;
  /**
   * Declared in gateway.yaml only: tokens per UTC day, or per day, week or month of a timezone.
   */
  tokens_per_day?:
    | number
    | {
        tokens: number;
        /**
         * absent: day
         */
        period?: "day" | "week" | "month";
        /**
         * absent: UTC
         */
        timezone?: string;
      };
}
/**
 * GET /console/api/sessions, 200: the signed-in user's own open sessions, newest first; the one asking is marked current.
 */
export interface ConsoleSessionList {
  /**
   * OpenAI's marker of a list answer.
   */
  object: "list";
  data: {
    /**
     * What DELETE /console/api/sessions/{id} names it by (never the cookie's token).
     */
    id: string;
    /**
     * The session this call came with.
     */
    current: boolean;
    /**
     * A time in UTC as Date.toISOString writes it (2026-01-31T09:00:00.000Z).
     */
    created_at: string;
    /**
     * A time in UTC as Date.toISOString writes it (2026-01-31T09:00:00.000Z).
     */
    last_seen_at: string;
    /**
     * A time in UTC as Date.toISOString writes it (2026-01-31T09:00:00.000Z).
     */
    expires_at: string;
    /**
     * The address it signed in from (null for a session from before addresses were kept).
     */
    address: string | null;
    /**
     * The browser's User-Agent at sign-in, cut to 256 characters.
     */
    user_agent: string | null;
  }[];
}
/**
 * GET /console/api/topup/batches (operator), 200: a page of at most 50 batches, newest first; total counts them all.
 */
export interface ConsoleTopupBatchList {
  /**
   * OpenAI's marker of a list answer.
   */
  object: "list";
  /**
   * @maxItems 50
   */
  data: ConsoleTopupBatch[];
  total: number;
  offset: number;
}
/**
 * A batch of top-up codes as the console shows it (features/topup/shown.ts shownBatch): what each code credits, how many were made and redeemed, and whether the batch is disabled or expired.
 */
export interface ConsoleTopupBatch {
  id: string;
  /**
   * An amount of money, zero or more, as formatMoney writes it: no leading or trailing zeros, at most 9 decimal places ("0", "12.5").
   */
  amount: string;
  currency: string;
  count: number;
  redeemed: number;
  /**
   * Unredeemed codes disabled one by one (a disabled batch refuses all of its codes, whatever this says).
   */
  disabled_codes: number;
  note: string | null;
  status: "active" | "disabled" | "expired";
  /**
   * A time in UTC as Date.toISOString writes it (2026-01-31T09:00:00.000Z).
   */
  created_at: string;
  /**
   * From then on its codes are refused; null: never.
   */
  expires_at: string | null;
  disabled_at: string | null;
}
/**
 * GET /console/api/topup/codes (operator), 200: a page of at most 100 codes the filter matches, newest first, masked; total counts every code it matches.
 */
export interface ConsoleTopupCodeList {
  /**
   * OpenAI's marker of a list answer.
   */
  object: "list";
  /**
   * @maxItems 100
   */
  data: ConsoleTopupCode[];
  total: number;
  offset: number;
}
/**
 * A top-up code as the console shows it after it was made (features/topup/shown.ts shownCode): by its id and masked form (its last four characters), never its secret; once redeemed, who redeemed it, when, into which account, with which ledger entry.
 */
export interface ConsoleTopupCode {
  id: string;
  batch: string;
  masked: string;
  /**
   * An amount of money, zero or more, as formatMoney writes it: no leading or trailing zeros, at most 9 decimal places ("0", "12.5").
   */
  amount: string;
  currency: string;
  /**
   * redeemed first, then disabled (the code or its batch), then expired.
   */
  status: "active" | "redeemed" | "disabled" | "expired";
  /**
   * A time in UTC as Date.toISOString writes it (2026-01-31T09:00:00.000Z).
   */
  created_at: string;
  expires_at: string | null;
  disabled_at: string | null;
  redeemed_at: string | null;
  /**
   * The console user who redeemed it.
   */
  redeemed_by: string | null;
  /**
   * The account it credited.
   */
  account: string | null;
  ledger_entry_id: number | null;
}
/**
 * GET /console/api/usage, 200: a page of the usage log, newest first (features/console/usage.ts describeRecord), the totals of everything the filter matches (every page, not this one), and the cursor of the next page (null on the last).
 */
export interface ConsoleUsagePage {
  /**
   * OpenAI's marker of a list answer.
   */
  object: "list";
  /**
   * @maxItems 200
   */
  data: {
    request_id: string;
    /**
     * A time in UTC as Date.toISOString writes it (2026-01-31T09:00:00.000Z).
     */
    time: string;
    /**
     * The account charged; null for an unmetered key.
     */
    account: string | null;
    key_id: string;
    key_name: string;
    /**
     * The route key (/v1/chat/completions, GET /v1/models).
     */
    route: string;
    model: string;
    /**
     * null when no channel was reached.
     */
    channel: string | null;
    /**
     * The HTTP status the client got (499: it went away).
     */
    status: number;
    error_code: string | null;
    stream: boolean;
    input_tokens: number;
    cached_tokens: number;
    cache_write_tokens: number;
    output_tokens: number;
    reasoning_tokens: number;
    images: number;
    /**
     * null when no price applied.
     */
    cost: string | null;
    latency_ms: number;
    /**
     * Time to the first byte of the answer; null when none was sent.
     */
    ttft_ms: number | null;
  }[];
  totals: {
    requests: number;
    errors: number;
    input_tokens: number;
    cached_tokens: number;
    cache_write_tokens: number;
    output_tokens: number;
    reasoning_tokens: number;
    images: number;
    /**
     * An amount of money, zero or more, as formatMoney writes it: no leading or trailing zeros, at most 9 decimal places ("0", "12.5").
     */
    cost: string;
  };
  /**
   * Ask again with cursor=next_cursor (same filters) for the next page.
   */
  next_cursor: string | null;
}
/**
 * GET /console/api/videos, 200: a page of at most 50 of an account's video tasks, newest first (a user's own account; the operator's ?account=). total counts every task of that account (of that key with ?key=); offset is where this page starts; currency is the pricing's, for cost and reserved.
 */
export interface ConsoleVideoTaskList {
  /**
   * OpenAI's marker of a list answer.
   */
  object: "list";
  account: string;
  currency: string;
  /**
   * @maxItems 50
   */
  data: ConsoleVideoTask[];
  total: number;
  offset: number;
}
/**
 * A video task as the console shows it (features/video/console-videos.ts): the gateway's own id and status (never the upstream's task id nor its result URL), its key, its money, and once it succeeded the console's download path.
 */
export interface ConsoleVideoTask {
  /**
   * The id the video API answers with (video_... or task_...).
   */
  id: string;
  /**
   * The account billed.
   */
  account: string | null;
  /**
   * The key that made it (a declared key's id is config:<name>), named as it was then.
   */
  key: {
    id: string;
    name: string;
  };
  /**
   * The model the client asked for.
   */
  model: string;
  /**
   * The channel that runs it.
   */
  channel: string;
  /**
   * The task's own status: submitting until the upstream took it, then Ark's; the last four are final.
   */
  status: "submitting" | "queued" | "running" | "succeeded" | "failed" | "cancelled" | "expired";
  progress: number;
  /**
   * The prompt's start: at most 200 characters (code points), ending with … when cut.
   */
  prompt: string | null;
  /**
   * A time in UTC as Date.toISOString writes it (2026-01-31T09:00:00.000Z).
   */
  created_at: string;
  /**
   * When it reached a final status; null before.
   */
  completed_at: string | null;
  /**
   * Seconds of video asked for, or made once known (-1: Ark's auto).
   */
  seconds: number | null;
  /**
   * WIDTHxHEIGHT or a resolution (720p), as asked.
   */
  size: string | null;
  /**
   * An amount of money, zero or more, as formatMoney writes it: no leading or trailing zeros, at most 9 decimal places ("0", "12.5").
   */
  reserved: string;
  /**
   * What it was charged once settled (0 when it did not succeed); null until then.
   */
  cost: string | null;
  /**
   * Why a failed, cancelled or expired task made no video (the upstream's code and message for a failure); null otherwise.
   */
  error: {
    code: string;
    message: string;
  } | null;
  /**
   * The console's download path once it succeeded (GET /console/api/videos/{id}/content); null otherwise.
   */
  download: string | null;
}
/**
 * PATCH /console/api/accounts/{name}/users/{user}, 200: the user as it is now.
 */
export interface ConsoleAccountUserEdited {
  name: string;
  account: string;
  /**
   * A time in UTC as Date.toISOString writes it (2026-01-31T09:00:00.000Z).
   */
  created_at: string;
  /**
   * A disabled user cannot sign in; disabling ended their sessions.
   */
  disabled: boolean;
  /**
   * False until the user set a password through a link.
   */
  password_set: boolean;
  /**
   * Sessions open now.
   */
  sessions: number;
  /**
   * The last use of any open session (to the minute); null with none open.
   */
  last_seen_at: string | null;
}
/**
 * POST /console/api/accounts/{name}/adjust (operator): 201 with the new entry (kind adjustment), or 200 with applied false and the first entry when this idempotency_key was used already (nothing applied twice); the account as it now is.
 */
export interface ConsoleAdjustmentMade {
  account: ConsoleAccount;
  entry: ConsoleLedgerEntry & {
    account?: never;
  };
  applied: boolean;
}
/**
 * POST /console/api/accounts/{name}/credit (operator): 201 with the new entry, or 200 with applied false and the first entry when this idempotency_key had credited already (nothing added twice); the account as it now is. The entry has no account field here (the ledger page's entries do).
 */
export interface ConsoleCredited {
  account: ConsoleAccount;
  entry: ConsoleLedgerEntry & {
    account?: never;
  };
  applied: boolean;
}
/**
 * POST /console/api/accounts/{name}/debit (operator): 201 with the new entry (kind adjustment), or 200 with applied false and the first entry when this idempotency_key was used already (nothing applied twice); the account as it now is.
 */
export interface ConsoleDebitMade {
  account: ConsoleAccount;
  entry: ConsoleLedgerEntry & {
    account?: never;
  };
  applied: boolean;
}
/**
 * POST /console/api/accounts/{name}/users, 201: the account's new user (core/console/users.ts) and the one-time link that sets its password, shown once (relative to the gateway's URL).
 */
export interface ConsoleUserMade {
  user: ConsoleUser;
  link: string;
  /**
   * A time in UTC as Date.toISOString writes it (2026-01-31T09:00:00.000Z).
   */
  link_expires_at: string;
}
/**
 * POST /console/api/channel-control/{name}/rotation/reset, 200: the channel is in rotation; was_out false when it was in already (nothing changed, nothing told).
 */
export interface ConsoleChannelRotationResetDone {
  object: "channel_rotation_reset";
  name: string;
  was_out: boolean;
  /**
   * true: told to every instance through Redis; false: this instance's rotation only (no Redis, or Redis out).
   */
  fleet: boolean;
}
/**
 * POST /console/api/config/reload (operator), 200: whether this instance now runs the file (false: the file was rejected and the previous config stays; the log names the problems), and a sentence saying so.
 */
export interface ConsoleReloaded {
  reloaded: boolean;
  message: string;
}
/**
 * POST /console/api/password/change, 200: the password is changed, and how many other sessions ended.
 */
export interface ConsolePasswordChanged {
  changed: true;
  sessions_ended: number;
}
/**
 * POST /console/api/password, 200: the link's user, whose password is now set (the link is used up, the user's sessions ended); sign in next.
 */
export interface ConsolePasswordSet {
  user: ConsoleUser;
}
/**
 * POST /console/api/session, 200: the user signed in and the session's CSRF token, which every later call that changes something carries in x-csrf-token. The session itself is the HttpOnly cookie gw_console (Set-Cookie), never in the body.
 */
export interface ConsoleSignedIn {
  user: ConsoleUser;
  csrf: string;
}
/**
 * POST /console/api/topup/batches (operator): 201 with the batch and every code's secret, shown this once (the store keeps only their digests); or 200, applied false and no codes when this idempotency_key had made the batch already.
 */
export interface ConsoleTopupBatchMade {
  batch: ConsoleTopupBatch;
  /**
   * @maxItems 1000
   */
  codes: {
    id: string;
    /**
     * The secret: 26 Crockford base32 characters (130 random bits).
     */
    code: string;
    masked: string;
  }[];
  applied: boolean;
}
/**
 * POST /console/api/topup/redeem, 200: the code as now redeemed (masked), the ledger credit it made (its note names the code's id, masked form and batch) and the account's balance after it.
 */
export interface ConsoleTopupRedeemed {
  code: ConsoleTopupCode;
  entry: ConsoleLedgerEntry & {
    account?: never;
  };
  account: {
    name: string;
    /**
     * An amount that may be negative (a balance, a charge in the ledger), as formatMoney writes it.
     */
    balance: string;
    currency: string;
  };
}
