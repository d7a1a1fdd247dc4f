// A route's plugins sorted by phase once per config load, so a request never looks a hook up.

import type { ClientFormat } from '../formats/format.js';
import type { Plugin } from './plugin.js';

type Hook<K extends keyof Plugin> = NonNullable<Plugin[K]>;

export interface Chain {
  readonly route: string;
  readonly format: ClientFormat;
  readonly plugins: readonly Plugin[];
  readonly head: readonly Plugin[];
  readonly request: readonly Plugin[];
  readonly relay: Plugin & { relay: Hook<'relay'> };
  readonly response: readonly Plugin[];
  readonly frame: readonly Plugin[];
  readonly finish: readonly Plugin[];
  /** Answers an upstream took part in carry x-gateway-overhead-ms (server.overhead_header). */
  readonly overheadHeader: boolean;
}
