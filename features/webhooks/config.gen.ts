// Generated from features/webhooks/config-schema.ts by `npm run gen`; do not edit. Change the schema and regenerate.

export interface WebhooksConfig {
  /**
   * Where events are sent (docs/operations.md, "Webhooks"): each a signed JSON POST ({id, type, time, data}), Standard Webhooks headers, retried with back-off until delivered, once per fleet; at most 20.
   */
  webhooks?: Webhook[];
}
export interface Webhook {
  /**
   * An https:// URL on a public address (the rules of the links callers send), checked again at each connection; allow_private lifts that.
   */
  url: string;
  /**
   * The events it is sent (docs/operations.md, "Webhooks", describes each).
   *
   * @minItems 1
   */
  events: [
    "balance_low" | "budget_reached" | "channel_down" | "channel_up" | "video_failed" | "key_expiring",
    ...("balance_low" | "budget_reached" | "channel_down" | "channel_up" | "video_failed" | "key_expiring")[]
  ];
  /**
   * The HMAC-SHA256 key of its webhook-signature header (use ${ENV}); a whsec_ prefix means base64 after it, as the Standard Webhooks libraries take it.
   */
  secret: string;
  /**
   * Allows an http:// URL and loopback, private and link-local addresses (a receiver inside the operator's network).
   */
  allow_private?: boolean;
  /**
   * balance_low: sent when an account's balance falls below this amount (default 1).
   */
  balance_below?: number | string;
  /**
   * key_expiring: sent once when a key expires within this many days.
   */
  key_expiring_days?: number;
}
