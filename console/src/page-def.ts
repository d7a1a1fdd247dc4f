// What a page is to the app: a hash path, a title for the nav, who may see it, and its view.

import type { FunctionComponent } from 'preact';

/**
 * 'any': anyone, signed in or not (sign-in, password links), never in the nav; 'user': anyone signed in, operators
 * included (their pages then show an account selector); 'operator': operators only, in the nav's operator row.
 */
export type Who = 'any' | 'user' | 'operator';

export interface PageProps {
  /** The path's `:name` parts ("/password/:token" gives token). */
  readonly params: Readonly<Record<string, string>>;
  /** The hash's query ("#/sign-in?next=/usage" gives next). */
  readonly query: URLSearchParams;
}

export interface PageDef {
  /** "/tokens", or with parameters "/password/:token" (never in the nav). */
  readonly path: string;
  readonly title: string;
  readonly who: Who;
  readonly view: FunctionComponent<PageProps>;
  /** false: not in the nav (reached another way: the user's own settings, from their name). */
  readonly nav?: boolean;
}
