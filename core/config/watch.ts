// Watches the config file for changes (editors often replace the file, so the directory is watched).

import { watch, type FSWatcher } from 'node:fs';
import { basename, dirname } from 'node:path';

/** Calls `onChange` (debounced) after the file changes; returns a function that stops watching. */
export function watchConfigFile(file: string, onChange: () => void, debounceMs = 150): () => void {
  const name = basename(file);
  let timer: NodeJS.Timeout | null = null;
  let watcher: FSWatcher | null = watch(dirname(file), { persistent: false }, (_event, changed) => {
    if (changed !== null && changed.toString() !== name) return;
    if (timer !== null) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = null;
      onChange();
    }, debounceMs);
  });
  watcher.on('error', () => undefined);
  return () => {
    if (timer !== null) clearTimeout(timer);
    watcher?.close();
    watcher = null;
  };
}
