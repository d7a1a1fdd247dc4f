// The video feature's `video:` keys: validated with core's schema, resolved under its slot, defaults filled in.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseConfig } from '../../core/config/load.js';
import { ConfigError } from '../../core/config/resolved.js';
import { sectionOf } from '../../core/config/section.js';
import { registryOf } from '../../core/feature/compose.js';
import { videoFeature } from './index.js';
import { VIDEO_DEFAULTS, VIDEO_SETTINGS } from './config.js';

const CHANNELS = 'channels:\n  - { name: demo, type: mock, models: ["*"] }\n';
const parse = (text: string) => parseConfig(text, { file: null, env: {}, endpoints: registryOf([videoFeature]) });

describe('video config section', () => {
  it('resolves the written keys and fills the rest with the defaults', () => {
    const config = parse(`${CHANNELS}video:\n  poll_interval_ms: 250\n  task_timeout_ms: 60000\n`);
    assert.deepEqual(sectionOf(config, VIDEO_SETTINGS), Object.assign({}, VIDEO_DEFAULTS, { pollIntervalMs: 250, taskTimeoutMs: 60_000 }));
    assert.deepEqual(sectionOf(parse(CHANNELS), VIDEO_SETTINGS), VIDEO_DEFAULTS);
  });

  it('is validated with the rest of the file: every problem at once, at its line', () => {
    assert.throws(
      () => parse(`${CHANNELS}video:\n  poll_interval_ms: 5\n  knob: 1\nserver:\n  port: -1\n`),
      (err: unknown) => {
        assert.ok(err instanceof ConfigError);
        const text = err.issues.join('\n');
        assert.match(text, /video\.poll_interval_ms/);
        assert.match(text, /video.*knob/);
        assert.match(text, /server\.port/);
        return true;
      },
    );
  });
});
