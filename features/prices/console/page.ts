// #/prices: the models the account's keys may call, per group, with their prices per unit (the group's multiplier
// applied): tokens per million (input, output, cache read and write), per image, per second of timed output, and the
// flat-priced calls. The operator sees every group, or an account's.

import type { ConsolePriceList as PriceList } from '../../../console/src/api-types.gen.js';
import { accountQuery, useApp } from '../../../console/src/app-context.js';
import { AccountSelect, useAccounts } from '../../../console/src/components/account-select.js';
import { formatMoney } from '../../../console/src/components/format-number.js';
import { html } from '../../../console/src/components/html.js';
import { PageFrame } from '../../../console/src/components/page.js';
import { Table, type Column } from '../../../console/src/components/table.js';
import { useLoad } from '../../../console/src/components/use-load.js';
import type { PageDef } from '../../../console/src/page-def.js';

type Group = PriceList['data'][number];
type ModelRow = Group['models'][number];

function columns(currency: string, unpriced: PriceList['unpriced']): Column<ModelRow>[] {
  const money = (pick: (p: NonNullable<ModelRow['price']>) => string) => (r: ModelRow) =>
    r.price === null ? html`<span class="muted">${unpriced === 'free' ? 'free' : '—'}</span>` : formatMoney(pick(r.price), currency);
  return [
    { id: 'model', title: 'Model', cell: (r) => html`<code>${r.model}</code>` },
    { id: 'input', title: 'Input / 1M', num: true, cell: money((p) => p.input_per_million) },
    { id: 'output', title: 'Output / 1M', num: true, cell: money((p) => p.output_per_million) },
    { id: 'cache-read', title: 'Cache read / 1M', num: true, cell: money((p) => p.cache_read_per_million) },
    { id: 'cache-write', title: 'Cache write / 1M', num: true, cell: money((p) => p.cache_write_per_million) },
    { id: 'image', title: 'Per image', num: true, cell: money((p) => p.per_image) },
    { id: 'second', title: 'Per second', num: true, cell: money((p) => p.per_second) },
  ];
}

function GroupPrices(props: { readonly group: Group; readonly list: PriceList }) {
  const { group, list } = props;
  return html`
    <section class="card" data-testid="price-group" data-id=${group.name}>
      <h2>${group.name} <span class="hint" data-testid="group-multiplier">price ×${group.multiplier}</span></h2>
      <${Table}
        testid=${`table-prices-${group.name}`}
        columns=${columns(list.currency, list.unpriced)}
        rows=${group.models}
        rowId=${(r: ModelRow) => r.model}
        empty="No model of this group is served now."
      />
      ${group.calls.length === 0
        ? null
        : html`
            <h3>Calls</h3>
            <ul data-testid="price-calls">
              ${group.calls.map((c) => html`<li data-testid="price-call" data-id=${c.operation}><code>${c.operation}</code>: ${formatMoney(c.per_call, list.currency)} per call</li>`)}
            </ul>
          `}
    </section>
  `;
}

export function PricesPage() {
  const app = useApp();
  const accounts = useAccounts();
  const loaded = useLoad(() => app.api.get<PriceList>('/prices', accountQuery(app)), [app.account]);
  const list = loaded.data;
  return html`
    <${PageFrame} name="prices" title="Models and prices" ready=${loaded.ready} loads=${loaded.loads} tools=${html`<${AccountSelect} accounts=${accounts} />`}>
      <p class="hint">Prices in ${list?.currency ?? 'the currency'}, per million tokens unless said, with each group's multiplier applied: what a request of your keys is charged.</p>
      ${list === undefined ? null : list.data.length === 0 ? html`<p class="muted" data-testid="no-groups">No group to call models in.</p>` : list.data.map((group) => html`<${GroupPrices} group=${group} list=${list} />`)}
    <//>
  `;
}

/** The console's page of this feature (console/src/pages/index.ts lists the features' pages after the user pages). */
export const consolePage: PageDef = { path: '/prices', title: 'Prices', who: 'user', view: PricesPage };
