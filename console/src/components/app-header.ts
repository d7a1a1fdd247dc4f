// The header: the brand, the nav of the pages everyone signed in may open, and who is signed in (their name leads to
// their own settings: password and sessions), the theme toggle and "Sign out", on one row; the operator's pages
// (and features' operator pages) on a row of their own under it, so however many pages there are, the first row
// never wraps the user's name away (a nav too long for its row scrolls sideways instead). On a phone the nav rows
// take their own rows under the brand, and a long name is cut short with an ellipsis (its title has it whole).

import type { User } from '../api-types.js';
import type { PageDef } from '../page-def.js';
import { hrefOf } from '../router.js';
import { html } from './html.js';
import { ThemeToggle } from './theme.js';

/** The pages a nav shows this person: no 'any' pages, no parameterised paths, none kept out, operator pages for operators only. */
export function navPages(pages: readonly PageDef[], user: User): PageDef[] {
  return pages.filter((p) => p.who !== 'any' && !p.path.includes(':') && p.nav !== false && (p.who === 'user' || user.operator));
}

export interface AppHeaderProps {
  readonly pages: readonly PageDef[];
  readonly user: User | null;
  readonly currentPath: string;
  readonly onSignOut: () => void;
}

function navLink(p: PageDef, currentPath: string) {
  const here = currentPath === p.path;
  return html`<a href=${hrefOf(p.path)} data-testid=${`nav-${p.path.slice(1)}`} class=${here ? 'active' : ''} aria-current=${here ? 'page' : undefined}>${p.title}</a>`;
}

export function AppHeader(props: AppHeaderProps) {
  const { user } = props;
  const shown = user === null ? [] : navPages(props.pages, user);
  const mine = shown.filter((p) => p.who === 'user');
  const operators = shown.filter((p) => p.who === 'operator');
  return html`
    <header class="app-header">
      <div class="header-row">
        <a class="brand" href=${hrefOf(user === null ? '/sign-in' : '/dashboard')}>Gateway console</a>
        ${user === null
          ? html`<div class="who"><${ThemeToggle} /></div>`
          : html`
              <nav class="nav" aria-label="Pages">${mine.map((p) => navLink(p, props.currentPath))}</nav>
              <div class="who">
                <a
                  class="who-text"
                  href=${hrefOf('/settings')}
                  data-testid="nav-settings"
                  title=${`${user.operator ? `${user.name} (operator)` : `${user.name} · account ${user.account ?? ''}`}: password and sessions`}
                  aria-current=${props.currentPath === '/settings' ? 'page' : undefined}
                >
                  <span data-testid="who">${user.name}</span>${user.operator ? html` <span class="badge">operator</span>` : html` <span class="muted">· ${user.account}</span>`}
                </a>
                <${ThemeToggle} />
                <button type="button" data-testid="sign-out" onClick=${props.onSignOut}>Sign out</button>
              </div>
            `}
      </div>
      ${operators.length === 0
        ? null
        : html`
            <nav class="nav nav-operator" aria-label="Operator pages" data-testid="nav-operator">
              <span class="nav-label">Operator</span>
              ${operators.map((p) => navLink(p, props.currentPath))}
            </nav>
          `}
    </header>
  `;
}
