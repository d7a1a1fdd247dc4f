// A data table in its own horizontally scrolling box. The columns that matter come first and are always shown; the
// others (`choosable`) are shown or hidden in its "Columns" menu, kept in this browser. On a phone each row is a card
// of its cells, each labelled with its column's title, the row's actions at its foot. Every row carries
// data-testid="row" and data-id (the record's id), every cell data-col (its column's id), for browser tests. While
// the page's data failed to load, no "nothing here" text shows (the banner offers a Retry instead).

import type { ComponentChild } from 'preact';
import { useApp } from '../app-context.js';
import { ColumnChooser, useColumnChoice } from './column-chooser.js';
import { html } from './html.js';

export interface Column<T> {
  /** The cells' data-col. */
  readonly id: string;
  readonly title: string;
  readonly cell: (row: T) => ComponentChild;
  /** Right-aligned with tabular digits. */
  readonly num?: boolean;
  /** In the "Columns" menu, shown or hidden until the user chooses; absent: always shown. */
  readonly choosable?: 'shown' | 'hidden';
}

export interface TableProps<T> {
  readonly testid: string;
  readonly columns: readonly Column<T>[];
  readonly rows: readonly T[];
  readonly rowId: (row: T) => string;
  /** Shown in place of rows when there are none (and the data loaded). */
  readonly empty: string;
  /** Rows before the data (a totals row), given the columns shown. */
  readonly before?: ComponentChild | ((shown: readonly Column<T>[]) => ComponentChild);
  readonly rowClass?: (row: T) => string;
}

export function Table<T>(props: TableProps<T>) {
  const { rows } = props;
  const app = useApp();
  const choice = useColumnChoice(props.testid);
  const columns = props.columns.filter((c) => choice.shows(c));
  const before = typeof props.before === 'function' ? props.before(columns) : props.before;
  return html`
    <div class="table-block">
      <${ColumnChooser} table=${props.testid} columns=${props.columns} choice=${choice} />
      <div class="table-wrap">
        <table data-testid=${props.testid}>
          <thead>
            <tr>${columns.map((c) => html`<th class=${c.num === true ? 'num' : ''} data-col=${c.id} scope="col">${c.title}</th>`)}</tr>
          </thead>
          <tbody>
            ${before}
            ${rows.map(
              (row) => html`
                <tr data-testid="row" data-id=${props.rowId(row)} key=${props.rowId(row)} class=${props.rowClass?.(row) ?? ''}>
                  ${columns.map((c) => html`<td class=${c.num === true ? 'num' : ''} data-col=${c.id} data-title=${c.title}>${c.cell(row)}</td>`)}
                </tr>
              `,
            )}
            ${rows.length === 0 && !app.loads.failed
              ? html`<tr class="empty"><td colspan=${columns.length} data-testid="empty">${props.empty}</td></tr>`
              : null}
          </tbody>
        </table>
      </div>
    </div>
  `;
}
