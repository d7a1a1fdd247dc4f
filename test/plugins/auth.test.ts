// auth: a declared key is admitted from the headers alone (head phase) synchronously, with no promise, and refused
// for the model once the body is read; a store key waits for its first lookup only.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { GatewayError } from '../../core/errors.js';
import { createOpenAIChatFormat } from '../../core/formats/openai-chat/index.js';
import { BodyBytes } from '../../core/formats/body-bytes.js';
import { GroupAccess } from '../../core/keys/group-access.js';
import { digestKey, generateKey, keyPrefix, newKeyId } from '../../core/keys/key-material.js';
import { KeyRing } from '../../core/keys/key-ring.js';
import { ClientAbort } from '../../core/client-abort.js';
import type { RequestContext } from '../../core/pipeline/context.js';
import type { GatewayServices, Plugin } from '../../core/pipeline/plugin.js';
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
    clientAddress: '127.0.0.1',
    abort: new ClientAbort(),
    receivedAt: Date.now(),
    startedAt: 0,
    request: { raw: BodyBytes.of(Buffer.from(JSON.stringify(body))), head: body, json: body, model, stream: false, conversation: null },
    bodyOverride: null,
    key: null,
    channel: null,
    upstreamModel: null,
    status: 0,
    error: null,
    firstByteAt: null,
    stream: false,
    aborted: false,
    trace: null,
    framesSent: 0,
    bodyBytesSent: 0,
    upstreamWaitMs: null,
    bodyWaitMs: 0,
    responseHeaders: null,
    safe: false,
    carriesBody: true,
    get: () => undefined,
    set: () => undefined,
  };
}

type Hooks = { head: NonNullable<Plugin['head']>; request: NonNullable<Plugin['request']> };

function hooks(stored: Map<string, StoredKey>): Hooks {
  const store = { findKeyByHash: (hash: string) => Promise.resolve(stored.get(hash)) } as unknown as Store;
  const keys = new KeyRing([{ name: 'alice', key: DECLARED, group: 'team' }], store, { cacheTtlMs: 60_000 });
  const access = new GroupAccess(new Map([['team', { name: 'team', models: ['gpt-*'], limits: {}, modelLimits: [] }]]));
  const { head, request } = authPlugin.create({}, { keys, access } as unknown as GatewayServices);
  assert.ok(head !== undefined && request !== undefined);
  return { head, request };
}

/** A context whose body must not be read: the head phase runs before the body is there. */
function headersOnly(key: string): RequestContext {
  return Object.defineProperty(context(key, 'unread'), 'request', {
    get() {
      throw new Error('the head hook read the body');
    },
  });
}

test('a declared key is admitted from the headers without a promise, and a model outside its group refused with the body', () => {
  const { head, request } = hooks(new Map());
  const early = headersOnly(DECLARED);
  assert.equal(head(early), undefined, 'nothing to await');
  assert.deepEqual(early.key, { id: 'config:alice', name: 'alice', group: 'team' });
  const ctx = context(DECLARED, 'gpt-4o');
  assert.equal(head(ctx), undefined);
  assert.equal(request(ctx), undefined);
  const refused = context(DECLARED, 'claude-x');
  head(refused);
  assert.throws(
    () => request(refused),
    (err: unknown) => err instanceof GatewayError && err.code === 'GW_ERR_AUTH_MODEL_FORBIDDEN',
  );
});

test('an unknown key waits for the store and is refused; no key at all is refused at once; neither reads the body', async () => {
  const { head } = hooks(new Map());
  const unknown = head(headersOnly('sk-nobody'));
  assert.ok(unknown instanceof Promise, 'the store is asked');
  await assert.rejects(unknown, (err: unknown) => err instanceof GatewayError && err.code === 'GW_ERR_AUTH_INVALID_KEY');
  const ctx = Object.assign(headersOnly(''), { headers: {} });
  assert.throws(
    () => head(ctx),
    (err: unknown) => err instanceof GatewayError && err.code === 'GW_ERR_AUTH_MISSING_KEY',
  );
});

test('a store key waits for its first lookup, then is admitted without a promise', async () => {
  const key = generateKey();
  const stored = new Map<string, StoredKey>([
    [digestKey(key), { id: newKeyId(), name: 'bot', group: 'team', prefix: keyPrefix(key), hash: digestKey(key), createdAt: 1, revokedAt: null } as StoredKey],
  ]);
  const { head } = hooks(stored);
  const first = headersOnly(key);
  const pending = head(first);
  assert.ok(pending instanceof Promise);
  await pending;
  assert.equal(first.key?.name, 'bot');
  const again = headersOnly(key);
  assert.equal(head(again), undefined);
  assert.equal(again.key?.name, 'bot');
});
