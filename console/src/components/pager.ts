// Cursor paging, newest first: "Older" follows next_cursor, "Newest" goes back to the first page.

import { html } from './html.js';

export interface PagerProps {
  readonly atNewest: boolean;
  readonly nextCursor: string | null;
  readonly onOlder: (cursor: string) => void;
  readonly onNewest: () => void;
}

export function Pager(props: PagerProps) {
  const next = props.nextCursor;
  return html`
    <div class="pager">
      <button type="button" data-testid="newest" disabled=${props.atNewest} onClick=${props.onNewest}>Newest</button>
      <button type="button" data-testid="older" disabled=${next === null} onClick=${() => next !== null && props.onOlder(next)}>Older</button>
    </div>
  `;
}
