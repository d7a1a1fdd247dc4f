// Start-up warns when gateway.yaml holds secrets and every user of the machine may read it (mode o+r): one warning
// naming the file and the fix (chmod 600), and the gateway still starts and serves. No warning for a file only its
// owner reads, nor for one whose secrets are all `${VAR}` references.

import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import pino from 'pino';
import { TEST_KEY, configWith, startGatewayUnderTest } from '../helpers/gateway-under-test.js';

const MOCK = `  - { name: mock, type: mock, models: ["demo-*"] }
`;

/** A config whose only secrets are environment references. */
const FROM_ENV = `server: { port: 0, host: 127.0.0.1, admin_token: "\${GW_MODE_TEST_ADMIN}" }
store: { url: "sqlite:./gateway.db" }
channels:
  - { name: upstream, type: openai, base_url: "https://user:\${GW_MODE_TEST_PASSWORD}@api.example.com", keys: ["\${GW_MODE_TEST_UPSTREAM}"], models: ["gpt-*"], models_refresh_ms: 0 }
  - { name: mock, type: mock, models: ["demo-*"] }
groups: { pro: { models: ["*"] } }
keys:
  - { name: tester, key: "\${GW_MODE_TEST_KEY}", group: pro }
`;

interface Started {
  readonly warnings: readonly { file?: string; msg: string }[];
  readonly configPath: string;
}

/** Starts a gateway on `yaml` with the file at `mode`, checks it serves, and returns what it warned at start. */
async function start(yaml: string, mode: number): Promise<Started> {
  const lines: { level: number; msg: string; file?: string }[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line) as { level: number; msg: string });
      done();
    },
  });
  const gw = await startGatewayUnderTest(yaml, { logger: pino({ level: 'info' }, sink), configMode: mode });
  try {
    // A warning, not a refusal: the gateway serves.
    const res = await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'demo-chat', messages: [{ role: 'user', content: 'hi' }] }),
    });
    await res.arrayBuffer();
    if (yaml.includes(TEST_KEY)) assert.equal(res.status, 200);
    return { warnings: lines.filter((l) => l.level === 40), configPath: gw.configPath };
  } finally {
    await gw.stop();
  }
}

const exposedWarning = (started: Started): { file?: string; msg: string } | undefined => started.warnings.find((w) => w.msg.includes('readable by every user'));

describe('start-up: a config file with secrets in it, readable by everyone', () => {
  it('mode 0644 with a key written in the file: a warning naming the file and chmod 600; the key itself never', async () => {
    const started = await start(configWith(MOCK), 0o644);
    const warning = exposedWarning(started);
    assert.ok(warning !== undefined, JSON.stringify(started.warnings));
    assert.equal(warning.file, started.configPath);
    assert.ok(warning.msg.includes(started.configPath), warning.msg);
    assert.ok(warning.msg.includes(`chmod 600 ${started.configPath}`), warning.msg);
    assert.ok(warning.msg.includes('mode 644'), warning.msg);
    assert.ok(!JSON.stringify(started.warnings).includes(TEST_KEY), 'the warning names no secret');
  });

  it('mode 0604 (others read, group not): warned too', async () => {
    assert.ok(exposedWarning(await start(configWith(MOCK), 0o604)) !== undefined);
  });

  it('mode 0600 or 0640: no warning', async () => {
    for (const mode of [0o600, 0o640]) assert.equal(exposedWarning(await start(configWith(MOCK), mode)), undefined, mode.toString(8));
  });

  it('mode 0644 with every secret a ${VAR} reference (a URL password included): no warning', async () => {
    const env = { GW_MODE_TEST_ADMIN: 'admin-token-0123456789abcdef', GW_MODE_TEST_PASSWORD: 'pw-0123456789', GW_MODE_TEST_UPSTREAM: 'sk-upstream-0123456789abcdef', GW_MODE_TEST_KEY: TEST_KEY };
    Object.assign(process.env, env);
    try {
      assert.equal(exposedWarning(await start(FROM_ENV, 0o644)), undefined);
    } finally {
      for (const name of Object.keys(env)) delete process.env[name];
    }
  });

  it('mode 0644 with a password written in store or upstream URL: warned', async () => {
    const yaml = FROM_ENV.replace('${GW_MODE_TEST_PASSWORD}', 'literal-password-123');
    const env = { GW_MODE_TEST_ADMIN: 'admin-token-0123456789abcdef', GW_MODE_TEST_UPSTREAM: 'sk-upstream-0123456789abcdef', GW_MODE_TEST_KEY: TEST_KEY };
    Object.assign(process.env, env);
    try {
      assert.ok(exposedWarning(await start(yaml, 0o644)) !== undefined);
    } finally {
      for (const name of Object.keys(env)) delete process.env[name];
    }
  });
});
