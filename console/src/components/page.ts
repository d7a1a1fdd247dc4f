// A page's root: data-testid="page-<name>" and data-ready ("true" once its data is in, "false" while loading), which
// browser tests wait on; data-loads counts finished loads, so a test can also wait for a background refresh. Its
// heading takes the focus when the page opens (a navigation), so a screen reader starts there and Tab goes on from it.

import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
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
  const heading = useRef<HTMLHeadingElement | null>(null);
  useEffect(() => heading.current?.focus({ preventScroll: true }), []);
  return html`
    <section class="page" data-testid=${`page-${props.name}`} data-ready=${props.ready ? 'true' : 'false'} data-loads=${props.loads ?? 0}>
      <div class="page-head">
        <h1 ref=${heading} tabindex="-1" data-testid="page-heading">${props.title}</h1>
        ${props.tools === undefined ? null : html`<div class="tools">${props.tools}</div>`}
      </div>
      ${props.children}
    </section>
  `;
}
