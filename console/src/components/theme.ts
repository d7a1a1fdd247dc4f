// Light or dark: the system's (prefers-color-scheme) until the user picks one with the header's toggle, which this
// browser keeps (localStorage). The theme shown is an attribute on <html> (data-theme), the one thing style.css reads
// (its dark palette written once); it is set before the first render (main.ts), so a dark page never flashes light,
// and again when the system switches while nothing is chosen.

import { useEffect, useState } from 'preact/hooks';
import { html } from './html.js';
import { readStored, writeStored } from './stored-choice.js';

export type Theme = 'light' | 'dark';

const KEY = 'theme';

function systemTheme(): Theme {
  return typeof matchMedia === 'function' && matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light';
}

/** The theme chosen in this browser, or null when it follows the system. */
function chosenTheme(): Theme | null {
  const stored = readStored(KEY);
  return stored === 'light' || stored === 'dark' ? stored : null;
}

/** Puts the theme shown on <html>: the one chosen in this browser, else the system's; returns it. */
export function applyTheme(): Theme {
  const theme = chosenTheme() ?? systemTheme();
  document.documentElement.dataset['theme'] = theme;
  return theme;
}

/** Shows the system's theme while nothing is chosen, now and whenever the system switches (dusk, its settings). */
export function followSystemTheme(): void {
  applyTheme();
  if (typeof matchMedia === 'function') matchMedia('(prefers-color-scheme: dark)').addEventListener('change', () => applyTheme());
}

/** The header's toggle: switches to the other theme than the one shown, and keeps the choice. */
export function ThemeToggle() {
  const [shown, setShown] = useState<Theme>(() => chosenTheme() ?? systemTheme());
  // While nothing is chosen, the system's switch (dusk, or its settings) switches what is shown, and so the toggle.
  useEffect(() => {
    if (typeof matchMedia !== 'function') return;
    const query = matchMedia('(prefers-color-scheme: dark)');
    const follow = (): void => setShown(chosenTheme() ?? systemTheme());
    query.addEventListener('change', follow);
    return () => query.removeEventListener('change', follow);
  }, []);
  const next: Theme = shown === 'dark' ? 'light' : 'dark';
  const toggle = (): void => {
    writeStored(KEY, next);
    setShown(applyTheme());
  };
  return html`
    <button type="button" class="theme-toggle" data-testid="theme-toggle" data-theme-shown=${shown} aria-pressed=${shown === 'dark' ? 'true' : 'false'} title=${`Switch to the ${next} theme`} onClick=${toggle}>
      ${shown === 'dark' ? 'Light' : 'Dark'}
    </button>
  `;
}
