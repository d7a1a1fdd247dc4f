// A page's root: data-testid="page-<name>" and data-ready ("true" once its data is in, "false" while loading), which
// browser tests wait on; data-loads counts finished loads, so a test can also wait for a background refresh.

import type { ComponentChildren } from 'preact';
import { html } from './html.js';

export interface PageFrameProps {
  readonly name: string;
  readonly title: string;
  readonly ready: boolean;
  readonly loads?: number;
  /** Controls beside the title (an account selector, a refresh button). */
  readonly tools?: ComponentChildren;
  readonly children?: ComponentChildren;
}

export function PageFrame(props: PageFrameProps) {
  return html`
    <section class="page" data-testid=${`page-${props.name}`} data-ready=${props.ready ? 'true' : 'false'} data-loads=${props.loads ?? 0}>
      <div class="page-head">
        <h1>${props.title}</h1>
        ${props.tools === undefined ? null : html`<div class="tools">${props.tools}</div>`}
      </div>
      ${props.children}
    </section>
  `;
}
