// Generated from schemas/plugins/auth.schema.json by `npm run gen`; do not edit. Change the schema and regenerate.

/**
 * The with: block of the auth plugin.
 */
export interface AuthOptions {
  /**
   * What a caller must present. key: a gateway key (Authorization: Bearer or x-api-key), whose group must allow the request's model. admin_token: server.admin_token (Authorization: Bearer); without one set, the route answers 404.
   */
  credential?: "key" | "admin_token";
  /**
   * A query parameter a gateway key may also come in when no header names one (the Gemini routes take Google's ?key=). The gateway never forwards it upstream, logs it nor stores it; prefer a header, which proxies do not log.
   */
  query_key?: string;
}
