// What every page reaches through context: the API client, the session, the operator's chosen account, the
// banners, and navigation that can carry a notice to the next page.

import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { Api } from './api.js';
import type { Session } from './api-types.js';

export interface Notify {
  /** Shows the error's own message (the server's, for an API error); a signed-out answer shows nothing. */
  error(err: unknown): void;
  notice(text: string): void;
  clear(): void;
}

/**
 * The page's loads that failed (use-load.ts reports each, and its recovery): the banner offers a Retry that runs them
 * again, and the tables show no "nothing here" text meanwhile (they do not know that).
 */
export interface LoadFailures {
  readonly failed: boolean;
  /** `retry` runs the failed load again; null: it loaded (or is gone). `from` is the load's own token. */
  report(from: object, retry: (() => void) | null): void;
}

export interface ConsoleApp {
  readonly api: Api;
  /** Null when nobody is signed in. */
  readonly session: Session | null;
  /** Reads the session again (after signing in); null when there is none. */
  loadSession(): Promise<Session | null>;
  signOut(): Promise<void>;
  /** The account an operator narrowed the pages to; '' for all accounts. A user's own account is implied. */
  readonly account: string;
  setAccount(name: string): void;
  readonly notify: Notify;
  readonly loads: LoadFailures;
  /** Goes to a hash route, showing `notice` there. */
  go(path: string, notice?: string): void;
}

export const AppContext = createContext<ConsoleApp | null>(null);

export function useApp(): ConsoleApp {
  const app = useContext(AppContext);
  if (app === null) throw new Error('useApp() outside <AppContext.Provider>');
  return app;
}

/** The ?account= a page's API calls carry: the operator's choice; never for a user (the server implies theirs). */
export function accountQuery(app: ConsoleApp): { account?: string } {
  return app.session?.user.operator === true && app.account !== '' ? { account: app.account } : {};
}
