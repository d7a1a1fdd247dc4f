// Generated from schemas/plugins/models.schema.json by `npm run gen`; do not edit. Change the schema and regenerate.

/**
 * The with: block of the models plugin. It takes no options yet.
 */
export interface ModelsOptions {}
