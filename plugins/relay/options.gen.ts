// Generated from schemas/plugins/relay.schema.json by `npm run gen`; do not edit. Change the schema and regenerate.

/**
 * The with: block of the relay plugin: it takes none (the channels, their priorities, failover and translation come from gateway.yaml's channels).
 */
export interface RelayOptions {}
