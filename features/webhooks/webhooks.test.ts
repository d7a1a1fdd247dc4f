// Webhooks over a real store (SQLite, and PostgreSQL when GATEWAY_TEST_POSTGRES_URL names one) and a real receiver on
// loopback: kept once per fleet, sent once per fleet by two senders at once, retried with a back-off that doubles on a
// clock the test moves, taken over from a sender that died, signed as the Standard Webhooks library verifies, and
// never sent to an address that is not public unless the hook allows it.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { Webhook } from 'standardwebhooks';
import { parseMoney } from '../../core/money/decimal.js';
import type { RecordedRequest } from '../../test/helpers/loopback-http-server.js';
import { WebhookReceiver } from '../../test/helpers/webhook-receiver.js';
import { openStoreAt, storeBackends, type OpenedStore } from '../../test/helpers/test-stores.js';
import { hookId, secretBytes, webhooksConfig, type WebhookSettings, type WebhookTarget } from './config.js';
import { Deliverer } from './deliver.js';
import { outboxEmitter } from './emitter.js';
import { scan } from './scanner.js';
import { backoffMs, WebhookSender, type SenderDeps } from './sender.js';
import { WEBHOOK_STORE } from './store-part.js';

/** A receiver that answers the statuses it is given in turn (then 200), and records every delivery. */
const SECRET = `whsec_${Buffer.from('a-secret-of-thirty-two-bytes!!!!').toString('base64')}`;

function target(url: string, events: WebhookTarget['events'], more: Partial<WebhookTarget> = {}): WebhookTarget {
  return { id: hookId(url), url: new URL(url), events, secret: secretBytes(SECRET), allowPrivate: true, balanceBelow: parseMoney('5'), keyExpiringDays: 7, ...more };
}

/** A clock the test moves by hand. */
function clock(start = Date.UTC(2026, 10, 28, 12)): { now: () => number; advance: (ms: number) => void } {
  let at = start;
  return { now: () => at, advance: (ms) => void (at += ms) };
}

const silent = pino({ level: 'silent' });

function senderOf(store: OpenedStore, settings: WebhookSettings, owner: string, now: () => number, deliverer: Deliverer, outcomes: string[] = []): WebhookSender {
  const deps = (): SenderDeps => ({ settings, outbox: store.store.part(WEBHOOK_STORE).outbox, logger: silent, counted: (o) => void outcomes.push(o) });
  return new WebhookSender({ owner, deps, deliverer, now });
}

/** The Standard Webhooks library's verdict on a delivery (throws when the signature or timestamp is wrong). */
function verified(request: RecordedRequest, atMs: number): unknown {
  const headers = { 'webhook-id': String(request.headers['webhook-id']), 'webhook-timestamp': String(request.headers['webhook-timestamp']), 'webhook-signature': String(request.headers['webhook-signature']) };
  // The library compares the timestamp with its own clock: checked against the test's by hand below instead.
  assert.equal(Number(headers['webhook-timestamp']), Math.floor(atMs / 1000));
  const realNow = Date.now;
  Date.now = () => atMs;
  try {
    return new Webhook(SECRET).verify(request.raw.toString('utf8'), headers);
  } finally {
    Date.now = realNow;
  }
}

for (const backend of storeBackends()) {
  describe(`webhooks on ${backend.name}`, { skip: backend.skip }, () => {
    let receiver: WebhookReceiver;
    let deliverer: Deliverer;

    before(async () => {
      receiver = await new WebhookReceiver().start();
      deliverer = new Deliverer();
    });
    after(async () => {
      await deliverer.close();
      await receiver.close();
    });

    it('keeps an occurrence once per hook however many instances emit it, and two senders deliver it once, signed', async () => {
      const db = await backend.fresh();
      // Two instances: two stores over one database.
      const a = await openStoreAt(db.url);
      const b = await openStoreAt(db.url);
      try {
        receiver.received.length = 0;
        const t = clock();
        const hook = target(`${receiver.url}/hooks/a`, new Set(['video_failed']));
        const other = target(`${receiver.url}/hooks/b`, new Set(['balance_low']));
        const settings = { hooks: [hook, other] };
        const event = { type: 'video_failed' as const, key: 'video_failed:video_1', data: { task_id: 'video_1' } };
        await Promise.all([outboxEmitter(settings, () => a.part(WEBHOOK_STORE).outbox).emit(event, t.now()), outboxEmitter(settings, () => b.part(WEBHOOK_STORE).outbox).emit(event, t.now())]);
        await outboxEmitter(settings, () => a.part(WEBHOOK_STORE).outbox).emit(event, t.now());
        assert.deepEqual(await a.part(WEBHOOK_STORE).outbox.counts(), { pending: 1, delivered: 0, failed: 0 });

        const opened = (store: typeof a): OpenedStore => ({ store, url: db.url, cleanup: async () => undefined });
        const sentA = senderOf(opened(a), settings, 'instance-a', t.now, deliverer);
        const sentB = senderOf(opened(b), settings, 'instance-b', t.now, deliverer);
        const passes = await Promise.all([sentA.pass(), sentB.pass()]);
        assert.equal(passes[0] + passes[1], 1, 'one sender took it');
        assert.equal(receiver.received.length, 1);
        const [delivery] = receiver.received;
        assert.ok(delivery !== undefined);
        assert.equal(delivery.path, '/hooks/a');
        assert.equal(delivery.headers['content-type'], 'application/json');
        const payload = verified(delivery, t.now()) as { id: string; type: string; time: string; data: unknown };
        assert.equal(payload.id, delivery.headers['webhook-id']);
        assert.match(payload.id, /^evt_[0-9a-f]{24}$/);
        assert.equal(payload.type, 'video_failed');
        assert.equal(payload.time, new Date(t.now()).toISOString());
        assert.deepEqual(payload.data, { task_id: 'video_1' });
        // Tampered bytes fail the library's check.
        assert.throws(() => verified(Object.assign({}, delivery, { raw: Buffer.from(delivery.raw.toString().replace('video_1', 'video_2')) }), t.now()));

        assert.equal(await sentA.pass(), 0);
        assert.equal(await sentB.pass(), 0);
        assert.equal(receiver.received.length, 1, 'never sent twice');
        assert.deepEqual(await a.part(WEBHOOK_STORE).outbox.counts(), { pending: 0, delivered: 1, failed: 0 });
      } finally {
        await a.close();
        await b.close();
        await db.cleanup();
      }
    });

    it('retries a failing receiver with a back-off that doubles, sending the same id and bytes, until it takes it', async () => {
      const store = await backend.open();
      try {
        receiver.received.length = 0;
        receiver.statuses = [500, 503, 404];
        const t = clock();
        const hook = target(`${receiver.url}/retry`, new Set(['key_expiring']));
        const settings = { hooks: [hook] };
        await outboxEmitter(settings, () => store.store.part(WEBHOOK_STORE).outbox).emit({ type: 'key_expiring', key: 'k1', data: { key_name: 'ci' } }, t.now());
        const outcomes: string[] = [];
        const sender = senderOf(store, settings, 'only', t.now, deliverer, outcomes);

        assert.equal(await sender.pass(), 1);
        t.advance(backoffMs(1) - 1);
        assert.equal(await sender.pass(), 0, 'not due before its back-off');
        t.advance(1);
        assert.equal(await sender.pass(), 1);
        t.advance(backoffMs(2) - 1);
        assert.equal(await sender.pass(), 0);
        t.advance(1);
        assert.equal(await sender.pass(), 1);
        t.advance(backoffMs(3));
        assert.equal(await sender.pass(), 1);
        assert.deepEqual(outcomes, ['retried', 'retried', 'retried', 'delivered']);
        assert.deepEqual([backoffMs(1), backoffMs(2), backoffMs(3)], [5_000, 10_000, 20_000]);
        assert.equal(receiver.received.length, 4);
        const ids = new Set(receiver.received.map((r) => r.headers['webhook-id']));
        assert.equal(ids.size, 1, 'one id on every attempt');
        assert.equal(new Set(receiver.received.map((r) => r.raw.toString())).size, 1, 'the same bytes on every attempt');
        assert.deepEqual(await store.store.part(WEBHOOK_STORE).outbox.counts(), { pending: 0, delivered: 1, failed: 0 });
      } finally {
        receiver.statuses = [];
        await store.cleanup();
      }
    });

    it("an instance whose config lacks a hook leaves that hook's events to the instances that have it; the outbox is pruned", async () => {
      const store = await backend.open();
      try {
        receiver.received.length = 0;
        const t = clock();
        const hook = target(`${receiver.url}/rollout`, new Set(['video_failed']));
        const outbox = store.store.part(WEBHOOK_STORE).outbox;
        await outboxEmitter({ hooks: [hook] }, () => outbox).emit({ type: 'video_failed', key: 'r1', data: {} }, t.now());
        // An instance still on the old config (no hooks, or others): it takes nothing and drops nothing.
        const old = senderOf(store, { hooks: [target(`${receiver.url}/other`, new Set(['video_failed']))] }, 'old', t.now, deliverer);
        assert.equal(await old.pass(), 0);
        assert.equal(await senderOf(store, { hooks: [] }, 'none', t.now, deliverer).pass(), 0);
        assert.deepEqual(await outbox.counts(), { pending: 1, delivered: 0, failed: 0 });
        assert.equal(await senderOf(store, { hooks: [hook] }, 'new', t.now, deliverer).pass(), 1);
        assert.equal(receiver.received.length, 1);
        // Pruned: what ended before the cut is deleted; what no instance took for that long is given up on.
        await outboxEmitter({ hooks: [hook] }, () => outbox).emit({ type: 'video_failed', key: 'r2', data: {} }, t.now());
        assert.deepEqual(await outbox.prune(t.now() + 1, t.now() + 1, t.now() + 1), { deleted: 1, abandoned: 1 });
        assert.deepEqual(await outbox.counts(), { pending: 0, delivered: 0, failed: 1 });
      } finally {
        await store.cleanup();
      }
    });

    it('loses nothing across a restart: a sender that died holding an event lets it go when its lease runs out', async () => {
      const db = await backend.fresh();
      const first = await openStoreAt(db.url, 2);
      const t = clock();
      const hook = target(`${receiver.url}/restart`, new Set(['budget_reached']));
      try {
        receiver.received.length = 0;
        await outboxEmitter({ hooks: [hook] }, () => first.part(WEBHOOK_STORE).outbox).emit({ type: 'budget_reached', key: 'b1', data: {} }, t.now());
        // The first instance leases it and dies before sending.
        assert.equal((await first.part(WEBHOOK_STORE).outbox.claimDue('dead', [hook.id], t.now(), t.now() + 60_000, 10)).length, 1);
      } finally {
        await first.close();
      }
      const second = await openStoreAt(db.url, 2);
      try {
        const sender = senderOf({ store: second, url: db.url, cleanup: async () => undefined }, { hooks: [hook] }, 'restarted', t.now, deliverer);
        assert.equal(await sender.pass(), 0, 'still leased');
        t.advance(60_001);
        assert.equal(await sender.pass(), 1);
        assert.equal(receiver.received.length, 1);
        assert.deepEqual(await second.part(WEBHOOK_STORE).outbox.counts(), { pending: 0, delivered: 1, failed: 0 });
      } finally {
        await second.close();
        await db.cleanup();
      }
    });

    it('scans balances and keys into events once per occurrence; a top-up starts a new one', async () => {
      const store = await backend.open();
      try {
        const t = clock();
        const hook = target(`${receiver.url}/scan`, new Set(['balance_low', 'budget_reached', 'key_expiring']), { balanceBelow: parseMoney('5') });
        const settings = { hooks: [hook] };
        const { ledger } = store.store;
        await ledger.createAccount('acme', null, t.now());
        await ledger.post({ account: 'acme', kind: 'credit', amount: parseMoney('3'), idempotencyKey: 'c1', ts: t.now() });
        await store.store.createKey({
          id: 'key_soon',
          name: 'ci-key',
          group: 'default',
          prefix: 'sk-ci',
          hash: 'h'.repeat(64),
          createdAt: t.now(),
          account: 'acme',
          expiresAt: t.now() + 3 * 86_400_000,
        });
        const deps = { settings, store: store.store.part(WEBHOOK_STORE), declaredKeys: [{ name: 'declared', key: 'sk-x', group: 'default', maxSpend: 0n }], declaredAccounts: [], clock: t.now };
        await scan(deps, t.now());
        await scan(deps, t.now() + 1000);
        const outbox = store.store.part(WEBHOOK_STORE).outbox;
        const sent = async (): Promise<{ type: string; data: Record<string, unknown> }[]> => {
          const due = await outbox.claimDue('reader', [hook.id], t.now() + 10_000_000, t.now() + 20_000_000, 100);
          return due.map((e) => JSON.parse(e.body) as { type: string; data: Record<string, unknown> }).sort((x, y) => x.type.localeCompare(y.type));
        };
        const first = await sent();
        assert.deepEqual(
          first.map((e) => e.type),
          ['balance_low', 'budget_reached', 'key_expiring'],
        );
        assert.deepEqual(first[0]?.data, { account: 'acme', balance: '3', threshold: '5' });
        // The declared key with a max_spend of 0 has reached it.
        assert.deepEqual(first[1]?.data, { scope: 'key', key_id: 'config:declared', key_name: 'declared', account: null, max_spend: '0', spent: '0' });
        assert.equal(first[2]?.data['key_name'], 'ci-key');

        // Topped up above the threshold, then spent below it again: a new occurrence.
        await ledger.post({ account: 'acme', kind: 'credit', amount: parseMoney('10'), idempotencyKey: 'c2', ts: t.now() });
        await scan(deps, t.now() + 2000);
        await ledger.post({ account: 'acme', kind: 'adjustment', amount: -parseMoney('12'), idempotencyKey: 'a1', note: 'test', ts: t.now() });
        await scan(deps, t.now() + 3000);
        await scan(deps, t.now() + 4000);
        // Within the first reader's lease: only what is new.
        const again = await outbox.claimDue('reader-2', [hook.id], t.now() + 10_000_100, t.now() + 40_000_000, 100);
        assert.deepEqual(
          again.map((e) => e.type),
          ['balance_low'],
        );
      } finally {
        await store.cleanup();
      }
    });
  });
}

describe('webhook addresses', () => {
  it('refuses, at config load, a hook on a non-public address unless allow_private', () => {
    const problems = webhooksConfig.check?.({
      channels: [],
      webhooks: [
        { url: 'http://127.0.0.1:9/x', events: ['balance_low'], secret: 'sixteen-chars-long' },
        { url: 'https://localhost/x', events: ['balance_low'], secret: 'sixteen-chars-long' },
        { url: 'https://10.1.2.3/x', events: ['balance_low'], secret: 'sixteen-chars-long' },
        { url: 'http://127.0.0.1:9/y', events: ['balance_low'], secret: 'sixteen-chars-long', allow_private: true },
        { url: 'https://hooks.example.com/x', events: ['balance_low'], secret: 'whsec_c2hvcnQ=' },
        { url: 'http://127.0.0.1:9/y', events: ['video_failed'], secret: 'sixteen-chars-long', allow_private: true },
      ],
    });
    assert.deepEqual(
      problems?.map((p) => p.path.join('.')).sort(),
      ['webhooks.0.url', 'webhooks.1.url', 'webhooks.2.url', 'webhooks.4.secret', 'webhooks.5.url'],
    );
    assert.match(problems?.find((p) => p.path.join('.') === 'webhooks.5.url')?.message ?? '', /same URL/);
    assert.match(problems?.find((p) => p.path.join('.') === 'webhooks.0.url')?.message ?? '', /https|allow_private/);
  });

  it('never connects to a name that resolves to a private address (checked at connect time, DNS rebinding)', async () => {
    const receiver = await new WebhookReceiver().start();
    const port = new URL(receiver.url).port;
    // A public-looking name that DNS answers with loopback, where the receiver listens.
    const deliverer = new Deliverer((_host, callback) => callback(null, [{ address: '127.0.0.1', family: 4 }]));
    try {
      const hook = target(`http://hooks.example.com:${port}/x`, new Set(['balance_low']), { allowPrivate: false });
      const outcome = await deliverer.deliver(hook, 'evt_1', '{}', Date.now());
      assert.deepEqual(outcome, { ok: false, error: 'transport error (ENOTPUBLIC)' });
      assert.equal(receiver.received.length, 0);
      // With allow_private the receiver is reached (its own pool, which checks no address).
      const allowed = await deliverer.deliver(Object.assign({}, hook, { allowPrivate: true, url: new URL(`http://127.0.0.1:${port}/x`) }), 'evt_2', '{}', Date.now());
      assert.deepEqual(allowed, { ok: true, status: 200 });
    } finally {
      await deliverer.close();
      await receiver.close();
    }
  });
});
