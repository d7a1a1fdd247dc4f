// #/requests: find a request by its id (the x-request-id its client saw, or a task's id) and see its detail
// (the request drawer, console/src/components/request-drawer.ts); #/requests?id=<id> opens it at once.

import { useState } from 'preact/hooks';
import { useApp } from '../../../console/src/app-context.js';
import { Field } from '../../../console/src/components/field.js';
import { html } from '../../../console/src/components/html.js';
import { PageFrame } from '../../../console/src/components/page.js';
import { RequestDrawer, type DrawerSubject } from '../../../console/src/components/request-drawer.js';
import type { PageDef, PageProps } from '../../../console/src/page-def.js';

export function RequestsPage(props: PageProps) {
  const app = useApp();
  const asked = props.query.get('id') ?? '';
  const [draft, setDraft] = useState(asked);
  const [drawer, setDrawer] = useState<DrawerSubject | null>(asked === '' ? null : { request: asked });

  function onFind(e: Event): void {
    e.preventDefault();
    app.notify.clear();
    const id = draft.trim();
    if (id === '') return;
    setDrawer({ request: id });
  }

  return html`
    <${PageFrame} name="requests" title="Find a request" ready=${true}>
      <form class="card filters" data-testid="request-search" onSubmit=${onFind}>
        <${Field} label="Request id">
          <input
            type="search"
            data-testid="request-search-id"
            placeholder="x-request-id"
            value=${draft}
            onInput=${(e: Event) => setDraft((e.currentTarget as HTMLInputElement).value)}
          />
        <//>
        <div class="actions wide"><button type="submit" class="primary" data-testid="request-search-submit">Find</button></div>
      </form>
      <p class="hint">Every answer of the gateway carries its request id in the <code>x-request-id</code> header; a task's id finds the record of its end.</p>
      <${RequestDrawer} subject=${drawer} onOpen=${setDrawer} onClose=${() => setDrawer(null)} />
    <//>
  `;
}

/** The console's page of this feature (console/src/pages/index.ts lists the features' pages after the user pages). */
export const consolePage: PageDef = { path: '/requests', title: 'Requests', who: 'user', view: RequestsPage };
