// The operator's debit and adjustment of an account (issue 44), beside its credit: each one ledger `adjustment`
// entry with its required note, applied once per idempotency key; a debit never takes the balance below zero (400,
// nothing written), an adjustment may; bad input is a 400 naming the field and changes nothing; a user reaches
// neither route (403). The books stay audited.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { consoleAccountUser, consoleSignIn, type ConsoleSession } from '../helpers/console-session.js';
import { configWith, startGatewayUnderTest, type GatewayUnderTest } from '../helpers/gateway-under-test.js';

const ADMIN = 'test-admin-token-0123456789';

describe('the operator debits and adjusts an account', () => {
  let gw: GatewayUnderTest;
  let op: ConsoleSession;
  let ada: ConsoleSession;

  async function post(who: ConsoleSession, account: string, what: string, body: Record<string, unknown>): Promise<{ status: number; json: Record<string, unknown> }> {
    const res = await fetch(`${gw.url}/console/api/accounts/${account}/${what}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie: who.cookie, 'x-csrf-token': who.csrf },
      body: JSON.stringify(body),
    });
    return { status: res.status, json: (await res.json()) as Record<string, unknown> };
  }
  const balance = async (): Promise<bigint | undefined> => (await gw.gateway.runtime.deps.store.ledger.getAccount('acme'))?.balance;
  const entries = async (): Promise<number> => (await gw.gateway.runtime.deps.store.ledger.listLedger('acme', 100)).length;
  const paramOf = (a: { json: Record<string, unknown> }): string | null => (a.json['error'] as { param: string | null }).param;

  before(async () => {
    gw = await startGatewayUnderTest(configWith('  - { name: demo, type: mock, models: ["demo-*"] }\n', 'accounts: [{ name: acme }]\n'));
    op = await consoleSignIn(gw.url, { admin_token: ADMIN });
    ada = await consoleAccountUser(gw.url, op, 'acme', 'ada', 'a long enough password');
    assert.equal((await post(op, 'acme', 'credit', { amount: '10', idempotency_key: 'start' })).status, 201);
  });
  after(async () => {
    await gw?.stop();
  });

  it('a debit: an adjustment entry of minus the amount, with its note, applied once per key', async () => {
    const body = { amount: '3.25', note: 'refund of an overpaid invoice', idempotency_key: 'debit-1' };
    const debited = await post(op, 'acme', 'debit', body);
    assert.equal(debited.status, 201);
    const entry = debited.json['entry'] as Record<string, unknown>;
    assert.deepEqual([entry['kind'], entry['amount'], entry['note']], ['adjustment', '-3.25', 'refund of an overpaid invoice']);
    assert.equal((debited.json['account'] as Record<string, unknown>)['balance'], '6.75');
    const again = await post(op, 'acme', 'debit', body);
    assert.deepEqual([again.status, again.json['applied']], [200, false]);
    assert.equal(await balance(), 6_750_000_000n);
    const other = await post(op, 'acme', 'debit', Object.assign({}, body, { amount: '1' }));
    assert.deepEqual([other.status, paramOf(other)], [400, 'idempotency_key']);
  });

  it('a debit past the balance is refused and writes nothing; an adjustment may go below zero', async () => {
    const count = await entries();
    const past = await post(op, 'acme', 'debit', { amount: '6.750000001', note: 'too much', idempotency_key: 'debit-2' });
    assert.deepEqual([past.status, paramOf(past)], [400, 'amount']);
    assert.match((past.json['error'] as { message: string }).message, /is 6\.75: a debit may not take it below zero/);
    assert.equal(await balance(), 6_750_000_000n);
    assert.equal(await entries(), count);
    const exact = await post(op, 'acme', 'debit', { amount: '6.75', note: 'all of it', idempotency_key: 'debit-3' });
    assert.equal((exact.json['account'] as Record<string, unknown>)['balance'], '0');
    const down = await post(op, 'acme', 'adjust', { amount: '-1.5', note: 'owed for last month', idempotency_key: 'adjust-1' });
    assert.equal(down.status, 201);
    assert.deepEqual([(down.json['entry'] as Record<string, unknown>)['amount'], (down.json['account'] as Record<string, unknown>)['balance']], ['-1.5', '-1.5']);
    const up = await post(op, 'acme', 'adjust', { amount: '+4', note: 'goodwill', idempotency_key: 'adjust-2' });
    assert.deepEqual([(up.json['entry'] as Record<string, unknown>)['kind'], (up.json['account'] as Record<string, unknown>)['balance']], ['adjustment', '2.5']);
    assert.deepEqual(await gw.gateway.runtime.deps.store.ledger.auditLedger(), []);
  });

  it('bad input is a 400 naming the field and changes nothing; a user reaches neither route', async () => {
    const count = await entries();
    const cases: [string, Record<string, unknown>, string][] = [
      ['debit', { amount: '1', idempotency_key: 'x1' }, 'note'],
      ['debit', { amount: '1', note: '  ', idempotency_key: 'x2' }, 'note'],
      ['adjust', { amount: '1', idempotency_key: 'x3' }, 'note'],
      ['debit', { amount: '-1', note: 'n', idempotency_key: 'x4' }, 'amount'],
      ['adjust', { amount: '0', note: 'n', idempotency_key: 'x5' }, 'amount'],
      ['adjust', { amount: '-0.5', note: 'n', idempotency_key: 'x6', nte: 'typo' }, 'nte'],
      ['adjust', { amount: '-', note: 'n', idempotency_key: 'x7' }, 'amount'],
      ['adjust', { amount: '--1', note: 'n', idempotency_key: 'x8' }, 'amount'],
      ['debit', { amount: '1', note: 'n' }, 'idempotency_key'],
    ];
    for (const [what, body, param] of cases) {
      const refused = await post(op, 'acme', what, body);
      assert.deepEqual([refused.status, paramOf(refused)], [400, param], `${what} ${JSON.stringify(body)}`);
    }
    assert.equal((await post(op, 'nobody', 'debit', { amount: '1', note: 'n', idempotency_key: 'x9' })).status, 404);
    for (const what of ['debit', 'adjust']) assert.equal((await post(ada, 'acme', what, { amount: '-1', note: 'mine', idempotency_key: `ada-${what}` })).status, 403);
    assert.equal(await entries(), count);
    assert.equal(await balance(), 2_500_000_000n);
  });
});
