// Generated from schemas/plugins/asset-store.schema.json by `npm run gen`; do not edit. Change the schema and regenerate.

/**
 * The with: block of the asset-store plugin (POST /v1/videogen/asset/{action}): the asset library's actions, each key seeing only the groups and assets it owns. It takes no options yet.
 */
export interface AssetStoreOptions {}
