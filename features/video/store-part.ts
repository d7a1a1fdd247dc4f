// The video feature's part of the store: the tasks' table, its migrations and its queries, opened with the store.

import type { StorePart } from '../../core/store/store-part.js';
import { slot, type Slot } from '../../core/slot.js';
import { KyselyVideoTasks } from './kysely-video-tasks.js';
import { videoMigrations } from './migrations.js';
import type { VideoTables } from './tables.js';
import type { VideoTaskStore } from './video-task-store.js';

export const VIDEO_TASKS: Slot<VideoTaskStore> = slot('video tasks');

export const videoStorePart: StorePart<VideoTaskStore> = {
  slot: VIDEO_TASKS,
  migrations: videoMigrations,
  open: (db, dialect) => new KyselyVideoTasks(db.withTables<VideoTables>(), dialect),
};
