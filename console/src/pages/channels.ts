// #/channels (operator): each upstream channel's state, refreshed every 5 s while the tab is visible. A refresh
// happens in the background: the page stays ready (data-loads counts the refreshes). The columns say whose numbers
// they are: requests served fleet-wide since the previous clock hour began (the hourly sums), and this instance's
// own upstream attempts and requests in flight (another instance's are not here).

import { useEffect } from 'preact/hooks';
import type { Channel, ChannelList } from '../api-types.js';
import { useApp } from '../app-context.js';
import { formatCount, formatMs, formatRate } from '../components/format-number.js';
import { formatClock } from '../components/format-time.js';
import { html } from '../components/html.js';
import { PageFrame } from '../components/page.js';
import { Table, type Column } from '../components/table.js';
import { useLoad } from '../components/use-load.js';

const REFRESH_MS = 5_000;

function state(c: Channel) {
  if (!c.cooling) return html`<span class="badge status-active">ready</span>`;
  return html`<span class="badge status-disabled">cooling</span> ${Math.ceil(c.cooldown_left_ms / 1000)} s left`;
}

/** "2 of 40 (5.0%)": the failed share of this instance's attempts. */
function failedAttempts(c: Channel): string {
  const a = c.attempts;
  return a.attempts === 0 ? '—' : `${formatCount(a.failures)} of ${formatCount(a.attempts)} (${formatRate(a.failure_rate)})`;
}

function columns(since: string | undefined, windowMinutes: number): Column<Channel>[] {
  const from = `since ${formatClock(since)}`;
  return [
    { id: 'name', title: 'Name', cell: (c) => c.name },
    { id: 'type', title: 'Type', cell: (c) => c.type },
    { id: 'priority', title: 'Priority', num: true, cell: (c) => formatCount(c.priority) },
    { id: 'state', title: 'State', cell: state },
    { id: 'in-flight', title: 'In flight (this instance)', num: true, cell: (c) => formatCount(c.in_flight) },
    { id: 'attempts-failed', title: `Attempts failed (this instance, ${windowMinutes} min)`, num: true, cell: failedAttempts },
    { id: 'requests', title: `Requests (${from})`, num: true, cell: (c) => formatCount(c.last_hour.requests) },
    { id: 'errors', title: `Errors (${from})`, num: true, cell: (c) => formatCount(c.last_hour.errors) },
    { id: 'error-rate', title: `Error rate (${from})`, num: true, cell: (c) => formatRate(c.last_hour.error_rate) },
    { id: 'latency', title: `Avg latency (${from})`, num: true, cell: (c) => formatMs(c.last_hour.avg_latency_ms) },
  ];
}

export function ChannelsPage() {
  const app = useApp();
  const loaded = useLoad(() => app.api.get<ChannelList>('/channels'), []);
  useEffect(() => {
    const timer = setInterval(() => {
      if (!document.hidden) loaded.refresh();
    }, REFRESH_MS);
    return () => clearInterval(timer);
  }, []);
  const list = loaded.data;
  return html`
    <${PageFrame} name="channels" title="Channels" ready=${loaded.ready} loads=${loaded.loads} tools=${html`<span class="hint">Refreshes every 5 s</span>`}>
      <${Table}
        testid="table-channels"
        columns=${columns(list?.since, list?.data[0]?.attempts.window_minutes ?? 60)}
        rows=${list?.data ?? []}
        rowId=${(c: Channel) => c.name}
        rowClass=${(c: Channel) => (c.cooling ? 'cooling' : '')}
        empty=${loaded.ready ? 'No channels.' : 'Loading…'}
      />
    <//>
  `;
}
