// What the console remembers in this browser (localStorage): a table's columns, the theme. A browser that keeps
// nothing (storage off, a private window's quota) just forgets: every read has its default, every write may fail.

const PREFIX = 'gw-console.';

export function readStored(name: string): string | null {
  try {
    return localStorage.getItem(PREFIX + name);
  } catch {
    return null;
  }
}

export function writeStored(name: string, value: string | null): void {
  try {
    if (value === null) localStorage.removeItem(PREFIX + name);
    else localStorage.setItem(PREFIX + name, value);
  } catch {
    // Not kept: the choice holds for this page only.
  }
}
