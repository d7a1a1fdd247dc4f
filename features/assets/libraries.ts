// The channels that hold an asset library (`assets: true`), one library each, for one config load. A new group goes
// to the first healthy one by priority; after that every call about the group goes to the channel its record names.
// A library's health is its own (`asset:<channel>` in the process's ChannelHealth): a control plane that fails must
// not take the channel's data plane out of model routing, nor the reverse.

import type { ResolvedChannel } from '../../core/config/resolved.js';
import type { ChannelHealth } from '../../core/routing/health.js';
import type { ChannelOverrides } from '../../core/routing/overrides.js';
import type { AssetLibrary } from './library.js';
import type { AssetSettings, ResolvedControl } from './config.js';

export interface LibraryChannel {
  readonly name: string;
  readonly priority: number;
  readonly cooldownMs: number;
  readonly library: AssetLibrary;
  /**
   * What of the operator's must never reach a caller: the channel's data-plane keys (Ark's API keys), the control
   * plane's AK/SK and the project name (an upstream error message may name them, whole, cut short or encoded); the
   * asset library route scrubs answers of them.
   */
  readonly secrets: readonly string[];
}

function healthName(channel: LibraryChannel): string {
  return `asset:${channel.name}`;
}

/** A channel's library, from the channel and its control plane (none: the mock's store). */
export type LibraryFactory = (channel: ResolvedChannel, control: ResolvedControl | undefined) => AssetLibrary;

export class AssetLibraries {
  readonly #channels: readonly LibraryChannel[];
  readonly #health: ChannelHealth;
  readonly #overrides: ChannelOverrides | null;

  /** `overrides`: the operator's run-time ones (channel control); a channel disabled there takes no new group. */
  constructor(channels: readonly ResolvedChannel[], settings: AssetSettings, create: LibraryFactory, health: ChannelHealth, overrides: ChannelOverrides | null = null) {
    // Higher priority first; file order within a tier (stable sort).
    this.#channels = channels
      .flatMap((c) => {
        const library = settings.libraries.get(c.name);
        return library === undefined ? [] : [{ channel: c, control: library.control }];
      })
      .map(({ channel: c, control }) => ({
        name: c.name,
        priority: c.priority,
        cooldownMs: c.cooldownMs,
        library: create(c, control),
        secrets: [...c.keys, ...(control === undefined ? [] : [control.accessKeyId, control.secretAccessKey, control.projectName])].filter((s) => s.length >= 3 && s !== 'default'),
      }))
      .sort((a, b) => b.priority - a.priority);
    this.#health = health;
    this.#overrides = overrides;
  }

  byName(name: string): LibraryChannel | undefined {
    return this.#channels.find((c) => c.name === name);
  }

  /**
   * Where a new group goes: the first healthy channel by priority, else the first (every one cooling: try anyway).
   * Never one the operator disabled: its tasks could not run there (routing leaves it out), and a group's tasks are
   * pinned to the group's channel. Calls about an existing group stay on its channel (byName) whatever its state.
   */
  forNewGroup(): LibraryChannel | undefined {
    const snapshot = this.#overrides?.snapshot;
    const open = snapshot === undefined || snapshot.size === 0 ? this.#channels : this.#channels.filter((c) => snapshot.get(c.name)?.disabled !== true);
    return open.find((c) => !this.#health.isCooling(healthName(c))) ?? open[0];
  }

  /** Some channel holds a library (forNewGroup's undefined then means every one is disabled by the operator). */
  get configured(): boolean {
    return this.#channels.length > 0;
  }

  /** A library that did not answer (or answered 5xx) cools down, so new groups go elsewhere meanwhile. */
  failed(channel: LibraryChannel): void {
    this.#health.markFailure(healthName(channel), channel.cooldownMs);
  }

  async close(): Promise<void> {
    await Promise.all(this.#channels.map((c) => c.library.close()));
  }
}
