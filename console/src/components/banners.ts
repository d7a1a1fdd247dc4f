// The page-wide error and notice banners (data-testid "error" and "notice"); their text is the server's or the
// page's, always rendered as text. The close button's "×" comes from CSS, so a banner's text is its message alone.

import { html } from './html.js';

export function Banners(props: { readonly error: string | null; readonly notice: string | null; readonly onClose: () => void }) {
  return html`
    <div class="banners">
      ${props.error === null
        ? null
        : html`<div class="banner error" role="alert" data-testid="error">
            <span>${props.error}</span>
            <button type="button" class="close" aria-label="Dismiss" data-testid="error-close" onClick=${props.onClose}></button>
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
