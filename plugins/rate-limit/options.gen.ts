// Generated from schemas/plugins/rate-limit.schema.json by `npm run gen`; do not edit. Change the schema and regenerate.

/**
 * The with: block of the rate-limit plugin. It takes no options: limits are gateway.yaml's groups, keys and accounts limits.
 */
export interface RateLimitOptions {}
