// Generated from schemas/plugins/auth.schema.json by `npm run gen`; do not edit. Change the schema and regenerate.

/**
 * The with: block of the auth plugin.
 */
export interface AuthOptions {
  /**
   * What a caller must present. key: a gateway key (Authorization: Bearer or x-api-key), whose group must allow the request's model. admin_token: server.admin_token (Authorization: Bearer); without one set, the route answers 404.
   */
  credential?: "key" | "admin_token";
}
