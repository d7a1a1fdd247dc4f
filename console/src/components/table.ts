// A data table in its own horizontally scrolling box (a phone scrolls the table, not the page). Every row carries
// data-testid="row" and data-id (the record's id), every cell data-col (its column's id), for browser tests.

import type { ComponentChild } from 'preact';
import { html } from './html.js';

export interface Column<T> {
  /** The cells' data-col. */
  readonly id: string;
  readonly title: string;
  readonly cell: (row: T) => ComponentChild;
  /** Right-aligned with tabular digits. */
  readonly num?: boolean;
}

export interface TableProps<T> {
  readonly testid: string;
  readonly columns: readonly Column<T>[];
  readonly rows: readonly T[];
  readonly rowId: (row: T) => string;
  /** Shown in place of rows when there are none. */
  readonly empty: string;
  /** Rows before the data (a totals row). */
  readonly before?: ComponentChild;
  readonly rowClass?: (row: T) => string;
}

export function Table<T>(props: TableProps<T>) {
  const { columns, rows } = props;
  return html`
    <div class="table-wrap">
      <table data-testid=${props.testid}>
        <thead>
          <tr>${columns.map((c) => html`<th class=${c.num === true ? 'num' : ''} data-col=${c.id} scope="col">${c.title}</th>`)}</tr>
        </thead>
        <tbody>
          ${props.before}
          ${rows.map(
            (row) => html`
              <tr data-testid="row" data-id=${props.rowId(row)} key=${props.rowId(row)} class=${props.rowClass?.(row) ?? ''}>
                ${columns.map((c) => html`<td class=${c.num === true ? 'num' : ''} data-col=${c.id}>${c.cell(row)}</td>`)}
              </tr>
            `,
          )}
          ${rows.length === 0 ? html`<tr class="empty"><td colspan=${columns.length} data-testid="empty">${props.empty}</td></tr>` : null}
        </tbody>
      </table>
    </div>
  `;
}
