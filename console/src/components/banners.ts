// The page-wide error and notice banners (data-testid "error" and "notice"); their text is the server's or the
// page's, always rendered as text. The close button's "×" comes from CSS, so a banner's text is its message alone.
// When the page's data failed to load, the error banner carries a Retry (data-testid "retry"), and without an error
// shown (dismissed, or cleared by an action) a banner of its own says the data is missing.

import { html } from './html.js';

export interface BannersProps {
  readonly error: string | null;
  readonly notice: string | null;
  readonly onClose: () => void;
  /** Loads the page's failed data again; absent when nothing failed. */
  readonly onRetry?: (() => void) | undefined;
}

export function Banners(props: BannersProps) {
  const retry = props.onRetry === undefined ? null : html`<button type="button" class="retry" data-testid="retry" onClick=${props.onRetry}>Retry</button>`;
  return html`
    <div class="banners">
      ${props.error === null
        ? retry === null
          ? null
          : html`<div class="banner error" role="alert" data-testid="load-failed"><span>This page's data did not load.</span>${retry}</div>`
        : html`<div class="banner error" role="alert" data-testid="error">
            <span>${props.error}</span>
            <span class="banner-actions">
              ${retry}
              <button type="button" class="close" aria-label="Dismiss" data-testid="error-close" onClick=${props.onClose}></button>
            </span>
          </div>`}
      ${props.notice === null
        ? null
        : html`<div class="banner notice" role="status" data-testid="notice">
            <span>${props.notice}</span>
            <button type="button" class="close" aria-label="Dismiss" data-testid="notice-close" onClick=${props.onClose}></button>
          </div>`}
    </div>
  `;
}
