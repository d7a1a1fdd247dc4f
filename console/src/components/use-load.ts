// A page's data load: `ready` false while loading (the page root's data-ready, which browser tests wait for), the
// last answer kept, errors to the banner with a Retry (the app's load failures), and answers to superseded loads
// dropped (a slow old filter never wins).

import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { useApp } from '../app-context.js';

export interface Loaded<T> {
  readonly data: T | undefined;
  readonly ready: boolean;
  /** Completed loads so far (the page root's data-loads): a test can wait for the next quiet refresh. */
  readonly loads: number;
  /** The last load (not a background refresh) failed: there is nothing to show, and the banner offers a Retry. */
  readonly failed: boolean;
  /** Loads again, showing the page as not ready meanwhile. */
  reload(): void;
  /** Loads again in the background (polling): the page stays ready and keeps its data meanwhile. */
  refresh(): void;
}

/** Runs `load` now and whenever `deps` change; `load` may close over anything `deps` names. */
export function useLoad<T>(load: () => Promise<T>, deps: readonly unknown[]): Loaded<T> {
  const { notify, loads } = useApp();
  const [state, setState] = useState<{ data: T | undefined; ready: boolean; loads: number; failed: boolean }>({ data: undefined, ready: false, loads: 0, failed: false });
  const latest = useRef(0);
  const loadRef = useRef(load);
  loadRef.current = load;
  // This load's identity in the app's list of failures; the app's reporter, read when a load ends.
  const token = useRef({});
  const reporter = useRef(loads);
  reporter.current = loads;

  const run = useCallback(
    (quiet: boolean): void => {
      const turn = ++latest.current;
      if (!quiet) setState((s) => ({ ...s, ready: false }));
      loadRef.current().then(
        (data) => {
          if (turn !== latest.current) return;
          setState((s) => ({ data, ready: true, loads: s.loads + 1, failed: false }));
          reporter.current.report(token.current, null);
        },
        (err: unknown) => {
          if (turn !== latest.current) return;
          notify.error(err);
          // A failed background refresh keeps what was shown; a failed load shows nothing stale under new filters.
          setState((s) => ({ data: quiet ? s.data : undefined, ready: true, loads: s.loads + 1, failed: !quiet || s.failed }));
          if (!quiet) reporter.current.report(token.current, () => run(false));
        },
      );
    },
    [notify],
  );

  useEffect(() => run(false), deps);
  useEffect(
    () => () => {
      latest.current = -1;
      reporter.current.report(token.current, null);
    },
    [],
  );
  return { ...state, reload: () => run(false), refresh: () => run(true) };
}
