// Generated from schemas/plugins/console-session.schema.json by `npm run gen`; do not edit. Change the schema and regenerate.

/**
 * The with: block of the console-session plugin: the console route group's check before the body (core/endpoints/route-groups.ts sets it per route; the console's routes cannot be written in gateway.yaml).
 */
export interface ConsoleSessionOptions {
  /**
   * Who may call the route: `page`, anyone (the console's static pages: no session, no request schema); `open`, anyone, with a JSON body checked against its schema (sign-in, a password link); `user`, a signed-in user of any account, or the operator; `operator`, the operator only (an account's user is refused: 403 operator_only).
   */
  access?: "page" | "open" | "user" | "operator";
  /**
   * The route's request schema: its file under schemas/console/, without .request.schema.json (core/endpoints/route-groups.ts names it from the route's method and path). A route of the API has one; a page has none.
   */
  schema?: string;
}
