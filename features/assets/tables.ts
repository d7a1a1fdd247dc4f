// The asset library's tables (migrations.ts makes them): ownership of groups and assets, and the mock's library.

import type { ColumnType } from 'kysely';
import type { EpochMsColumn } from '../../core/store/schema.js';

/** An asset group made through the gateway: who owns it and where it lives. */
export interface AssetGroupsTable {
  /** The library's own id (group-...). */
  id: string;
  channel: string;
  /** The key that owns it: kept when it is unbound (the record of who made it), changed by a rebind. */
  key_id: string;
  account: string | null;
  /** 1: bound to key_id; 0: unbound (its key was revoked), readable by no key until an operator rebinds it. */
  bound: ColumnType<number | string | bigint, number, number>;
  /** As last set through the gateway (Create, Update): what ListAssetGroups filters by Name. */
  name: string;
  created_at: EpochMsColumn;
  updated_at: EpochMsColumn;
}

/** A CreateAssetGroup in flight (or one whose group the store could not record): it counts toward its key's cap. */
export interface AssetGroupSlotsTable {
  id: string;
  key_id: string;
  account: string | null;
  /** The library the create went to: where an operator looks for a group made but not recorded. */
  channel: string;
  created_at: EpochMsColumn;
}

/** An asset registered through the gateway, in one of those groups. */
export interface AssetsTable {
  id: string;
  group_id: string;
  channel: string;
  asset_type: string;
  /** Processing | Active | Failed, as the library last said. */
  status: string;
  created_at: EpochMsColumn;
  updated_at: EpochMsColumn;
}

/** The mock channel's asset library: its groups' and assets' records as a library would keep them (JSON). */
export interface MockAssetRecordsTable {
  id: string;
  channel: string;
  /** group | asset */
  kind: string;
  /** An asset's group; null for a group. */
  group_id: string | null;
  created_at: EpochMsColumn;
  record: string;
}

// A type, not an interface: Kysely's withTables takes a record type.
export type AssetTables = {
  asset_groups: AssetGroupsTable;
  asset_group_slots: AssetGroupSlotsTable;
  assets: AssetsTable;
  mock_asset_records: MockAssetRecordsTable;
};
