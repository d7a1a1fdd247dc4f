// Generated from schemas/plugins/auth.schema.json by `npm run gen`; do not edit. Change the schema and regenerate.

/**
 * The with: block of the auth plugin. It takes no options yet.
 */
export interface AuthOptions {}
