// #/videos: the account's video tasks, newest first: when each was made, by which key, the model, its status and
// progress, what it cost (or, until it ends, what is set aside for it), and a download link once it succeeded. Read
// again every 3 s while a task on the page is unfinished. Read-only; the operator picks the account (the API lists one
// account's tasks at a time, so the selector has no "All" here, as on the ledger).

import { useEffect, useState } from 'preact/hooks';
import './page.css';
import type { ConsoleVideoTask as VideoTask, ConsoleVideoTaskList as VideoTaskPage } from '../../../console/src/api-types.gen.js';
import { accountQuery, useApp } from '../../../console/src/app-context.js';
import { AccountSelect, useAccounts } from '../../../console/src/components/account-select.js';
import { formatMoney } from '../../../console/src/components/format-number.js';
import { formatTime } from '../../../console/src/components/format-time.js';
import { html } from '../../../console/src/components/html.js';
import type { PageDef } from '../../../console/src/page-def.js';
import { PageFrame } from '../../../console/src/components/page.js';
import { OffsetPages } from '../../../console/src/components/offset-pages.js';
import { Table, type Column } from '../../../console/src/components/table.js';
import { useLoad } from '../../../console/src/components/use-load.js';

type TaskStatus = VideoTask['status'];

/** The server's page size. */
const PAGE = 50;
/** The mock's tasks end 3 s after they were made; Seedance's within minutes. */
const REFRESH_MS = 3_000;

const STATUS_CLASS: Readonly<Record<TaskStatus, string>> = {
  submitting: 'status-disabled',
  queued: 'status-disabled',
  running: 'status-disabled',
  succeeded: 'status-active',
  failed: 'status-error',
  cancelled: 'status-revoked',
  expired: 'status-expired',
};

const unfinished = (t: VideoTask): boolean => t.status === 'submitting' || t.status === 'queued' || t.status === 'running';

function costCell(t: VideoTask, currency: string) {
  if (t.cost !== null) return html`<span data-testid="cost">${formatMoney(t.cost, currency)}</span>`;
  // Until it is settled, what it may cost at most: the amount set aside when it was made.
  if (t.reserved === '0') return html`<span class="muted" data-testid="cost">—</span>`;
  return html`<span class="muted" data-testid="cost" title="Set aside until the task ends">≤ ${formatMoney(t.reserved, currency)}</span>`;
}

function columns(currency: string): Column<VideoTask>[] {
  return [
    { id: 'created', title: 'Created', cell: (t) => formatTime(t.created_at) },
    { id: 'key', title: 'Key', cell: (t) => html`<span title=${`Key id ${t.key.id}`}>${t.key.name}</span>` },
    { id: 'model', title: 'Model', cell: (t) => html`<code>${t.model}</code>` },
    { id: 'prompt', title: 'Prompt', cell: (t) => (t.prompt === null ? html`<span class="muted">—</span>` : html`<span title=${t.prompt}>${t.prompt}</span>`) },
    {
      id: 'status',
      title: 'Status',
      cell: (t) => html`
        <span class=${`badge ${STATUS_CLASS[t.status] ?? ''}`} data-testid="task-status" title=${t.error === null ? '' : `${t.error.code}: ${t.error.message}`}>${t.status}</span>
        ${t.error === null ? null : html`<div class="hint" data-testid="task-error">${t.error.code}</div>`}
      `,
    },
    { id: 'progress', title: 'Progress', num: true, cell: (t) => `${t.progress}%` },
    { id: 'cost', title: 'Cost', num: true, cell: (t) => costCell(t, currency) },
    {
      id: 'download',
      title: 'Video',
      cell: (t) => (t.download === null ? html`<span class="muted">—</span>` : html`<a href=${t.download} download=${`${t.id}.mp4`} data-testid="download">Download</a>`),
    },
  ];
}

export function VideosPage() {
  const app = useApp();
  const accounts = useAccounts();
  const needsAccount = app.session?.user.operator === true && app.account === '';
  const [offset, setOffset] = useState(0);
  const loaded = useLoad(async () => {
    if (needsAccount) return undefined;
    return app.api.get<VideoTaskPage>('/videos', Object.assign({ offset }, accountQuery(app)));
  }, [offset, app.account]);
  const page = loaded.data;
  const tasks = page?.data ?? [];
  // Polled only while a task is still running: a page of ended tasks is not read again and again.
  const running = tasks.some(unfinished);
  useEffect(() => {
    if (!running) return;
    const timer = setInterval(() => {
      if (!document.hidden) loaded.refresh();
    }, REFRESH_MS);
    return () => clearInterval(timer);
  }, [running, offset, app.account]);

  const total = page?.total ?? 0;
  return html`
    <${PageFrame}
      name="videos"
      title="Videos"
      ready=${loaded.ready}
      loads=${loaded.loads}
      tools=${html`<${AccountSelect} accounts=${accounts} required=${true} onSwitch=${() => setOffset(0)} />`}
    >
      ${needsAccount
        ? html`<p class="muted" data-testid="choose-account">Choose an account to see its video tasks.</p>`
        : html`
            <p class="hint" data-testid="videos-summary">
              Video tasks made through ${app.session?.user.operator === true ? 'the account\'s' : 'your account\'s'} keys, newest first. A task is charged
              when it ends; until then the cost shown is the most it may cost. Download a finished video here or through the API.
            </p>
            <${Table}
              testid="table-videos"
              columns=${columns(page?.currency ?? '')}
              rows=${tasks}
              rowId=${(t: VideoTask) => t.id}
              rowClass=${(t: VideoTask) => `task-${t.status}`}
              empty=${loaded.ready ? 'No video tasks yet.' : 'Loading…'}
            />
            <${OffsetPages} noun="Tasks" testid="videos-count" offset=${offset} shown=${tasks.length} total=${total} page=${PAGE} setOffset=${setOffset} />
          `}
    <//>
  `;
}

/** The console's page of this feature (console/src/pages/index.ts lists the features' pages after the user pages). */
export const consolePage: PageDef = { path: '/videos', title: 'Videos', who: 'user', view: VideosPage };
