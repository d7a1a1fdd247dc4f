// Generated from schemas/plugins/billing.schema.json by `npm run gen`; do not edit. Change the schema and regenerate.

/**
 * The with: block of the billing plugin (GET /v1/me and the legacy /v1/dashboard/billing/* routes). It takes no options yet.
 */
export interface BillingOptions {}
