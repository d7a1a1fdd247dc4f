// Offset paging of a list the server counts (the features' record pages): "Groups 1–50 of 120", then Newest and Older.

import { formatCount } from './format-number.js';
import { html } from './html.js';
import { Pager } from './pager.js';

export interface OffsetPagesProps {
  /** What the rows are, for the count line ("Groups", "Tasks"). */
  readonly noun: string;
  readonly testid: string;
  readonly offset: number;
  readonly shown: number;
  readonly total: number;
  readonly page: number;
  readonly setOffset: (offset: number) => void;
}

export function OffsetPages(props: OffsetPagesProps) {
  const { offset, shown, total, page, setOffset } = props;
  return html`
    ${total === 0
      ? null
      : html`<p class="hint" data-testid=${props.testid}>${props.noun} ${formatCount(offset + 1)}–${formatCount(offset + shown)} of ${formatCount(total)}</p>`}
    <${Pager}
      atNewest=${offset === 0}
      nextCursor=${offset + page < total ? String(offset + page) : null}
      onOlder=${(next: string) => setOffset(Number(next))}
      onNewest=${() => setOffset(0)}
    />
  `;
}
