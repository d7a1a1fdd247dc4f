// Signing in to the console (issue 25), on a real store and the gateway's own Limiter with a clock the test moves:
// a password set through a one-time link signs in and opens a server-side session with its CSRF token; logout ends
// it; the 11th wrong password within a minute from one address (the 101st at one name) is refused (429) before the
// password is checked, and a minute later it is admitted again; a wrong name and a wrong password get the same answer; the
// admin token signs the operator in; a link works once; a new password ends the user's other sessions.

import { TEST_PASSWORD_COST } from '../../helpers/password-cost.js';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConsoleSignIn, NAME_FAILURES_PER_MINUTE, SESSION_TTL_MS } from '../../../core/console/sign-in.js';
import { GatewayError } from '../../../core/errors.js';
import { MemoryLimiter } from '../../../core/limits/memory-limiter.js';
import { useTempStore } from '../store/store-fixtures.js';

const refusedWith = (status: number, code: string) => (err: unknown) => err instanceof GatewayError && err.status === status && err.code === code;

describe('console sign-in', () => {
  const temp = useTempStore('console-sign-in.db');
  let clock = 1_900_000_000_000;
  const now = (): number => clock;

  /** `nameFailures` below NAME_FAILURES_PER_MINUTE keeps a name's lockout quick to reach: each failure costs a scrypt. */
  function signIn(nameFailures?: number): ConsoleSignIn {
    const options = { store: temp.get().console, limiter: new MemoryLimiter({ now }), adminToken: () => 'the-admin-token-0123456789', now, passwordCost: TEST_PASSWORD_COST };
    return new ConsoleSignIn(nameFailures === undefined ? options : Object.assign(options, { nameFailuresPerMinute: nameFailures }));
  }

  async function userWithPassword(auth: ConsoleSignIn, name: string, password: string): Promise<void> {
    await temp.get().console.createUser({ id: `id-${name}`, name, account: 'acme', passwordHash: null, createdAt: clock });
    const { token } = await auth.link(`id-${name}`);
    await auth.setPassword(token, password, '10.0.0.1');
  }

  it('a link sets the password once; sign-in opens a session with a CSRF token; logout ends it; sessions expire', async () => {
    const auth = signIn();
    await temp.get().console.createUser({ id: 'id-ada', name: 'ada', account: 'acme', passwordHash: null, createdAt: clock });
    const link = await auth.link('id-ada');
    await assert.rejects(auth.setPassword(link.token, 'short', '10.0.0.1'), refusedWith(400, 'GW_ERR_REQUEST_INVALID_FIELD'));
    await auth.setPassword(link.token, 'a long enough password', '10.0.0.1');
    await assert.rejects(auth.setPassword(link.token, 'another long password', '10.0.0.1'), refusedWith(400, 'GW_ERR_CONSOLE_LINK_INVALID'), 'used up');
    const signed = await auth.withPassword('ada', 'a long enough password', '203.0.113.1');
    assert.equal(signed.user.account, 'acme');
    assert.notEqual(signed.token, signed.csrf);
    assert.deepEqual((await auth.session(signed.token))?.csrf, signed.csrf);
    assert.equal(await auth.session(`${signed.token}x`), undefined);
    await auth.signOut(signed.token);
    assert.equal(await auth.session(signed.token), undefined, 'logged out');
    const again = await auth.withPassword('ada', 'a long enough password', '203.0.113.1');
    clock += SESSION_TTL_MS;
    assert.equal(await auth.session(again.token), undefined, 'expired');
  });

  it('a wrong name and a wrong password get the same 401; a user without a password cannot sign in', async () => {
    const auth = signIn();
    await userWithPassword(auth, 'bob', 'bob has a password');
    await temp.get().console.createUser({ id: 'id-new', name: 'newbie', account: 'acme', passwordHash: null, createdAt: clock });
    for (const [name, password] of [['bob', 'not his password'], ['nobody', 'bob has a password'], ['newbie', '']]) {
      await assert.rejects(auth.withPassword(name as string, password as string, '198.51.100.1'), (err: unknown) => err instanceof GatewayError && err.status === 401 && err.message === 'Wrong name or password.');
    }
  });

  it('wrong passwords are refused past ten per address and the name\'s limit, even a right one; a minute later it passes', async () => {
    // The name's limit set to three addresses' worth here (the default, NAME_FAILURES_PER_MINUTE, is ten's).
    const NAME_LIMIT = 30;
    const auth = signIn(NAME_LIMIT);
    await userWithPassword(auth, 'carol', 'carol has a password');
    // Spread over addresses, ten each: the name's own limit, much looser than an address's (no lockout from one address).
    for (let i = 0; i < NAME_LIMIT; i++) {
      await assert.rejects(auth.withPassword('carol', `guess ${i}`, `192.0.${Math.floor(i / 10)}.${i % 10}`), refusedWith(401, 'GW_ERR_CONSOLE_SIGN_IN'));
    }
    await assert.rejects(auth.withPassword('carol', 'carol has a password', '192.0.2.99'), refusedWith(429, 'GW_ERR_RATE_LIMITED'), 'the name is locked');
    // From one address, ten names: the address is locked for an eleventh name.
    for (let i = 0; i < 10; i++) await assert.rejects(auth.withPassword(`user${i}`, 'x', '192.0.2.200'), refusedWith(401, 'GW_ERR_CONSOLE_SIGN_IN'));
    await userWithPassword(auth, 'dave', 'dave has a password');
    await assert.rejects(auth.withPassword('dave', 'dave has a password', '192.0.2.200'), refusedWith(429, 'GW_ERR_RATE_LIMITED'), 'the address is locked');
    assert.ok((await auth.withPassword('dave', 'dave has a password', '192.0.2.201')).token.length > 20, 'another address is not');
    clock += 60_000;
    assert.ok((await auth.withPassword('carol', 'carol has a password', '192.0.2.99')).token.length > 20, 'a minute later');
    // A success gives its count back: ten right passwords in a row never lock anyone out.
    for (let i = 0; i < 12; i++) await auth.withPassword('carol', 'carol has a password', '192.0.2.98');
  });

  it('the admin token signs the operator in; a wrong one is a 401', async () => {
    const auth = signIn();
    const operator = await auth.withAdminToken('the-admin-token-0123456789', '127.0.0.1');
    assert.equal(operator.user.account, null);
    assert.equal((await auth.withAdminToken('the-admin-token-0123456789', '127.0.0.1')).user.id, operator.user.id, 'one operator user');
    await assert.rejects(auth.withAdminToken('the-admin-token-012345678X', '127.0.0.1'), refusedWith(401, 'GW_ERR_CONSOLE_SIGN_IN'));
    const off = new ConsoleSignIn({ store: temp.get().console, limiter: new MemoryLimiter({ now }), adminToken: () => null, now, passwordCost: TEST_PASSWORD_COST });
    await assert.rejects(off.withAdminToken('', '127.0.0.1'), refusedWith(401, 'GW_ERR_CONSOLE_SIGN_IN'));
  });

  it('a disabled user\'s right password counts as a failure (nothing tells it was right); the reserved name; odd tokens', async () => {
    const auth = signIn();
    await userWithPassword(auth, 'frank', 'frank has a password');
    await temp.get().console.setUserDisabled('id-frank', true);
    for (let i = 0; i < 10; i++) await assert.rejects(auth.withPassword('frank', 'frank has a password', '10.1.0.1'), refusedWith(401, 'GW_ERR_CONSOLE_SIGN_IN'));
    await assert.rejects(auth.withPassword('frank', 'frank has a password', '10.1.0.1'), refusedWith(429, 'GW_ERR_RATE_LIMITED'), 'ten failures, not ten refunds');
    // A token of another byte length than the real one (multibyte), or of none: a 401, never a throw.
    await assert.rejects(auth.withAdminToken('é'.repeat(26), '10.2.0.1'), refusedWith(401, 'GW_ERR_CONSOLE_SIGN_IN'));
    await assert.rejects(auth.withAdminToken('', '10.2.0.1'), refusedWith(401, 'GW_ERR_CONSOLE_SIGN_IN'));
  });

  it('IPv6 clients are counted by /64; ten failures at once lock, and the bucket refills one every 6 s', async () => {
    const auth = signIn();
    for (let i = 0; i < 10; i++) await assert.rejects(auth.withPassword(`v6user${i}`, 'x', `2001:db8:1:2::${i + 1}`), refusedWith(401, 'GW_ERR_CONSOLE_SIGN_IN'));
    await userWithPassword(auth, 'gina', 'gina has a password');
    await assert.rejects(auth.withPassword('gina', 'gina has a password', '2001:db8:1:2:ffff::9'), refusedWith(429, 'GW_ERR_RATE_LIMITED'), 'the same /64');
    assert.ok((await auth.withPassword('gina', 'gina has a password', '2001:db8:1:3::1')).token.length > 20, 'another /64');
    clock += 6_000;
    assert.ok((await auth.withPassword('gina', 'gina has a password', '2001:db8:1:2::77')).token.length > 20, 'one more after 6 s');
  });

  it('a new password ends the user\'s other sessions', async () => {
    const auth = signIn();
    await userWithPassword(auth, 'erin', 'erin has a password');
    const open = await auth.withPassword('erin', 'erin has a password', '203.0.113.9');
    const { token } = await auth.link('id-erin');
    await auth.setPassword(token, 'erin has a new password', '10.0.0.1');
    assert.equal(await auth.session(open.token), undefined);
  });

  it('a newer link ends the older ones; made-up links are limited per address like wrong passwords', async () => {
    const auth = signIn();
    await temp.get().console.createUser({ id: 'id-finn', name: 'finn', account: 'acme', passwordHash: null, createdAt: clock });
    const first = await auth.link('id-finn');
    const second = await auth.link('id-finn');
    await assert.rejects(auth.setPassword(first.token, 'finn has a password', '10.0.0.2'), refusedWith(400, 'GW_ERR_CONSOLE_LINK_INVALID'), 'ended by the newer');
    for (let i = 0; i < 9; i++) {
      await assert.rejects(auth.setPassword(`made-up-${i}`, 'finn has a password', '10.0.0.2'), refusedWith(400, 'GW_ERR_CONSOLE_LINK_INVALID'));
    }
    // Ten failures from this address: the next attempt is refused before the link is even looked up.
    await assert.rejects(auth.setPassword(second.token, 'finn has a password', '10.0.0.2'), refusedWith(429, 'GW_ERR_RATE_LIMITED'));
    await auth.setPassword(second.token, 'finn has a password', '10.0.0.3');
    assert.equal((await auth.withPassword('finn', 'finn has a password', '10.0.0.3')).user.name, 'finn');
  });
});
