// Generated from schemas/plugins/admin.schema.json by `npm run gen`; do not edit. Change the schema and regenerate.

/**
 * The with: block of the admin plugin. It takes no options yet.
 */
export interface AdminOptions {}
