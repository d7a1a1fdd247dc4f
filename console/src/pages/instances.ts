// #/instances (operator): the gateway processes sharing this store, the one answering marked "this one".

import type { Instance, InstanceList } from '../api-types.js';
import { useApp } from '../app-context.js';
import { html } from '../components/html.js';
import { PageFrame } from '../components/page.js';
import { Table, type Column } from '../components/table.js';
import { useLoad } from '../components/use-load.js';

const COLUMNS: readonly Column<Instance>[] = [
  { id: 'id', title: 'Instance', cell: (i) => html`<code>${i.id}</code>` },
  { id: 'self', title: '', cell: (i) => (i.self ? html`<span class="badge status-active" data-testid="self">this one</span>` : '') },
];

export function InstancesPage() {
  const app = useApp();
  const loaded = useLoad(() => app.api.get<InstanceList>('/instances'), []);
  return html`
    <${PageFrame} name="instances" title="Instances" ready=${loaded.ready} loads=${loaded.loads}>
      <${Table}
        testid="table-instances"
        columns=${COLUMNS}
        rows=${loaded.data?.data ?? []}
        rowId=${(i: Instance) => i.id}
        empty=${loaded.ready ? 'No instances.' : 'Loading…'}
      />
    <//>
  `;
}
