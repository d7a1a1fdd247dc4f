// The money part of gateway.yaml: issue 23's file accepted as written, amounts in nano-units, and the problems
// (an undeclared account, an amount a nano-unit cannot hold) named with their path and line.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { parseMoney } from '../../../core/money/decimal.js';
import { issuesOf, parse, yaml } from './config-helpers.js';
import { fixturePath } from '../../helpers/repo-root.js';

const ENV = { GW_KEY_CI: 'sk-ci-0123456789abcdef', GW_KEY_OPS: 'sk-ops-0123456789abcdef' };

describe('money config', () => {
  it('accepts issue 23\'s file as written', () => {
    const config = parse(readFileSync(fixturePath('config/money-example.yaml'), 'utf8'), ENV);
    assert.deepEqual(config.store, { url: 'postgres://postgres@127.0.0.1:5432/gateway', poolMax: 10, journalPath: null, journalMaxRecords: 1_000_000 });
    assert.deepEqual(config.accounts, [{ name: 'acme', description: null, groups: [] }]);
    const [ci, ops] = config.keys;
    assert.equal(ci?.account, 'acme');
    assert.equal(ci?.maxSpend, parseMoney('5'));
    assert.equal(ops?.account, undefined, 'no account: unmetered');
    const { pricing } = config;
    assert.equal(pricing.currency, 'USD');
    assert.equal(pricing.priceOf('demo-fast')?.input, parseMoney('0.5'));
    assert.equal(pricing.priceOf('demo-slow')?.cacheRead, parseMoney('0.1'));
    assert.equal(pricing.priceOf('demo-slow')?.cacheWrite, parseMoney('1.25'));
    assert.equal(pricing.priceOf('dall-e-3')?.perImage, parseMoney('0.04'));
    assert.equal(pricing.priceOf('gpt-image-1')?.outputImage, parseMoney('40'), 'image tokens at the output price when not given');
    assert.equal(pricing.priceOf('claude-x'), null);
    assert.equal(pricing.callPrice('videogen.asset.CreateAsset'), parseMoney('0.002'));
    assert.deepEqual(pricing.multiplierOf('cheap'), { numerator: parseMoney('0.5'), denominator: 1_000_000_000n });
    assert.equal(pricing.defaultOutputReserve, 4096);
    assert.equal(pricing.unpriced, 'refuse');
    // Pinned: a change to the prices' document (per_second is in it only when set) must not re-version old configs,
    // whose records the audit finds by it.
    assert.equal(pricing.version, 'b8c07728b75a7308');
    assert.equal(pricing.priceOf('demo-fast')?.perSecond, 0n);
  });

  it('GATEWAY_STORE_URL points every command at a store, whatever the file says, checked as store.url is', () => {
    const file = readFileSync(fixturePath('config/money-example.yaml'), 'utf8');
    const url = 'postgres://gateway:secret@db.internal:5433/gw';
    assert.equal(parse(file, { ...ENV, GATEWAY_STORE_URL: url }).store.url, url);
    const noStore = yaml('channels:', '  - { name: m, type: mock, models: ["demo-*"] }');
    assert.equal(parse(noStore, { GATEWAY_STORE_URL: url }).store.url, url, 'a file without a store section too');
    assert.equal(parse(noStore, { GATEWAY_STORE_URL: '' }).store.url.startsWith('sqlite:'), true, 'empty: the file decides');
    const issues = issuesOf(noStore, { GATEWAY_STORE_URL: 'mysql://root@db/gw' });
    assert.ok(issues.some((i) => i.includes('store.url')), issues.join('\n'));
  });

  it('names an undeclared account, a duplicate one, and amounts a nano-unit cannot hold', () => {
    const text = yaml(
      'channels:',
      '  - { name: demo, type: mock, models: [demo-*] }',
      'groups:',
      '  default: { models: [demo-*], price_multiplier: 0.0000000001 }', // 4
      'accounts:',
      '  - name: acme',
      '  - name: acme', // 7
      'keys:',
      '  - { name: a, key: sk-aaaaaaaaaaaaaaaaaaaa, group: default, account: nobody, max_spend: "1.5" }', // 9
      'pricing:',
      '  models:',
      '    "demo-*": { input: 0.00000000001 }', // 12
    );
    assert.deepEqual(issuesOf(text), [
      'groups.default.price_multiplier: "1e-10" has more than 9 decimal places (x.yaml:4)',
      'accounts[1].name: duplicate account name "acme"; first defined at accounts[0] (x.yaml:7)',
      'keys[0].account: unknown account "nobody"; declared accounts: acme (x.yaml:9)',
      'pricing.models["demo-*"].input: "1e-11" has more than 9 decimal places (x.yaml:12)',
    ]);
  });

  it('reads a video model\'s per_second, an amount checked as any price is', () => {
    const priced = parse(yaml('channels:', '  - { name: demo, type: mock, models: [demo-*] }', 'pricing:', '  models:', '    "demo-video": { output: 2, per_second: "0.05" }'));
    assert.equal(priced.pricing.priceOf('demo-video')?.perSecond, parseMoney('0.05'));
    assert.match(priced.pricing.document, /"per_second":"0.05"/);
    const text = yaml('channels:', '  - { name: demo, type: mock, models: [demo-*] }', 'pricing:', '  models:', '    "demo-video": { per_second: 0.0000000001 }');
    assert.deepEqual(issuesOf(text), ['pricing.models["demo-video"].per_second: "1e-10" has more than 9 decimal places (x.yaml:5)']);
  });

  it('refuses an amount written as a string that is not a plain decimal', () => {
    const text = yaml('channels:', '  - { name: demo, type: mock, models: [demo-*] }', 'pricing:', '  calls:', '    op: "0.1234567891"');
    assert.deepEqual(issuesOf(text), ['pricing.calls.op: must be a non-negative decimal with at most 9 decimal places (x.yaml:5)']);
  });

  it('reads a max_spend per period (UTC without a timezone), and names an unknown zone, period or a bad amount', () => {
    const keys = (spend: string): string =>
      yaml('channels:', '  - { name: demo, type: mock, models: [demo-*] }', 'groups:', '  default: { models: [demo-*] }', 'keys:', `  - { name: a, key: sk-aaaaaaaaaaaaaaaaaaaa, group: default, max_spend: ${spend} }`);
    const [daily] = parse(keys('{ amount: "5.00", period: day }')).keys;
    assert.equal(daily?.maxSpend, parseMoney('5'));
    assert.deepEqual(daily?.spendPeriod, { unit: 'day', timezone: 'UTC' });
    const [weekly] = parse(keys('{ amount: 2, period: week, timezone: Europe/Berlin }')).keys;
    assert.deepEqual(weekly?.spendPeriod, { unit: 'week', timezone: 'Europe/Berlin' });
    const [lifetime] = parse(keys('"1.5"')).keys;
    assert.equal(lifetime?.spendPeriod, undefined);
    assert.deepEqual(issuesOf(keys('{ amount: "5.00", period: day, timezone: Mars/Olympus }')), [
      'keys[0].max_spend.timezone: unknown timezone "Mars/Olympus"; use an IANA name such as Europe/Berlin (x.yaml:6)',
    ]);
    assert.deepEqual(issuesOf(keys('{ amount: 0.0000000001, period: day }')), ['keys[0].max_spend.amount: "1e-10" has more than 9 decimal places (x.yaml:6)']);
    assert.ok(issuesOf(keys('{ amount: "5.00", period: hour }')).length > 0, 'an unknown period is refused');
  });

  it("reads an account's max_spend, for life or per period, and names an unknown zone or a bad amount", () => {
    const accounts = (spend: string): string =>
      yaml('channels:', '  - { name: demo, type: mock, models: [demo-*] }', 'groups:', '  default: { models: [demo-*] }', 'accounts:', `  - { name: acme, max_spend: ${spend} }`);
    assert.deepEqual(parse(accounts('{ amount: "100", period: month, timezone: Europe/Berlin }')).accounts[0]?.spendCap, {
      maxSpend: parseMoney('100'),
      spendPeriod: { unit: 'month', timezone: 'Europe/Berlin' },
    });
    assert.deepEqual(parse(accounts('"7.5"')).accounts[0]?.spendCap, { maxSpend: parseMoney('7.5') });
    assert.deepEqual(issuesOf(accounts('{ amount: "5.00", period: day, timezone: Mars/Olympus }')), [
      'accounts[0].max_spend.timezone: unknown timezone "Mars/Olympus"; use an IANA name such as Europe/Berlin (x.yaml:6)',
    ]);
    assert.deepEqual(issuesOf(accounts('{ amount: 0.0000000001, period: day }')), ['accounts[0].max_spend.amount: "1e-10" has more than 9 decimal places (x.yaml:6)']);
  });
});
