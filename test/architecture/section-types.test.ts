// Each feature's config.gen.ts must be what `npm run gen` makes of its config-schema.ts, and its defaults the schema's.

import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { describe, it } from 'node:test';
import { renderFromRepo } from '../../scripts/gen-section-types.js';
import { VIDEO_CONFIG_SCHEMA } from '../../features/video/config-schema.js';
import { VIDEO_DEFAULTS } from '../../features/video/config.js';

describe('features config.gen.ts', () => {
  it('is current with each feature config-schema.ts', async () => {
    const rendered = await renderFromRepo();
    assert.ok(rendered.length >= 2, 'video and assets have config sections');
    for (const { path, text } of rendered) assert.equal(await readFile(path, 'utf8'), text, `${path} is stale: run \`npm run gen\``);
  });

  it('video defaults match the schema defaults', () => {
    const video = VIDEO_CONFIG_SCHEMA.definitions.Video.properties;
    assert.equal(VIDEO_DEFAULTS.pollIntervalMs, video.poll_interval_ms.default);
    assert.equal(VIDEO_DEFAULTS.maxPollIntervalMs, video.max_poll_interval_ms.default);
    assert.equal(VIDEO_DEFAULTS.refreshAfterMs, video.refresh_after_ms.default);
    assert.equal(VIDEO_DEFAULTS.taskTimeoutMs, video.task_timeout_ms.default);
  });
});
