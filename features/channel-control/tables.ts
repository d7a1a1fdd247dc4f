// The channel-control feature's table (migrations.ts makes it): one row per channel the operator overrode.

import type { ColumnType } from 'kysely';
import type { EpochMsColumn } from '../../core/store/schema.js';

export interface ChannelOverridesTable {
  /** The channel's name in gateway.yaml (a row for a name no longer configured is kept and ignored). */
  channel: string;
  /** 1: the channel gets no request; 0: enabled (the weight may still be overridden). */
  disabled: ColumnType<number | string | bigint, number, number>;
  /** The weight in force instead of the YAML one; null: the YAML one. */
  weight: ColumnType<number | string | null, number | null, number | null>;
  updated_at: EpochMsColumn;
  /** The console user who made the change (their name). */
  updated_by: string;
}

// A type, not an interface: withTables wants an index signature an interface does not give.
export type ChannelControlTables = {
  channel_overrides: ChannelOverridesTable;
};
