// The channels that hold an asset library (`assets: true`), one library each, for one config load. A new group goes
// to the first healthy one by priority (or stays with the key's other groups); after that every call about the group
// goes to the channel its record names.

import type { ResolvedChannel } from '../config/resolved.js';
import type { ChannelHealth } from '../routing/health.js';
import type { AssetLibrary } from './library.js';

export interface LibraryChannel {
  readonly name: string;
  readonly priority: number;
  readonly cooldownMs: number;
  readonly library: AssetLibrary;
  /**
   * What of the operator's must never reach a caller: the AK and the project name (an upstream error message may
   * name them); the asset-store plugin scrubs answers of them.
   */
  readonly secrets: readonly string[];
}

export type LibraryFactory = (channel: ResolvedChannel) => AssetLibrary;

export class AssetLibraries {
  readonly #channels: readonly LibraryChannel[];
  readonly #health: ChannelHealth;

  constructor(channels: readonly ResolvedChannel[], create: LibraryFactory, health: ChannelHealth) {
    // Higher priority first; file order within a tier (stable sort).
    this.#channels = channels
      .filter((c) => c.assets)
      .map((c) => ({
        name: c.name,
        priority: c.priority,
        cooldownMs: c.cooldownMs,
        library: create(c),
        secrets: c.control === undefined ? [] : [c.control.accessKeyId, c.control.projectName].filter((s) => s.length >= 3 && s !== 'default'),
      }))
      .sort((a, b) => b.priority - a.priority);
    this.#health = health;
  }

  /** Whether any channel holds a library. */
  get any(): boolean {
    return this.#channels.length > 0;
  }

  byName(name: string): LibraryChannel | undefined {
    return this.#channels.find((c) => c.name === name);
  }

  /** Where a new group goes: the first healthy channel by priority, else the first (every one cooling: try anyway). */
  forNewGroup(): LibraryChannel | undefined {
    return this.#channels.find((c) => !this.#health.isCooling(c.name)) ?? this.#channels[0];
  }

  /** A library that did not answer (or answered 5xx) cools down, so new groups go elsewhere meanwhile. */
  failed(channel: LibraryChannel): void {
    this.#health.markFailure(channel.name, channel.cooldownMs);
  }

  async close(): Promise<void> {
    await Promise.all(this.#channels.map((c) => c.library.close()));
  }
}
