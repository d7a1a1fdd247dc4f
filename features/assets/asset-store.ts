// Who owns what in the asset library: the groups made through the gateway (each owned by one key, bound to it until
// that key is revoked) and the assets registered in them. The library itself (Volcengine's, or the mock's below)
// holds the records; this holds what the gateway must decide alone: ownership, for isolation between keys.

export interface AssetGroupRow {
  readonly id: string;
  readonly channel: string;
  readonly keyId: string;
  readonly account: string | null;
  /** False once its key was revoked: no key reads it until an operator rebinds it. */
  readonly bound: boolean;
  readonly name: string;
  readonly createdAt: number;
  readonly updatedAt: number;
}

export type AssetStatus = 'Processing' | 'Active' | 'Failed';

export interface AssetRow {
  readonly id: string;
  readonly groupId: string;
  readonly channel: string;
  readonly assetType: string;
  readonly status: AssetStatus;
  readonly createdAt: number;
  readonly updatedAt: number;
}

/** Who holds groups: a key, while it is of the groups' account (a declared key may be declared again for another). */
export interface GroupOwner {
  readonly keyId: string;
  readonly account: string | null;
}

/** What a key's group list is narrowed to. */
export interface GroupQuery {
  /** Only these ids (Filter.GroupIds); absent: every group of the key. */
  readonly ids?: readonly string[];
  /** Groups whose name holds this text. */
  readonly name?: string;
  readonly sortBy: 'CreateTime' | 'UpdateTime';
  readonly ascending: boolean;
  readonly offset: number;
  readonly limit: number;
}

/** One record of the mock channel's library (a group or an asset, as Volcengine's records read). */
export interface MockAssetRecord {
  readonly id: string;
  readonly channel: string;
  readonly kind: 'group' | 'asset';
  readonly groupId: string | null;
  readonly createdAt: number;
  readonly record: Readonly<Record<string, unknown>>;
}

export interface MockRecordQuery {
  readonly channel: string;
  readonly kind: 'group' | 'asset';
  /** Only records in these groups (assets) or with these ids (groups); absent: all of the channel's. */
  readonly ids?: readonly string[];
  readonly offset: number;
  readonly limit: number;
}

export interface AssetStore {
  /**
   * Takes one of `owner`'s `cap` group slots for a create about to go to `channel`'s library: false when its bound
   * groups and the slots it holds already make `cap`. Counted and taken in one transaction under a lock of the key's,
   * so that creates in parallel, on any instance, never pass the cap.
   */
  takeGroupSlot(owner: GroupOwner, slot: string, channel: string, cap: number, at: number): Promise<boolean>;
  /** Gives a slot back: its create made no group. */
  releaseGroupSlot(slot: string): Promise<void>;
  /** Records a group; with `slot`, the slot its create held becomes the group, in the same transaction. */
  addGroup(row: AssetGroupRow, slot?: string): Promise<void>;
  group(id: string): Promise<AssetGroupRow | undefined>;
  /** A rename through the gateway (UpdateAssetGroup). */
  renameGroup(id: string, name: string, at: number): Promise<void>;
  /** The groups bound to a key, paged, and how many match in all. */
  keyGroups(owner: GroupOwner, query: GroupQuery): Promise<{ readonly rows: readonly AssetGroupRow[]; readonly total: number }>;
  /** Every group bound to a key (id and channel), for forcing a list's GroupIds filter to the caller's own. */
  boundGroupIds(owner: GroupOwner): Promise<readonly { readonly id: string; readonly channel: string }[]>;
  /** Binds a group to a key (a rotation: the operator moves an account's groups to its new key). */
  bindGroup(id: string, keyId: string, at: number): Promise<void>;
  addAsset(row: AssetRow): Promise<void>;
  asset(id: string): Promise<AssetRow | undefined>;
  /** Those of `ids` the store knows (a list's page: at most 100). */
  assetsByIds(ids: readonly string[]): Promise<readonly AssetRow[]>;
  /** The library's latest word on an asset's status. */
  setAssetStatus(id: string, status: AssetStatus, at: number): Promise<void>;
  /** An account's groups (bound or not), newest first, for the console; `keyId` narrows to one key's. */
  accountGroups(account: string | null, page: { readonly offset: number; readonly limit: number; readonly keyId?: string }): Promise<{
    readonly rows: readonly AssetGroupRow[];
    readonly total: number;
  }>;
  /** The assets of some groups, newest first, at most `limit`. */
  groupAssets(groupIds: readonly string[], limit: number): Promise<readonly AssetRow[]>;
  /** The mock channel's library. */
  readonly mock: {
    put(record: MockAssetRecord): Promise<void>;
    get(channel: string, id: string): Promise<MockAssetRecord | undefined>;
    list(query: MockRecordQuery): Promise<{ readonly rows: readonly MockAssetRecord[]; readonly total: number }>;
  };
}
