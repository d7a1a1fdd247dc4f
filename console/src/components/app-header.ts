// The header: the nav (the registry's pages this person may open) and who is signed in, with "Sign out".
// On a phone the nav takes its own row and scrolls sideways instead of pushing the page wider, and a long name is cut
// short with an ellipsis (its title has it whole).

import type { User } from '../api-types.js';
import type { PageDef } from '../page-def.js';
import { hrefOf } from '../router.js';
import { html } from './html.js';

/** The pages a nav shows this person: no 'any' pages, no parameterised paths, operator pages for operators only. */
export function navPages(pages: readonly PageDef[], user: User): PageDef[] {
  return pages.filter((p) => p.who !== 'any' && !p.path.includes(':') && (p.who === 'user' || user.operator));
}

export interface AppHeaderProps {
  readonly pages: readonly PageDef[];
  readonly user: User | null;
  readonly currentPath: string;
  readonly onSignOut: () => void;
}

export function AppHeader(props: AppHeaderProps) {
  const { user } = props;
  return html`
    <header class="app-header">
      <a class="brand" href=${hrefOf(user === null ? '/sign-in' : '/dashboard')}>Gateway console</a>
      ${user === null
        ? null
        : html`
            <nav class="nav" aria-label="Pages">
              ${navPages(props.pages, user).map(
                (p) => html`
                  <a
                    href=${hrefOf(p.path)}
                    data-testid=${`nav-${p.path.slice(1)}`}
                    class=${props.currentPath === p.path ? 'active' : ''}
                    aria-current=${props.currentPath === p.path ? 'page' : undefined}
                    >${p.title}</a
                  >
                `,
              )}
            </nav>
            <div class="who">
              <span class="who-text" data-testid="who" title=${user.operator ? `${user.name} (operator)` : `${user.name} · account ${user.account ?? ''}`}>
                ${user.name}${user.operator ? html` <span class="badge">operator</span>` : html` <span class="muted">· ${user.account}</span>`}
              </span>
              <button type="button" data-testid="sign-out" onClick=${props.onSignOut}>Sign out</button>
            </div>
          `}
    </header>
  `;
}
