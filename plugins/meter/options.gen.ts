// Generated from schemas/plugins/meter.schema.json by `npm run gen`; do not edit. Change the schema and regenerate.

/**
 * The with: block of the meter plugin. It takes no options yet.
 */
export interface MeterOptions {}
