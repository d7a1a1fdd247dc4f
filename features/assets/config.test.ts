// The asset library's channel keys: `assets` and `control`, checked beyond the schema and resolved by channel name.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseConfig } from '../../core/config/load.js';
import { ConfigError } from '../../core/config/resolved.js';
import { sectionOf } from '../../core/config/section.js';
import { registryOf } from '../../core/feature/compose.js';
import { assetsFeature } from './index.js';
import { ASSET_SETTINGS } from './config.js';

const parse = (text: string) => parseConfig(text, { file: null, env: {}, endpoints: registryOf([assetsFeature]) });
const CONTROL = '{ url: "https://ark.example.com/", region: cn-beijing, access_key_id: AK, secret_access_key: SK }';

describe('assets config section', () => {
  it('lists the channels holding a library, with a volcengine one\'s control plane', () => {
    const config = parse(`channels:
  - { name: ark, type: volcengine, base_url: "https://ark.example.com", keys: [k], models: ["*"], assets: true, control: ${CONTROL} }
  - { name: demo, type: mock, models: ["*"], assets: true }
  - { name: plain, type: mock, models: ["*"] }
`);
    const { libraries } = sectionOf(config, ASSET_SETTINGS);
    assert.deepEqual([...libraries.keys()], ['ark', 'demo']);
    assert.deepEqual(libraries.get('ark')?.control, { url: 'https://ark.example.com', region: 'cn-beijing', accessKeyId: 'AK', secretAccessKey: 'SK', projectName: 'default', timeoutMs: 30_000 });
    assert.equal(libraries.get('demo')?.control, undefined);
  });

  it('refuses a library where no type keeps one, and a volcengine library without its control plane', () => {
    assert.throws(
      () => parse(`channels:
  - { name: oa, type: openai, base_url: "https://api.example.com", keys: [k], models: ["*"], assets: true, control: ${CONTROL} }
  - { name: ark, type: volcengine, base_url: "https://ark.example.com", keys: [k], models: ["*"], assets: true }
`),
      (err: unknown) => {
        assert.ok(err instanceof ConfigError);
        const text = err.issues.join('\n');
        assert.match(text, /channels\[0\]\.control: type openai has no control plane/);
        assert.match(text, /channels\[0\]\.assets: type openai holds no asset library/);
        assert.match(text, /channels\[1\]\.assets: assets: true on a volcengine channel needs its control block/);
        return true;
      },
    );
  });
});
