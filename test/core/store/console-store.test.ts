// The console's users, sessions and one-time links in the store (issue 25), on SQLite and PostgreSQL: names are
// unique; a session is found while it has neither ended nor expired and its user is enabled; logout ends one
// session, a new password every session of the user; a link is used once, and never after it expired.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConsoleUserExists } from '../../../core/store/console-store.js';
import { storeBackends } from '../../helpers/test-stores.js';
import { useTempStore } from './store-fixtures.js';

for (const backend of storeBackends()) describe(`console store (${backend.name})`, { skip: backend.skip }, () => {
  const temp = useTempStore('console.db', backend);

  it('users: unique names, found by id or name, listed per account, operators apart', async () => {
    const c = temp.get().console;
    await c.createUser({ id: 'u1', name: 'ada', account: 'acme', passwordHash: null, createdAt: 1 });
    await c.createUser({ id: 'u2', name: 'root', account: null, passwordHash: 'scrypt$x', createdAt: 2 });
    await c.createUser({ id: 'u3', name: 'bob', account: 'acme', passwordHash: null, createdAt: 3 });
    await assert.rejects(c.createUser({ id: 'u4', name: 'ada', account: 'other', passwordHash: null, createdAt: 4 }), ConsoleUserExists);
    assert.deepEqual(await c.findUser({ name: 'ada' }), { id: 'u1', name: 'ada', account: 'acme', passwordHash: null, createdAt: 1, disabled: false });
    assert.equal((await c.findUser({ id: 'u2' }))?.account, null);
    assert.equal(await c.findUser({ name: 'nobody' }), undefined);
    assert.deepEqual((await c.listUsers('acme')).map((u) => u.name), ['ada', 'bob']);
    assert.deepEqual((await c.listUsers(null)).map((u) => u.name), ['root']);
    await c.createLink({ tokenHash: 'reset', userId: 'u1', createdAt: 5, expiresAt: 10_000 });
    assert.equal(await c.findLink('reset', 6), 'u1');
    await c.setPassword('u1', 'scrypt$new', 7);
    assert.equal((await c.findUser({ id: 'u1' }))?.passwordHash, 'scrypt$new');
    assert.equal(await c.findLink('reset', 8), undefined, 'a link sent before the change sets nothing any more');
  });

  it('sessions: found until they end or expire, or their user is disabled', async () => {
    const c = temp.get().console;
    await c.createUser({ id: 'u1', name: 'ada', account: 'acme', passwordHash: 'h', createdAt: 1 });
    await c.createSession({ tokenHash: 's1', userId: 'u1', csrf: 'c1', createdAt: 100, expiresAt: 1000 });
    await c.createSession({ tokenHash: 's2', userId: 'u1', csrf: 'c2', createdAt: 100, expiresAt: 1000 });
    const found = await c.findSession('s1', 500);
    assert.deepEqual([found?.session.csrf, found?.user.name, found?.session.expiresAt], ['c1', 'ada', 1000]);
    assert.equal(await c.findSession('s1', 1000), undefined, 'expired at its time');
    assert.equal(await c.findSession('nope', 500), undefined);
    await c.endSessions({ tokenHash: 's1' }, 600);
    assert.equal(await c.findSession('s1', 700), undefined, 'logged out');
    assert.ok((await c.findSession('s2', 700)) !== undefined, 'the other session stays');
    await c.setUserDisabled('u1', true);
    assert.equal(await c.findSession('s2', 700), undefined, 'a disabled user has no session');
    await c.setUserDisabled('u1', false);
    await c.endSessions({ userId: 'u1' }, 800);
    assert.equal(await c.findSession('s2', 900), undefined, 'all ended');
  });

  it('a user\'s own sessions (0021): listed live and newest first with where they came from, touched, ended by id within the user only, or all but one', async () => {
    const c = temp.get().console;
    await c.createUser({ id: 'u1', name: 'ada', account: 'acme', passwordHash: 'h', createdAt: 1 });
    await c.createUser({ id: 'u2', name: 'gus', account: 'globex', passwordHash: 'h', createdAt: 1 });
    await c.createSession({ tokenHash: 'a1', userId: 'u1', csrf: 'c', createdAt: 100, expiresAt: 1000, address: '203.0.113.7', userAgent: 'Firefox' });
    await c.createSession({ tokenHash: 'a2', userId: 'u1', csrf: 'c', createdAt: 200, expiresAt: 1000 });
    await c.createSession({ tokenHash: 'a3', userId: 'u1', csrf: 'c', createdAt: 300, expiresAt: 1000 });
    await c.createSession({ tokenHash: 'old', userId: 'u1', csrf: 'c', createdAt: 0, expiresAt: 150 });
    await c.createSession({ tokenHash: 'g1', userId: 'u2', csrf: 'c', createdAt: 100, expiresAt: 1000 });
    const listed = await c.listSessions('u1', 400);
    assert.deepEqual(listed.map((s) => [s.tokenHash, s.address, s.userAgent, s.lastSeenAt]), [['a3', null, null, 300], ['a2', null, null, 200], ['a1', '203.0.113.7', 'Firefox', 100]]);
    assert.ok(listed.every((s) => /^cs_[0-9a-f]{24}$/.test(s.id)) && new Set(listed.map((s) => s.id)).size === 3, 'each its own public id');
    await c.touchSession('a1', 450);
    assert.equal((await c.findSession('a1', 460))?.session.lastSeenAt, 450);
    const gus = (await c.listSessions('u2', 400))[0]?.id ?? '';
    assert.equal(await c.endSessions({ userId: 'u1', id: gus }, 500), 0, 'another user\'s id ends nothing');
    assert.ok((await c.findSession('g1', 500)) !== undefined);
    const a2 = listed[1]?.id ?? '';
    assert.equal(await c.endSessions({ userId: 'u1', id: a2 }, 500), 1);
    assert.equal(await c.findSession('a2', 500), undefined);
    assert.equal(await c.endSessions({ userId: 'u1', keep: 'a3' }, 600), 1, 'a1 ended, a3 kept');
    assert.deepEqual((await c.listSessions('u1', 700)).map((s) => s.tokenHash), ['a3']);
  });

  it('links: used once, not after they expire; a newer link of a user ends the older ones', async () => {
    const c = temp.get().console;
    await c.createLink({ tokenHash: 'l0', userId: 'u9', createdAt: 0, expiresAt: 1000 });
    await c.createLink({ tokenHash: 'l1', userId: 'u9', createdAt: 0, expiresAt: 1000 });
    await c.createLink({ tokenHash: 'l2', userId: 'u8', createdAt: 0, expiresAt: 1000 });
    assert.equal(await c.findLink('l0', 10), undefined, 'ended by the newer one');
    assert.equal(await c.findLink('l1', 10), 'u9');
    assert.equal(await c.findLink('l2', 1000), undefined, 'expired');
    const [first, second] = await Promise.all([c.useLink('l1', 10), c.useLink('l1', 10)]);
    assert.deepEqual([first, second].sort(), ['u9', undefined].sort(), 'two uses racing: one wins');
    assert.equal(await c.useLink('l1', 20), undefined);
    assert.equal(await c.useLink('l2', 1000), undefined, 'expired');
    assert.equal(await c.useLink('unknown', 10), undefined);
  });

  it('prunes the sessions and links that can open nothing any more, and only those', async () => {
    const c = temp.get().console;
    await c.createUser({ id: 'u1', name: 'ada', account: 'acme', passwordHash: 'h', createdAt: 1 });
    await c.createSession({ tokenHash: 'live', userId: 'u1', csrf: 'c', createdAt: 0, expiresAt: 1000 });
    await c.createSession({ tokenHash: 'expired', userId: 'u1', csrf: 'c', createdAt: 0, expiresAt: 100 });
    await c.createSession({ tokenHash: 'ended', userId: 'u1', csrf: 'c', createdAt: 0, expiresAt: 1000 });
    await c.endSessions({ tokenHash: 'ended' }, 50);
    // Each link of a user of its own: a user's newer link would end the older ones.
    await c.createLink({ tokenHash: 'old', userId: 'u2', createdAt: 0, expiresAt: 100 });
    await c.createLink({ tokenHash: 'used', userId: 'u3', createdAt: 0, expiresAt: 1000 });
    await c.createLink({ tokenHash: 'open', userId: 'u1', createdAt: 0, expiresAt: 1000 });
    await c.useLink('used', 50);
    await c.pruneExpired(500);
    assert.ok((await c.findSession('live', 500)) !== undefined);
    // Gone, not just expired: asked at a time they were valid, the pruned ones are unknown.
    assert.equal(await c.findSession('expired', 50), undefined, 'pruned');
    assert.ok((await c.findSession('live', 50)) !== undefined);
    assert.equal(await c.useLink('old', 50), undefined, 'pruned, even at a time it was valid');
    assert.equal(await c.useLink('open', 600), 'u1');
  });
});
