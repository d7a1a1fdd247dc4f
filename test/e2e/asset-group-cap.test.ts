// The per-key cap of asset groups (200) holds under parallel creates on two instances of one store: 30 creates at 195
// end at exactly 200, the rest refused before the library is asked, so the fake control planes make 5 groups and no
// more. A create whose group the library made but the store could not record (a NUL in the name, on PostgreSQL) still
// counts against the key: the library never makes more groups than the key may hold.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { storeBackends } from '../helpers/test-stores.js';
import { ALICE, ALICE_TWO, BOB, HALF, startVideoGateway, startVideoPlanes, type VideoGateway, type VideoPlanes } from '../helpers/video-gateway.js';
import { ASSET_STORE } from '../../features/assets/store-part.js';

const CAP = 200;

for (const backend of storeBackends()) {
  describe(`the per-key asset group cap across instances (${backend.name})`, { skip: backend.skip }, () => {
    let planes: VideoPlanes;
    let db: { readonly url: string; cleanup(): Promise<void> };
    let one: VideoGateway;
    let two: VideoGateway;
    before(async () => {
      planes = await startVideoPlanes();
      db = await backend.fresh();
      one = await startVideoGateway(planes, { store: db.url });
      two = await startVideoGateway(planes, { store: db.url, credit: '' });
    });
    after(async () => {
      await Promise.all([one?.stop(), two?.stop()]);
      await planes?.close();
      await db?.cleanup();
    });

    const made = (): number => planes.control.groups.size + planes.controlTwo.groups.size;
    const create = (gw: VideoGateway, key: string, name: string) => gw.request(key, 'POST', '/v1/videogen/asset/CreateAssetGroup', { Name: name });
    /** `n` groups of `keyId` recorded straight in the store, as if made earlier. */
    const seed = async (keyId: string, account: string, n: number): Promise<void> => {
      const store = one.gw.gateway.runtime.deps.store.part(ASSET_STORE);
      const now = Date.now();
      for (let i = 0; i < n; i++) {
        await store.addGroup({ id: `group-seed-${keyId}-${i}`, channel: 'ark', keyId, account, bound: true, name: `seed ${i}`, createdAt: now + i, updatedAt: now + i });
      }
    };
    const held = async (keyId: string, account: string): Promise<number> => (await one.gw.gateway.runtime.deps.store.part(ASSET_STORE).boundGroupIds({ keyId, account })).length;

    test('30 parallel creates on two instances at 195 groups end at exactly 200; the library made 5', async () => {
      await seed('config:alice', 'acme', CAP - 5);
      const before = made();
      const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => create(i % 2 === 0 ? one : two, ALICE, `race ${i}`)));
      const ok = answers.filter((a) => a.status === 200);
      const refused = answers.filter((a) => a.status !== 200);
      assert.equal(ok.length, 5, answers.map((a) => a.status).join(','));
      for (const answer of refused) {
        assert.equal(answer.status, 403, answer.text);
        assert.equal((answer.body['ResponseMetadata'] as { Error?: { Code?: string } }).Error?.Code, 'QuotaExceeded.AssetGroups', answer.text);
      }
      assert.equal(await held('config:alice', 'acme'), CAP);
      assert.equal(made() - before, 5, 'the library made one group per create that was let through, and no more');
      // The slots were turned into groups: the key is at its cap, not past it, and the next create is refused too.
      assert.equal((await create(two, ALICE, 'one more')).status, 403);
      assert.equal(made() - before, 5);
    });

    test('a group the library made but the store could not record still counts: the library never makes more than the cap', async () => {
      await seed('config:bob', 'other', CAP - 5);
      const before = made();
      // On PostgreSQL a NUL cannot be stored: the library makes the group and recording it fails (SQLite stores it;
      // refused at the intake, it makes none). Whichever, what the library made stays within the key's 5 free slots.
      const orphans = await Promise.all(Array.from({ length: 8 }, (_, i) => create(i % 2 === 0 ? one : two, BOB, `orphan${i}\u0000`)));
      const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => create(i % 2 === 0 ? one : two, BOB, `after ${i}`)));
      const ok = [...orphans, ...answers].filter((a) => a.status === 200).length;
      assert.equal(made() - before, 5, `the library made ${made() - before} groups for a key with 5 free slots`);
      assert.equal(await held('config:bob', 'other'), CAP - 5 + ok);
      assert.equal((await create(one, BOB, 'one more')).status, 403, 'the key is at its cap, orphans counted');
    });

    test("a create the library refused gives its slot back: the key's last group can still be made", async () => {
      await seed('config:half', 'other', CAP - 1);
      const before = made();
      // The first library in the config takes new groups while it is not cooling down (a 400 does not cool it).
      planes.control.failNext('CreateAssetGroup', 400, 'InvalidParameter', 'The name is refused.');
      assert.equal((await create(one, HALF, 'refused')).status, 400);
      // A refusal carried in a 2xx's envelope made nothing either.
      planes.control.failNext('CreateAssetGroup', 200, 'InvalidParameter', 'The name is refused.');
      assert.notEqual((await create(one, HALF, 'refused in a 2xx')).status, 200);
      assert.equal((await create(two, HALF, 'last')).status, 200);
      assert.equal((await create(one, HALF, 'past the cap')).status, 403);
      assert.equal(made() - before, 1);
      assert.equal(await held('config:half', 'other'), CAP);
    });

    test('a 5xx, which may have made a group, keeps its slot: the key at its cap less one is then full', async () => {
      await seed('config:alice-two', 'acme', CAP - 1);
      const before = made();
      // Whichever library takes the create fails it (the last test: a failure left queued on the other harms none).
      planes.control.failNext('CreateAssetGroup', 500, 'InternalError', 'Something broke.');
      planes.controlTwo.failNext('CreateAssetGroup', 500, 'InternalError', 'Something broke.');
      assert.equal((await create(one, ALICE_TWO, 'maybe made')).status >= 500, true);
      assert.equal((await create(two, ALICE_TWO, 'one more')).status, 403);
      assert.equal(made(), before);
    });
  });
}
