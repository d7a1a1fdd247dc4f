// A page's data load: `ready` false while loading (the page root's data-ready, which browser tests wait for), the
// last answer kept, errors to the banner, and answers to superseded loads dropped (a slow old filter never wins).

import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { useApp } from '../app-context.js';

export interface Loaded<T> {
  readonly data: T | undefined;
  readonly ready: boolean;
  /** Completed loads so far (the page root's data-loads): a test can wait for the next quiet refresh. */
  readonly loads: number;
  /** Loads again, showing the page as not ready meanwhile. */
  reload(): void;
  /** Loads again in the background (polling): the page stays ready and keeps its data meanwhile. */
  refresh(): void;
}

/** Runs `load` now and whenever `deps` change; `load` may close over anything `deps` names. */
export function useLoad<T>(load: () => Promise<T>, deps: readonly unknown[]): Loaded<T> {
  const { notify } = useApp();
  const [state, setState] = useState<{ data: T | undefined; ready: boolean; loads: number }>({ data: undefined, ready: false, loads: 0 });
  const latest = useRef(0);
  const loadRef = useRef(load);
  loadRef.current = load;

  const run = useCallback(
    (quiet: boolean): void => {
      const turn = ++latest.current;
      if (!quiet) setState((s) => ({ ...s, ready: false }));
      loadRef.current().then(
        (data) => {
          if (turn === latest.current) setState((s) => ({ data, ready: true, loads: s.loads + 1 }));
        },
        (err: unknown) => {
          if (turn !== latest.current) return;
          notify.error(err);
          // A failed background refresh keeps what was shown; a failed load shows nothing stale under new filters.
          setState((s) => ({ data: quiet ? s.data : undefined, ready: true, loads: s.loads + 1 }));
        },
      );
    },
    [notify],
  );

  useEffect(() => run(false), deps);
  useEffect(() => () => void (latest.current = -1), []);
  return { ...state, reload: () => run(false), refresh: () => run(true) };
}
