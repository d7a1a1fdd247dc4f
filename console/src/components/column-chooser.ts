// Which of a table's columns are shown: the ones that matter always (they come first), the rest as the user chose in
// the "Columns" menu, kept in this browser per table (localStorage), each with its default until then.

import { useState } from 'preact/hooks';
import { html } from './html.js';
import { readStored, writeStored } from './stored-choice.js';

/** A column the user may show or hide, and whether it is shown until they choose. */
export interface Choosable {
  readonly id: string;
  readonly title: string;
  readonly choosable?: 'shown' | 'hidden';
}

export interface ColumnChoice {
  /** Whether the column is shown now. */
  shows(column: Choosable): boolean;
  set(id: string, shown: boolean): void;
}

/** The choices made for `table` so far: id -> shown. */
function readChoices(table: string): Record<string, boolean> {
  const text = readStored(`columns.${table}`);
  if (text === null) return {};
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed !== 'object' || parsed === null) return {};
    return Object.fromEntries(Object.entries(parsed).filter((e): e is [string, boolean] => typeof e[1] === 'boolean'));
  } catch {
    return {};
  }
}

export function useColumnChoice(table: string): ColumnChoice {
  const [choices, setChoices] = useState<Record<string, boolean>>(() => readChoices(table));
  return {
    shows: (column) => column.choosable === undefined || (choices[column.id] ?? column.choosable === 'shown'),
    set(id, shown) {
      const next = { ...choices, [id]: shown };
      writeStored(`columns.${table}`, JSON.stringify(next));
      setChoices(next);
    },
  };
}

/** The "Columns" menu: a box per choosable column (data-testid "columns-<table>", each box "column-<id>"). */
export function ColumnChooser(props: { readonly table: string; readonly columns: readonly Choosable[]; readonly choice: ColumnChoice }) {
  const choosable = props.columns.filter((c) => c.choosable !== undefined);
  if (choosable.length === 0) return null;
  return html`
    <details class="column-chooser" data-testid=${`columns-${props.table}`}>
      <summary>Columns</summary>
      <div class="column-choices">
        ${choosable.map(
          (c) => html`
            <label class="check" key=${c.id}>
              <input
                type="checkbox"
                data-testid=${`column-${c.id}`}
                checked=${props.choice.shows(c)}
                onChange=${(e: Event) => props.choice.set(c.id, (e.currentTarget as HTMLInputElement).checked)}
              />
              ${c.title === '' ? c.id : c.title}
            </label>
          `,
        )}
      </div>
    </details>
  `;
}
