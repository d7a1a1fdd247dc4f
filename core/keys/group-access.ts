// Which models a key group may call: the group globs, compiled once per config load.

import type { ResolvedGroup } from '../config/resolved.js';
import { compileGlobs, type ModelMatcher } from '../routing/glob.js';

export class GroupAccess {
  private readonly groups: ReadonlyMap<string, ModelMatcher>;

  constructor(groups: ReadonlyMap<string, ResolvedGroup>) {
    this.groups = new Map([...groups].map(([name, group]) => [name, compileGlobs(group.models)]));
  }

  /** False for a group the config no longer has (a run-time key may outlive its group). */
  allows(group: string, model: string): boolean {
    return this.groups.get(group)?.(model) ?? false;
  }
}
