// What the console shows of the running config (core/config/redact-config.ts): every place a secret can sit in
// gateway.yaml comes out replaced, and what is not secret comes out as written.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parse } from 'yaml';
import { redactConfig } from '../../../core/config/redact-config.js';

const SECRETS = [
  'hunter2-admin-token-value',
  'metrics-token-value-77',
  'pgpassword99',
  'redispass42',
  'sk-upstream-1234567890abcdef',
  'plain-upstream-key-without-prefix',
  'Bearer abc.def.ghi',
  'azure-api-key-value',
  'url-user-token-555',
  'AIzaGoogleKey123',
  'sas-signature-xyz',
  'AKLT-access-key-id',
  'volc-secret-access-key',
  'sk-declared-key-0123456789',
  'anchored-secret-value',
  'old-commented-secret',
  'plugin-webhook-secret',
];

const CONFIG = `# top comment
server:
  admin_token: hunter2-admin-token-value
  metrics_token: metrics-token-value-77
store:
  url: postgres://gateway:pgpassword99@db:5432/gw
redis:
  url: redis://:redispass42@cache:6379
note: &shared anchored-secret-value
channels:
  - name: openai
    type: openai
    base_url: https://api.openai.com/v1
    keys: ["sk-upstream-1234567890abcdef", "plain-upstream-key-without-prefix", "\${OPENAI_KEY}"]
    headers:
      Authorization: Bearer abc.def.ghi
      api-key: azure-api-key-value
      x-team: research
  - name: proxied
    type: openai
    base_url: https://url-user-token-555@proxy.example.com/v1?key=AIzaGoogleKey123&sig=sas-signature-xyz&region=eu
    keys: [*shared]
    control:
      access_key_id: AKLT-access-key-id
      secret_access_key: volc-secret-access-key
      region: cn-beijing
# old: admin_token: old-commented-secret
keys:
  - name: demo
    key: sk-declared-key-0123456789
    group: default
routes:
  - path: /v1/chat/completions
    plugins:
      - use: auth
      - use: relay
        with: { webhook_token: plugin-webhook-secret, retries: 2 }
groups:
  default: { models: ["*"], limits: { rpm: 60, tpm: 100000 } }
  byo-key: { models: ["gpt-4o"] }
accounts: [{ name: research, groups: [byo-key] }]
pricing:
  models:
    "api-key-model": { input: 1, output: 2 }
`;

test('every secret of the file is replaced, whatever the field, alias, comment or URL part it is in', () => {
  const shown = redactConfig(CONFIG);
  for (const secret of SECRETS) assert.ok(!shown.includes(secret), `${secret} is shown:\n${shown}`);
});

test('what is not secret is shown as written: names, models, limits, regions, env references, plain URLs', () => {
  const shown = parse(redactConfig(CONFIG)) as {
    server: { admin_token: string };
    store: { url: string };
    channels: { name: string; base_url: string; keys: string[]; headers?: Record<string, string>; control?: Record<string, string> }[];
    keys: { name: string; key: string; group: string }[];
    groups: { default: { limits: { rpm: number } } };
  };
  assert.equal(shown.server.admin_token, '***redacted***');
  assert.equal(shown.store.url, 'postgres://***:***@db:5432/gw');
  const [openai, proxied] = shown.channels;
  assert.equal(openai?.base_url, 'https://api.openai.com/v1');
  assert.deepEqual(openai?.keys, ['***redacted***', '***redacted***', '${OPENAI_KEY}']);
  assert.equal(openai?.headers?.['x-team'], '***redacted***', 'every header value: any may be a credential');
  assert.equal(proxied?.base_url, 'https://***@proxy.example.com/v1?key=***&sig=***&region=eu');
  assert.equal(proxied?.control?.['region'], 'cn-beijing');
  assert.deepEqual(shown.keys, [{ name: 'demo', key: '***redacted***', group: 'default' }]);
  assert.equal(shown.groups.default.limits.rpm, 60);
  // Names the operator chose are names, not fields: a group `byo-key`, a model `api-key-model`; and a value that
  // sits under a secret's name somewhere else (the header `x-team: research`) stays where it is not a secret.
  assert.deepEqual((shown.groups as unknown as Record<string, { models: string[] }>)['byo-key']?.models, ['gpt-4o']);
  assert.deepEqual((shown as unknown as { accounts: { name: string }[] }).accounts[0]?.name, 'research');
  assert.ok(redactConfig(CONFIG).includes('api-key-model:'));
  assert.match(redactConfig('routes:\n  - path: /v1/models\n    plugins:\n      - use: auth\n        with: { credential: key }\n'), /credential: key/);
  assert.ok(!redactConfig(CONFIG).includes('#'), 'no comments');
});
