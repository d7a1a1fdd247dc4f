// Console passwords: scrypt with a salt of its own per hash (two hashes of one password differ), verified in
// constant time; a wrong password, a changed hash and malformed stored text all verify false, never throw.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { hashPassword, verifyPassword } from '../../../core/console/password.js';

describe('console passwords', () => {
  it('verifies the password a hash was made from, and nothing else', async () => {
    const stored = await hashPassword('correct horse battery staple');
    assert.match(stored, /^scrypt\$32768\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
    assert.notEqual(await hashPassword('correct horse battery staple'), stored, 'a salt of its own');
    assert.equal(await verifyPassword('correct horse battery staple', stored), true);
    assert.equal(await verifyPassword('correct horse battery stapler', stored), false);
    assert.equal(await verifyPassword('', stored), false);
    const tampered = stored.slice(0, -2) + (stored.endsWith('AA') ? 'BB' : 'AA');
    assert.equal(await verifyPassword('correct horse battery staple', tampered), false);
    for (const bad of ['', 'plain', 'scrypt$1$1$1$x', 'scrypt$99999999$8$1$AAAA$AAAA', 'bcrypt$32768$8$1$AAAA$AAAA']) {
      assert.equal(await verifyPassword('x', bad), false, bad);
    }
  });
});
