// The video feature's migrations: named into core's one history (their names keep the order they were applied in before the features
// owned them; Kysely refuses a history whose names changed).

import type { Kysely, Migration } from 'kysely';
import { addMissingColumns, renameColumnIfPresent, type StoreDialect } from '../../core/store/migrations.js';

export function videoMigrations(dialect: StoreDialect): Record<string, Migration> {
  return {
    '0013_video_tasks': {
      // Video tasks (store/video-task-store.ts): one row per task from its submission to its settlement, with the
      // lease that lets one instance at a time poll it.
      async up(db: Kysely<unknown>): Promise<void> {
        await db.schema
          .createTable('video_tasks')
          .ifNotExists()
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('key_id', 'text', (c) => c.notNull())
          .addColumn('key_name', 'text', (c) => c.notNull())
          .addColumn('account', 'text')
          .addColumn('group_name', 'text', (c) => c.notNull())
          .addColumn('channel', 'text', (c) => c.notNull())
          .addColumn('upstream_id', 'text')
          .addColumn('model', 'text', (c) => c.notNull())
          .addColumn('upstream_model', 'text', (c) => c.notNull())
          .addColumn('shape', 'text', (c) => c.notNull())
          .addColumn('status', 'text', (c) => c.notNull())
          .addColumn('progress', 'integer', (c) => c.notNull())
          .addColumn('prompt', 'text')
          .addColumn('seconds', 'integer')
          .addColumn('size', 'text')
          .addColumn('result_url', 'text')
          .addColumn('error_code', 'text')
          .addColumn('error_message', 'text')
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          .addColumn('updated_at', 'bigint', (c) => c.notNull())
          .addColumn('completed_at', 'bigint')
          .addColumn('expires_at', 'bigint', (c) => c.notNull())
          .addColumn('reserved', 'bigint', (c) => c.notNull())
          .addColumn('holds', 'text', (c) => c.notNull())
          // A long video's token count is past what a small integer is sure to hold everywhere.
          .addColumn('total_tokens', 'bigint')
          .addColumn('cost', 'bigint')
          .addColumn('settled_at', 'bigint')
          .addColumn('next_poll_at', 'bigint', (c) => c.notNull())
          .addColumn('polls', 'integer', (c) => c.notNull())
          .addColumn('lease_owner', 'text')
          .addColumn('lease_until', 'bigint')
          .addColumn('key_fingerprint', 'text')
          .addColumn('recorded_at', 'bigint')
          .addColumn('price_version', 'text')
          .execute();
        // A key's list pages by (created_at, id); the console lists an account's newest first; pollers look for the
        // unsettled tasks that are due; the recorder looks for the settled tasks whose usage record is not written
        // (recorded_at null), oldest settled first.
        await db.schema.createIndex('video_tasks_key_idx').ifNotExists().on('video_tasks').columns(['key_id', 'created_at', 'id']).execute();
        await db.schema.createIndex('video_tasks_account_idx').ifNotExists().on('video_tasks').columns(['account', 'created_at']).execute();
        await db.schema.createIndex('video_tasks_due_idx').ifNotExists().on('video_tasks').columns(['settled_at', 'next_poll_at']).execute();
        await db.schema.createIndex('video_tasks_unrecorded_idx').ifNotExists().on('video_tasks').columns(['recorded_at', 'settled_at']).execute();
        // A succeeded task's record counts the seconds of video it made (charged at a model's per_second).
        await addMissingColumns(db, dialect, 'usage_records', [['video_seconds', 'integer']]);
      },
    },
    '0016_video_seconds_renamed': {
      // The seconds a record is charged at per_second are any timed output's (a video's today, speech's tomorrow):
      // the column carries no feature's name.
      async up(db: Kysely<unknown>): Promise<void> {
        await renameColumnIfPresent(db, dialect, 'usage_records', 'video_seconds', 'seconds');
      },
    },
  };
}
