// A button's call to the API: busy while it runs (the button is disabled: a double click sends once), the old
// banners cleared first, a failure shown with the server's message.

import { useRef, useState } from 'preact/hooks';
import { useApp } from '../app-context.js';

export interface Action {
  readonly busy: boolean;
  /** Runs `work` unless one is already running; resolves true when it succeeded. */
  run(work: () => Promise<void>): Promise<boolean>;
}

export function useAction(): Action {
  const { notify } = useApp();
  const [busy, setBusy] = useState(false);
  // A ref as well as state: two clicks in one frame both see the state's old false.
  const running = useRef(false);
  async function run(work: () => Promise<void>): Promise<boolean> {
    if (running.current) return false;
    running.current = true;
    setBusy(true);
    notify.clear();
    try {
      await work();
      return true;
    } catch (err) {
      notify.error(err);
      return false;
    } finally {
      running.current = false;
      setBusy(false);
    }
  }
  return { busy, run };
}
