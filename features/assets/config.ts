// The asset library's settings: which channels hold a library (`assets: true`) and, for Volcengine's, its control
// plane (`control`), by channel name.

import { documentAs, type ConfigSection } from '../../core/config/section.js';
import { slot, type Slot } from '../../core/slot.js';
import type { Channel } from './config.gen.js';
import { ASSETS_CONFIG_SCHEMA } from './config-schema.js';

/** Volcengine's OpenAPI control plane: where its actions go and how they are signed. */
export interface ResolvedControl {
  /** Without a trailing slash. */
  readonly url: string;
  readonly region: string;
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly projectName: string;
  readonly timeoutMs: number;
}

export interface AssetSettings {
  /** The channels holding a library, by name: a volcengine channel's control plane, or none (the mock's store). */
  readonly libraries: ReadonlyMap<string, { readonly control?: ResolvedControl }>;
}

export const ASSET_SETTINGS: Slot<AssetSettings> = slot('asset settings');

function resolveControl(control: NonNullable<Channel['control']>): ResolvedControl {
  return {
    url: control.url.replace(/\/+$/, ''),
    region: control.region,
    accessKeyId: control.access_key_id,
    secretAccessKey: control.secret_access_key,
    projectName: control.project_name ?? 'default',
    timeoutMs: control.timeout_ms ?? 30_000,
  };
}

export const assetsConfig: ConfigSection<AssetSettings> = {
  slot: ASSET_SETTINGS,
  schema: ASSETS_CONFIG_SCHEMA,
  // An asset library is Ark's control plane or the mock's store; `control` means nothing to another type.
  check: (document) =>
    document.channels.flatMap((raw, i) => {
      const channel = raw as Channel & { readonly type?: unknown };
      const issues: { path: (string | number)[]; message: string }[] = [];
      const type = String(channel.type);
      if (channel.control !== undefined && type !== 'volcengine') {
        issues.push({ path: ['channels', i, 'control'], message: `type ${type} has no control plane; only type volcengine takes control` });
      }
      if (channel.assets === true && type !== 'volcengine' && type !== 'mock') {
        issues.push({ path: ['channels', i, 'assets'], message: `type ${type} holds no asset library; assets: true needs type volcengine or mock` });
      }
      if (channel.assets === true && type === 'volcengine' && channel.control === undefined) {
        issues.push({ path: ['channels', i, 'assets'], message: 'assets: true on a volcengine channel needs its control block (url, region, access_key_id, secret_access_key)' });
      }
      return issues;
    }),
  resolve: (document) => {
    // Core's keys of a channel (its name) beside the feature's.
    const channels = documentAs<{ readonly channels: readonly (Channel & { readonly name: string })[] }>(document).channels;
    const libraries = new Map(channels.filter((c) => c.assets === true).map((c) => [c.name, c.control === undefined ? {} : { control: resolveControl(c.control) }] as const));
    return { libraries };
  },
};
