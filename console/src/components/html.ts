// htm bound to Preact's h: tagged templates instead of JSX, so the sources need no JSX transform. htm escapes every
// interpolated value as text (it builds elements, never HTML strings), which is what keeps user text inert.

import { h, type VNode } from 'preact';
import htm from 'htm';

type Template = (strings: TemplateStringsArray, ...values: unknown[]) => VNode;
type CreateElement = (type: unknown, props: Record<string, unknown> | null, ...children: unknown[]) => VNode;

// htm answers an array for a template with several roots; every template here has one root, so the type says VNode.
export const html = htm.bind(h as CreateElement) as Template;
