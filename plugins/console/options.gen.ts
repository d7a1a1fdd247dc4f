// Generated from schemas/plugins/console.schema.json by `npm run gen`; do not edit. Change the schema and regenerate.

/**
 * The with: block of the console plugin (the web console's API under /console/api). It takes no options yet.
 */
export interface ConsoleOptions {}
