// Text to copy (a new key's secret, a password link) with a Copy button that says "Copied" once it worked.
// data-testid: the box is `testid`, its text `<testid>-value`, the button "copy".

import { useEffect, useState } from 'preact/hooks';
import { copyText } from './copy-text.js';
import { html } from './html.js';

export function CopyBox(props: { readonly testid: string; readonly text: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  useEffect(() => setState('idle'), [props.text]);
  async function onCopy(): Promise<void> {
    setState((await copyText(props.text)) ? 'copied' : 'failed');
  }
  return html`
    <div class="copy-box" data-testid=${props.testid}>
      <code class="copy-value" data-testid=${`${props.testid}-value`}>${props.text}</code>
      <button type="button" class="primary" data-testid="copy" onClick=${onCopy}>${state === 'copied' ? 'Copied' : 'Copy'}</button>
      ${state === 'failed' ? html`<small class="hint" data-testid="copy-failed">Could not copy: select the text and copy it.</small>` : null}
    </div>
  `;
}
