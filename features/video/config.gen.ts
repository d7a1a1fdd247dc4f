// Generated from features/video/config-schema.ts by `npm run gen`; do not edit. Change the schema and regenerate.

export interface VideoConfig {
  video?: Video;
}
/**
 * Video tasks (/v1/videos, /v1/video/generations): how unfinished tasks are polled and when they expire.
 */
export interface Video {
  /**
   * How soon after submission a task is first read from its upstream; each later read waits half as long again, up to max_poll_interval_ms.
   */
  poll_interval_ms?: number;
  /**
   * The longest wait between two reads of an unfinished task.
   */
  max_poll_interval_ms?: number;
  /**
   * A client's GET of an unfinished task not read for this long reads it from its upstream at once.
   */
  refresh_after_ms?: number;
  /**
   * A task its upstream has not finished this long after submission expires: it is charged nothing and its reservation is released (Ark's own default is 48 h).
   */
  task_timeout_ms?: number;
}
