// #/channels (operator): each upstream channel's state and its last hour, refreshed every 5 s while the tab is
// visible. A refresh happens in the background: the page stays ready (data-loads counts the refreshes).

import { useEffect } from 'preact/hooks';
import type { Channel, List } from '../api-types.js';
import { useApp } from '../app-context.js';
import { formatCount, formatMs, formatRate } from '../components/format-number.js';
import { html } from '../components/html.js';
import { PageFrame } from '../components/page.js';
import { Table, type Column } from '../components/table.js';
import { useLoad } from '../components/use-load.js';

const REFRESH_MS = 5_000;

function state(c: Channel) {
  if (!c.cooling) return html`<span class="badge status-active">ready</span>`;
  return html`<span class="badge status-disabled">cooling</span> ${Math.ceil(c.cooldown_left_ms / 1000)} s left`;
}

const COLUMNS: readonly Column<Channel>[] = [
  { id: 'name', title: 'Name', cell: (c) => c.name },
  { id: 'type', title: 'Type', cell: (c) => c.type },
  { id: 'priority', title: 'Priority', num: true, cell: (c) => formatCount(c.priority) },
  { id: 'state', title: 'State', cell: state },
  { id: 'in-flight', title: 'In flight', num: true, cell: (c) => formatCount(c.in_flight) },
  { id: 'requests', title: 'Requests (1 h)', num: true, cell: (c) => formatCount(c.last_hour.requests) },
  { id: 'errors', title: 'Errors (1 h)', num: true, cell: (c) => formatCount(c.last_hour.errors) },
  { id: 'error-rate', title: 'Error rate', num: true, cell: (c) => formatRate(c.last_hour.error_rate) },
  { id: 'latency', title: 'Avg latency', num: true, cell: (c) => formatMs(c.last_hour.avg_latency_ms) },
];

export function ChannelsPage() {
  const app = useApp();
  const loaded = useLoad(() => app.api.get<List<Channel>>('/channels'), []);
  useEffect(() => {
    const timer = setInterval(() => {
      if (!document.hidden) loaded.refresh();
    }, REFRESH_MS);
    return () => clearInterval(timer);
  }, []);
  return html`
    <${PageFrame} name="channels" title="Channels" ready=${loaded.ready} loads=${loaded.loads} tools=${html`<span class="hint">Refreshes every 5 s</span>`}>
      <${Table}
        testid="table-channels"
        columns=${COLUMNS}
        rows=${loaded.data?.data ?? []}
        rowId=${(c: Channel) => c.name}
        rowClass=${(c: Channel) => (c.cooling ? 'cooling' : '')}
        empty=${loaded.ready ? 'No channels.' : 'Loading…'}
      />
    <//>
  `;
}
