// The images feature's settings: each channel's caps on the images one request may ask of it (`images.max_n`).

import { documentAs, type ConfigSection } from '../../core/config/section.js';
import { compileGlob } from '../../core/routing/glob.js';
import { slot, type Slot } from '../../core/slot.js';
import type { Channel } from './config.gen.js';
import { IMAGES_CONFIG_SCHEMA } from './config-schema.js';

export interface ImageCap {
  /** A model glob (`*` for a cap written as one number), matched against the client's model name. */
  readonly models: string;
  readonly matches: (model: string) => boolean;
  readonly maxN: number;
}

export interface ImageSettings {
  /** `images.max_n` by channel name: caps by model glob, first match first; a channel without one caps nothing. */
  readonly caps: ReadonlyMap<string, readonly ImageCap[]>;
}

export const IMAGE_SETTINGS: Slot<ImageSettings> = slot('image settings');

function capsOf(maxN: number | Readonly<Record<string, number | undefined>>): ImageCap[] {
  const caps = typeof maxN === 'number' ? [['*', maxN] as const] : Object.entries(maxN).flatMap(([models, cap]) => (cap === undefined ? [] : [[models, cap] as const]));
  return caps.map(([models, cap]) => ({ models, matches: compileGlob(models), maxN: cap }));
}

export const imagesConfig: ConfigSection<ImageSettings> = {
  slot: IMAGE_SETTINGS,
  schema: IMAGES_CONFIG_SCHEMA,
  resolve: (document) => {
    // Core's keys of a channel (its name) beside the feature's.
    const channels = documentAs<{ readonly channels: readonly (Channel & { readonly name: string })[] }>(document).channels;
    return { caps: new Map(channels.flatMap((c) => (c.images?.max_n === undefined ? [] : [[c.name, capsOf(c.images.max_n)] as const]))) };
  },
};
