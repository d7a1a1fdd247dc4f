// Generated from schemas/plugins/relay.schema.json by `npm run gen`; do not edit. Change the schema and regenerate.

/**
 * The with: block of the relay plugin. It takes no options yet.
 */
export interface RelayOptions {}
