// Generated from schemas/plugins/rate-limit.schema.json by `npm run gen`; do not edit. Change the schema and regenerate.

/**
 * The with: block of the rate-limit plugin. Without options it holds each request to gateway.yaml's limits (groups, keys, accounts).
 */
export interface RateLimitOptions {
  /**
   * This route's own limit instead: requests per minute each key may make on it, counted apart from the key's, its model's and its account's limits, which this route then neither checks nor uses up (count_tokens' default: 100, as Anthropic limits token counting apart from messages).
   */
  route_rpm?: number;
}
