// Generated from schemas/plugins/quota.schema.json by `npm run gen`; do not edit. Change the schema and regenerate.

/**
 * The with: block of the quota plugin: it takes none (prices, accounts and caps are gateway.yaml's pricing, accounts and keys).
 */
export interface QuotaOptions {}
