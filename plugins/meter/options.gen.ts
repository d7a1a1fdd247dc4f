// Generated from schemas/plugins/meter.schema.json by `npm run gen`; do not edit. Change the schema and regenerate.

/**
 * The with: block of the meter plugin: it takes none (every request past it gets its usage record and its metrics; what is recorded is not a choice of the route).
 */
export interface MeterOptions {}
