// auth: a declared key is admitted (or refused for the model) synchronously, with no promise; a store key
// waits for its first lookup only.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { GatewayError } from '../../core/errors.js';
import { createOpenAIChatFormat } from '../../core/formats/openai-chat/index.js';
import { BodyBytes } from '../../core/formats/body-bytes.js';
import { GroupAccess } from '../../core/keys/group-access.js';
import { digestKey, generateKey, keyPrefix, newKeyId } from '../../core/keys/key-material.js';
import { KeyRing } from '../../core/keys/key-ring.js';
import { ClientAbort } from '../../core/pipeline/client-abort.js';
import type { RequestContext } from '../../core/pipeline/context.js';
import type { GatewayServices } from '../../core/pipeline/plugin.js';
import type { Store, StoredKey } from '../../core/store/store.js';
import { authPlugin } from '../../plugins/auth/index.js';

const DECLARED = 'sk-declared-alice-0000000000000000000000000';

function context(key: string, model: string): RequestContext {
  const body = { model, messages: [] };
  return {
    id: 'req_1',
    route: '/v1/chat/completions',
    query: '',
    format: createOpenAIChatFormat(),
    headers: { authorization: `Bearer ${key}` },
    abort: new ClientAbort(),
    receivedAt: Date.now(),
    startedAt: 0,
    request: { raw: BodyBytes.of(Buffer.from(JSON.stringify(body))), head: body, json: body, model, stream: false, conversation: null },
    bodyOverride: null,
    key: null,
    channel: null,
    upstreamModel: null,
    usage: null,
    status: 0,
    error: null,
    firstByteAt: null,
    stream: false,
    aborted: false,
  };
}

function hook(stored: Map<string, StoredKey>): NonNullable<ReturnType<typeof authPlugin.create>['request']> {
  const store = { findKeyByHash: (hash: string) => Promise.resolve(stored.get(hash)) } as unknown as Store;
  const keys = new KeyRing([{ name: 'alice', key: DECLARED, group: 'team' }], store, { cacheTtlMs: 60_000 });
  const access = new GroupAccess(new Map([['team', { name: 'team', models: ['gpt-*'] }]]));
  const request = authPlugin.create({}, { keys, access } as unknown as GatewayServices).request;
  assert.ok(request !== undefined);
  return request;
}

test('a declared key is admitted without a promise, and a model outside its group refused at once', () => {
  const request = hook(new Map());
  const ctx = context(DECLARED, 'gpt-4o');
  assert.equal(request(ctx), undefined, 'nothing to await');
  assert.deepEqual(ctx.key, { id: 'config:alice', name: 'alice', group: 'team' });
  const refused = context(DECLARED, 'claude-x');
  assert.throws(
    () => request(refused),
    (err: unknown) => err instanceof GatewayError && err.code === 'GW_ERR_AUTH_MODEL_FORBIDDEN',
  );
});

test('an unknown key waits for the store and is refused; no key at all is refused at once', async () => {
  const request = hook(new Map());
  const unknown = request(context('sk-nobody', 'gpt-4o'));
  assert.ok(unknown instanceof Promise, 'the store is asked');
  await assert.rejects(unknown, (err: unknown) => err instanceof GatewayError && err.code === 'GW_ERR_AUTH_INVALID_KEY');
  const ctx = Object.assign(context('', 'gpt-4o'), { headers: {} });
  assert.throws(
    () => request(ctx),
    (err: unknown) => err instanceof GatewayError && err.code === 'GW_ERR_AUTH_MISSING_KEY',
  );
});

test('a store key waits for its first lookup, then is admitted without a promise', async () => {
  const key = generateKey();
  const stored = new Map<string, StoredKey>([
    [digestKey(key), { id: newKeyId(), name: 'bot', group: 'team', prefix: keyPrefix(key), hash: digestKey(key), createdAt: 1, revokedAt: null } as StoredKey],
  ]);
  const request = hook(stored);
  const first = context(key, 'gpt-4o');
  const pending = request(first);
  assert.ok(pending instanceof Promise);
  await pending;
  assert.equal(first.key?.name, 'bot');
  const again = context(key, 'gpt-4o');
  assert.equal(request(again), undefined);
  assert.equal(again.key?.name, 'bot');
});
