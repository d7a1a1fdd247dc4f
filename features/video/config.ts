// The video feature's settings: how unfinished tasks are polled and when they expire (gateway.yaml's `video:`).

import { documentAs, type ConfigSection } from '../../core/config/section.js';
import { slot, type Slot } from '../../core/slot.js';
import type { VideoConfig } from './config.gen.js';
import { VIDEO_CONFIG_SCHEMA } from './config-schema.js';

export interface VideoSettings {
  readonly pollIntervalMs: number;
  readonly maxPollIntervalMs: number;
  readonly refreshAfterMs: number;
  readonly taskTimeoutMs: number;
}

/** The schema's defaults (test/architecture/section-types.test.ts holds them equal). */
export const VIDEO_DEFAULTS: VideoSettings = { pollIntervalMs: 5_000, maxPollIntervalMs: 60_000, refreshAfterMs: 1_000, taskTimeoutMs: 172_800_000 };

export const VIDEO_SETTINGS: Slot<VideoSettings> = slot('video settings');

export const videoConfig: ConfigSection<VideoSettings> = {
  slot: VIDEO_SETTINGS,
  schema: VIDEO_CONFIG_SCHEMA,
  resolve: (document) => {
    const video = documentAs<VideoConfig>(document).video;
    return {
      pollIntervalMs: video?.poll_interval_ms ?? VIDEO_DEFAULTS.pollIntervalMs,
      maxPollIntervalMs: video?.max_poll_interval_ms ?? VIDEO_DEFAULTS.maxPollIntervalMs,
      refreshAfterMs: video?.refresh_after_ms ?? VIDEO_DEFAULTS.refreshAfterMs,
      taskTimeoutMs: video?.task_timeout_ms ?? VIDEO_DEFAULTS.taskTimeoutMs,
    };
  },
};
