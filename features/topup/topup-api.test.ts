// Top-up codes over HTTP (issue 44), a real gateway on loopback with its SQLite store: the operator makes a batch
// (the secrets in that answer only; a retry with its idempotency key makes nothing more), lists and exports codes
// masked, disables a batch and a code; an account's user redeems a code into their account (one ledger credit whose
// note names the code and batch, never the secret; the code row says who, when and into which account), and a second
// redemption, from another account, is refused and changes nothing. Users reach none of the operator's routes; the
// operator has no balance to redeem into. Failed redemptions are limited per user and per address (429, retry-after),
// on the limiter's clock the test moves.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MemoryLimiter } from '../../core/limits/memory-limiter.js';
import { consoleAccountUser, consoleSignIn, type ConsoleSession } from '../../test/helpers/console-session.js';
import { configWith, startGatewayUnderTest, type GatewayUnderTest } from '../../test/helpers/gateway-under-test.js';

const ADMIN = 'test-admin-token-0123456789';
const PASSWORD = 'a long enough password';
const CODE = /^TOPUP(-[0-9A-HJKMNP-TV-Z]{5}){4}-[0-9A-HJKMNP-TV-Z]{6}$/;

interface Answer {
  readonly status: number;
  readonly json: Record<string, unknown>;
  readonly text: string;
  readonly headers: Headers;
}

describe('top-up codes over HTTP', () => {
  let clock = 1_900_000_000_000;
  const limiter = new MemoryLimiter({ now: () => clock });
  let gw: GatewayUnderTest;
  let op: ConsoleSession;
  let ada: ConsoleSession;
  let ann: ConsoleSession;
  let bob: ConsoleSession;
  let secrets: string[] = [];
  let batchId = '';

  async function call(who: ConsoleSession | null, method: string, path: string, body?: unknown, from = '198.51.100.1'): Promise<Answer> {
    const headers: Record<string, string> = { 'content-type': 'application/json', 'x-forwarded-for': from };
    if (who !== null) Object.assign(headers, { cookie: who.cookie, 'x-csrf-token': who.csrf });
    const res = await fetch(`${gw.url}/console/api${path}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    const text = await res.text();
    const json = res.headers.get('content-type')?.startsWith('application/json') === true ? (JSON.parse(text) as Record<string, unknown>) : {};
    return { status: res.status, json, text, headers: res.headers };
  }
  const codeOf = (a: Answer): string | null => (a.json['error'] as { code: string | null } | undefined)?.code ?? null;
  const balance = async (account: string): Promise<bigint | undefined> => (await gw.gateway.runtime.deps.store.ledger.getAccount(account))?.balance;
  const makeBatch = (body: Record<string, unknown>): Promise<Answer> => call(op, 'POST', '/topup/batches', body);

  before(async () => {
    const yaml = configWith('  - { name: demo, type: mock, models: ["demo-*"] }\n', 'accounts: [{ name: acme }, { name: initech }]\n').replace(
      'shutdown_grace_ms: 5000',
      'shutdown_grace_ms: 5000\n  trusted_proxies: ["127.0.0.1"]',
    );
    gw = await startGatewayUnderTest(yaml, { limiter });
    op = await consoleSignIn(gw.url, { admin_token: ADMIN });
    ada = await consoleAccountUser(gw.url, op, 'acme', 'ada', PASSWORD);
    ann = await consoleAccountUser(gw.url, op, 'acme', 'ann', PASSWORD);
    bob = await consoleAccountUser(gw.url, op, 'initech', 'bob', PASSWORD);
  });
  after(async () => {
    await gw?.stop();
  });

  it('the operator makes a batch: every secret once, in that answer; a retry makes nothing more', async () => {
    const body = { amount: '2.5', count: 3, note: 'launch', expires_at: '2099-01-01', idempotency_key: 'batch-1' };
    const made = await makeBatch(body);
    assert.equal(made.status, 201, made.text);
    const codes = made.json['codes'] as { id: string; code: string; masked: string }[];
    assert.equal(codes.length, 3);
    for (const c of codes) {
      assert.match(c.code, CODE);
      assert.equal(c.masked, `TOPUP-****-${c.code.slice(-4)}`);
    }
    secrets = codes.map((c) => c.code);
    const batch = made.json['batch'] as Record<string, unknown>;
    batchId = String(batch['id']);
    assert.deepEqual([batch['amount'], batch['count'], batch['redeemed'], batch['status'], batch['note'], batch['expires_at']], ['2.5', 3, 0, 'active', 'launch', '2099-01-01T00:00:00.000Z']);
    const again = await makeBatch(body);
    assert.deepEqual([again.status, again.json['applied'], again.json['codes'], (again.json['batch'] as Record<string, unknown>)['id']], [200, false, [], batchId]);
    for (const other of [{ amount: '3' }, { count: 4 }, { note: 'other' }, { expires_at: '2099-01-02' }]) {
      const reused = await makeBatch(Object.assign({}, body, other));
      assert.equal(reused.status, 409, `${JSON.stringify(other)}: ${reused.text}`);
      assert.match(reused.text, /idempotency_key_reused/);
    }
    assert.equal((await call(op, 'GET', '/topup/batches')).json['total'], 1);
  });

  it('bad input is a 400 naming the field, and makes nothing', async () => {
    const bad: [Record<string, unknown>, string][] = [
      [{ amount: '0', count: 1, idempotency_key: 'b0' }, 'amount'],
      [{ amount: '1.0000000001', count: 1, idempotency_key: 'b1' }, 'amount'],
      [{ amount: 0.5, count: 1, idempotency_key: 'b2' }, 'amount'],
      [{ amount: '1', count: 0, idempotency_key: 'b3' }, 'count'],
      [{ amount: '1', count: 1001, idempotency_key: 'b4' }, 'count'],
      [{ amount: '1', count: 1.5, idempotency_key: 'b5' }, 'count'],
      [{ amount: '1', count: 1, expires_at: '2001-01-01', idempotency_key: 'b6' }, 'expires_at'],
      [{ amount: '1', count: 1, expires_at: 'soon', idempotency_key: 'b7' }, 'expires_at'],
      [{ amount: '1', count: 1 }, 'idempotency_key'],
      [{ amount: '1', count: 1, idempotency_key: 'b8', cuont: 2 }, 'cuont'],
    ];
    for (const [body, param] of bad) {
      const refused = await makeBatch(body);
      assert.equal(refused.status, 400, JSON.stringify(body));
      assert.equal((refused.json['error'] as { param: string }).param, param, JSON.stringify(body));
    }
    assert.equal((await call(op, 'GET', '/topup/batches')).json['total'], 1);
    assert.equal((await call(op, 'GET', '/topup/codes')).json['total'], 3);
  });

  it('an account\'s user redeems a code: one ledger credit naming the code and batch, the balance after it', async () => {
    // Typed loosely: lower case, spaces for dashes.
    const redeemed = await call(ada, 'POST', '/topup/redeem', { code: ` ${(secrets[0] ?? '').toLowerCase().replaceAll('-', ' ')} ` });
    assert.equal(redeemed.status, 200, redeemed.text);
    const code = redeemed.json['code'] as Record<string, unknown>;
    const entry = redeemed.json['entry'] as Record<string, unknown>;
    assert.deepEqual(redeemed.json['account'], { name: 'acme', balance: '2.5', currency: 'USD' });
    assert.deepEqual([code['status'], code['account'], code['redeemed_by'], code['batch'], code['ledger_entry_id']], ['redeemed', 'acme', 'ada', batchId, entry['id']]);
    assert.equal(entry['kind'], 'credit');
    assert.equal(entry['amount'], '2.5');
    assert.equal(entry['note'], `top-up code ${String(code['id'])} (${String(code['masked'])}) of batch ${batchId}`);
    assert.equal(await balance('acme'), 2_500_000_000n);
    const ledger = await call(ada, 'GET', '/ledger');
    assert.deepEqual((ledger.json['data'] as Record<string, unknown>[]).map((e) => [e['kind'], e['amount'], e['note']]), [['credit', '2.5', entry['note']]]);
    assert.ok(!ledger.text.includes((secrets[0] ?? '').slice(6)), 'the secret is in no ledger entry');
  });

  it('the same code from another account is refused (409) and changes nothing', async () => {
    const again = await call(bob, 'POST', '/topup/redeem', { code: secrets[0] });
    assert.deepEqual([again.status, codeOf(again)], [409, 'code_used']);
    assert.equal(await balance('initech'), 0n);
    assert.equal(await balance('acme'), 2_500_000_000n);
  });

  it('codes are listed and exported masked, filtered; no secret is in either', async () => {
    const all = await call(op, 'GET', '/topup/codes');
    assert.equal(all.json['total'], 3);
    const redeemed = await call(op, 'GET', `/topup/codes?status=redeemed&batch=${batchId}&account=acme`);
    assert.deepEqual((redeemed.json['data'] as Record<string, unknown>[]).map((c) => [c['redeemed_by'], c['account']]), [['ada', 'acme']]);
    assert.equal((await call(op, 'GET', '/topup/codes?status=active')).json['total'], 2);
    assert.equal((await call(op, 'GET', '/topup/codes?account=initech')).json['total'], 0);
    assert.equal((await call(op, 'GET', '/topup/codes?status=lost')).status, 400);
    const csv = await call(op, 'GET', `/topup/codes.csv?batch=${batchId}`);
    assert.equal(csv.status, 200);
    assert.match(csv.headers.get('content-disposition') ?? '', new RegExp(`filename="topup-codes-${batchId}.csv"`));
    const lines = csv.text.trimEnd().split('\r\n');
    assert.equal(lines[0], 'id,batch,masked,amount,currency,status,created_at,expires_at,disabled_at,redeemed_at,redeemed_by,account');
    assert.equal(lines.length, 4);
    assert.equal(lines.filter((l) => l.includes(',redeemed,') && l.endsWith(',ada,acme')).length, 1);
    for (const secret of secrets) {
      const body = secret.slice(6);
      assert.ok(!all.text.includes(body) && !csv.text.includes(body), 'a secret is shown only when made');
    }
  });

  it('a disabled batch and a disabled code are refused (410) and change nothing; enabled again, they credit', async () => {
    const codes = (await call(op, 'GET', `/topup/codes?status=active`)).json['data'] as { id: string; masked: string }[];
    const second = codes.find((c) => c.masked.endsWith((secrets[1] ?? '').slice(-4)));
    assert.equal((await call(op, 'PATCH', `/topup/batches/${batchId}`, { disabled: true })).json['status'], 'disabled');
    const refused = await call(ann, 'POST', '/topup/redeem', { code: secrets[1] });
    assert.deepEqual([refused.status, codeOf(refused)], [410, 'code_disabled']);
    assert.equal((await call(op, 'PATCH', `/topup/batches/${batchId}`, { disabled: false })).json['status'], 'active');
    assert.equal((await call(op, 'PATCH', `/topup/codes/${second?.id ?? ''}`, { disabled: true })).json['status'], 'disabled');
    assert.equal((await call(ann, 'POST', '/topup/redeem', { code: secrets[1] })).status, 410);
    assert.equal(await balance('acme'), 2_500_000_000n);
    assert.equal((await call(op, 'PATCH', `/topup/codes/${second?.id ?? ''}`, { disabled: false })).json['status'], 'active');
    assert.equal((await call(ann, 'POST', '/topup/redeem', { code: secrets[1] })).status, 200);
    assert.equal(await balance('acme'), 5_000_000_000n);
    assert.equal((await call(op, 'PATCH', '/topup/codes/tc_0000000000000000', { disabled: true })).status, 404);
    assert.equal((await call(op, 'PATCH', `/topup/batches/${batchId}`, { disabled: 'yes' })).status, 400);
  });

  it('a user reaches none of the operator\'s routes (403 operator_only), and the operator has no balance to redeem into (403)', async () => {
    for (const [method, path, body] of [
      ['GET', '/topup/codes', undefined],
      ['GET', '/topup/codes.csv', undefined],
      ['GET', '/topup/batches', undefined],
      ['POST', '/topup/batches', { amount: '100', count: 1, idempotency_key: 'mine' }],
      ['PATCH', `/topup/batches/${batchId}`, { disabled: true }],
      ['PATCH', '/topup/codes/tc_0000000000000000', { disabled: true }],
    ] as const) {
      const answer = await call(bob, method, path, body);
      assert.equal(answer.status, 403, `${method} ${path}`);
      assert.ok(!answer.text.includes(batchId), 'nothing of the operator\'s in the answer');
    }
    assert.equal((await call(op, 'GET', '/topup/batches')).json['total'], 1, 'bob made no batch');
    const operator = await call(op, 'POST', '/topup/redeem', { code: secrets[2] });
    assert.deepEqual([operator.status, codeOf(operator)], [403, 'no_account']);
    assert.equal((await call(null, 'POST', '/topup/redeem', { code: secrets[2] })).status, 401);
  });

  it('failed redemptions: five per user and per address, then 429 with retry-after, even for a right code', async () => {
    clock += 3_600_000;
    const wrong = 'TOPUP-00000-00000-00000-00000-000000';
    const here = '203.0.113.9';
    for (let i = 0; i < 5; i++) assert.equal((await call(bob, 'POST', '/topup/redeem', { code: i % 2 === 0 ? wrong : 'not a code' }, here)).status, 400);
    const limited = await call(bob, 'POST', '/topup/redeem', { code: secrets[2] }, here);
    assert.deepEqual([limited.status, codeOf(limited)], [429, 'rate_limit_exceeded']);
    assert.ok(Number(limited.headers.get('retry-after')) >= 1);
    assert.equal(await balance('initech'), 0n, 'the right code was not looked at');
    // The address's bucket is empty for another user there; bob's own for bob anywhere.
    assert.equal((await call(ann, 'POST', '/topup/redeem', { code: wrong }, here)).status, 429);
    assert.equal((await call(bob, 'POST', '/topup/redeem', { code: secrets[2] }, '198.51.100.200')).status, 429);
    assert.equal((await call(ann, 'POST', '/topup/redeem', { code: wrong }, '198.51.100.201')).status, 400, 'ann, elsewhere, is not limited');
    // One attempt a 12 s: a right code then credits, and gives its attempt back.
    clock += 12_000;
    const redeemed = await call(bob, 'POST', '/topup/redeem', { code: secrets[2] }, here);
    assert.equal(redeemed.status, 200, redeemed.text);
    assert.equal(await balance('initech'), 2_500_000_000n);
    assert.equal((await call(bob, 'POST', '/topup/redeem', { code: wrong }, here)).status, 400, 'the success gave its attempt back');
    assert.equal((await call(bob, 'POST', '/topup/redeem', { code: wrong }, here)).status, 429);
    assert.deepEqual(await gw.gateway.runtime.deps.store.ledger.auditLedger(), []);
  });
});
