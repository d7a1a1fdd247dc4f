// #/config (operator): the running config file as the server shows it (secrets redacted), read-only, and a button
// that has the gateway reload it; the server's message says what happened.

import type { Reloaded, RunningConfig } from '../api-types.js';
import { useApp } from '../app-context.js';
import { html } from '../components/html.js';
import { PageFrame } from '../components/page.js';
import { useAction } from '../components/use-action.js';
import { useLoad } from '../components/use-load.js';

/** The file and its text; a gateway started without a file (its config given in code) has neither. */
function configView(config: RunningConfig) {
  if (config.path === null || config.yaml === null) {
    return html`<p class="muted" data-testid="config-none">This gateway was not started from a config file: there is no file to show.</p>`;
  }
  return html`
    <p class="muted">File: <code data-testid="config-path">${config.path}</code> (secrets redacted)</p>
    <pre class="config" data-testid="config-yaml">${config.yaml}</pre>
  `;
}

export function ConfigPage() {
  const app = useApp();
  const action = useAction();
  const loaded = useLoad(() => app.api.get<RunningConfig>('/config'), []);

  const reload = (): void =>
    void action.run(async () => {
      const answer = await app.api.post<Reloaded>('/config/reload', {});
      // Not reloaded (a broken file): the gateway keeps the old config, and the message says why.
      if (answer.reloaded) app.notify.notice(answer.message);
      else app.notify.error(new Error(answer.message));
      loaded.reload();
    });

  const config = loaded.data;
  return html`
    <${PageFrame}
      name="config"
      title="Config"
      ready=${loaded.ready}
      loads=${loaded.loads}
      tools=${html`<button type="button" class="primary" data-testid="config-reload" disabled=${action.busy} onClick=${reload}>Reload config</button>`}
    >
      ${config === undefined ? null : configView(config)}
    <//>
  `;
}
