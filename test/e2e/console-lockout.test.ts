// Issue 40, finding 7: one address could lock a console user out by name from every address, and keep them out with
// one wrong password every 6 s. Now an address is held to its own failures (ten, then one every 6 s), far below what
// empties a name's bucket: the user still signs in from their own address while one address guesses on and on. A
// guess spread over many addresses still meets the per-name limit. The limiter's clock is the test's.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { NAME_FAILURES_PER_MINUTE } from '../../core/console/sign-in.js';
import { MemoryLimiter } from '../../core/limits/memory-limiter.js';
import { consoleAccountUser, consoleSignIn } from '../helpers/console-session.js';
import { configWith, startGatewayUnderTest, type GatewayUnderTest } from '../helpers/gateway-under-test.js';

const ADMIN_TOKEN = 'test-admin-token-0123456789';
const PASSWORD = 'alice chose this password';

describe('console sign-in: no lockout by name from one address', () => {
  let clock = 1_900_000_000_000;
  const limiter = new MemoryLimiter({ now: () => clock });
  let gw: GatewayUnderTest;

  before(async () => {
    const yaml = configWith('  - { name: demo, type: mock, models: ["demo-*"] }\n', 'accounts: [{ name: acme }]\n').replace(
      'shutdown_grace_ms: 5000',
      'shutdown_grace_ms: 5000\n  trusted_proxies: ["127.0.0.1"]',
    );
    gw = await startGatewayUnderTest(yaml, { limiter });
    const operator = await consoleSignIn(gw.url, { admin_token: ADMIN_TOKEN });
    await consoleAccountUser(gw.url, operator, 'acme', 'alice', PASSWORD);
  });
  after(async () => {
    await gw.stop();
  });

  async function signIn(name: string, password: string, from: string): Promise<number> {
    const res = await fetch(`${gw.url}/console/api/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': from },
      body: JSON.stringify({ name, password }),
    });
    await res.arrayBuffer();
    return res.status;
  }

  it('an address that guesses alice\'s password on and on is refused itself; alice signs in from hers', async () => {
    const attacker = '203.0.113.66';
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) statuses.push(await signIn('alice', `guess ${i}`, attacker));
    assert.deepEqual(statuses, [...Array<number>(10).fill(401), 429]);
    // Two minutes of one more guess whenever the address's bucket lets it (every 6 s).
    for (let round = 0; round < 20; round++) {
      clock += 6_000;
      assert.equal(await signIn('alice', `guess again ${round}`, attacker), 401);
      assert.equal(await signIn('alice', `and again ${round}`, attacker), 429);
    }
    assert.equal(await signIn('alice', PASSWORD, attacker), 429, 'the attacker\'s address stays refused, the right password too');
    assert.equal(await signIn('alice', PASSWORD, '198.51.100.7'), 200, 'alice, from her own address, is not locked out');
  });

  it('guesses at one name from many addresses still meet the per-name limit', async () => {
    clock += 3_600_000;
    // Nine failures from each address (under its own limit), until the name's bucket is empty.
    let address = 0;
    for (let failed = 0; failed < NAME_FAILURES_PER_MINUTE; address++) {
      for (let i = 0; i < 9 && failed < NAME_FAILURES_PER_MINUTE; i++, failed++) {
        assert.equal(await signIn('alice', `spread guess ${failed}`, `192.0.2.${address}`), 401);
      }
    }
    assert.equal(await signIn('alice', PASSWORD, '198.51.100.8'), 429, 'the name is locked once the fleet of addresses emptied it');
    clock += 60_000;
    assert.equal(await signIn('alice', PASSWORD, '198.51.100.8'), 200, 'a minute later');
  });
});
