// ${VAR} substitution: several per string, the $${ escape, empty values, and where it does not apply.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { substitute } from '../../../core/config/interpolate.js';
import { parse, yaml } from './config-helpers.js';

describe('substitute', () => {
  it('replaces several variables anywhere in a string', () => {
    assert.deepEqual(substitute('${A}-mid-${B}${A}', { A: 'x', B: 'y' }), {
      value: 'x-mid-yx',
      missing: [],
      malformed: false,
    });
  });

  it('turns $${ into a literal ${ and leaves what follows alone', () => {
    assert.deepEqual(substitute('cost $${HOME} and ${A}', { A: 'a', HOME: '/root' }), {
      value: 'cost ${HOME} and a',
      missing: [],
      malformed: false,
    });
  });

  it('accepts a variable that is set but empty', () => {
    assert.equal(substitute('[${EMPTY}]', { EMPTY: '' }).value, '[]');
  });

  it('lists each unset variable once and keeps it as written', () => {
    assert.deepEqual(substitute('${X}${Y}${X}', {}), { value: '${X}${Y}${X}', missing: ['X', 'Y'], malformed: false });
  });

  it('flags references that are not ${NAME}', () => {
    assert.equal(substitute('${1A}', {}).malformed, true);
    assert.equal(substitute('${', {}).malformed, true);
    assert.equal(substitute('$ and $A and {B}', {}).malformed, false);
  });
});

describe('interpolation in a config', () => {
  const text = yaml(
    'server:',
    '  host: "${HOST}"',
    '  admin_token: "${ADMIN_PREFIX}-${ADMIN_SUFFIX}"',
    'channels:',
    '  - name: up',
    '    type: openai',
    '    base_url: "https://${UPSTREAM_HOST}/v1"',
    '    keys: ["${EMPTY}"]',
    '    models: ["$${literal}"]',
    '    headers:',
    '      "${NOT_A_VAR}": "${TEAM}"',
  );
  const env = {
    HOST: '127.0.0.1',
    ADMIN_PREFIX: 'admin-token',
    ADMIN_SUFFIX: 'abcdef',
    UPSTREAM_HOST: 'llm.example.com',
    EMPTY: '',
    TEAM: 'core',
  };

  it('substitutes string values before validation', () => {
    const config = parse(text, env);
    assert.equal(config.server.host, '127.0.0.1');
    assert.equal(config.server.adminToken, 'admin-token-abcdef');
    const [up] = config.channels;
    assert.equal(up?.baseUrl, 'https://llm.example.com/v1');
    assert.deepEqual(up?.keys, ['']);
    assert.deepEqual(up?.models.patterns, ['${literal}']);
  });

  it('leaves map keys as written', () => {
    assert.deepEqual(parse(text, env).channels[0]?.headers, { '${NOT_A_VAR}': 'core' });
  });

  it('leaves non-string scalars alone', () => {
    const config = parse(yaml('server: {port: 9000}', 'channels: [{name: m, type: mock, models: [x]}]'), {});
    assert.equal(config.server.port, 9000);
  });
});
