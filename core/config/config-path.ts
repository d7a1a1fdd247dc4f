// Renders a config path the way a reader of gateway.yaml thinks of it: `channels[2].base_url`.

import type { ConfigPath } from './resolved.js';

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** `['channels', 2, 'base_url']` -> `channels[2].base_url`; names that are not identifiers are quoted. */
export function formatPath(path: ConfigPath): string {
  if (path.length === 0) return '(root)';
  let out = '';
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else if (IDENTIFIER.test(segment)) out += out === '' ? segment : `.${segment}`;
    else out += `[${JSON.stringify(segment)}]`;
  }
  return out;
}
