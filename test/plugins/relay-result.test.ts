// relay's toResult: a whole JSON answer that has all arrived is the result itself, not a promise of it (no
// microtask turns for a small request); one still arriving is awaited; a non-JSON error page is refused.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { GatewayError } from '../../core/errors.js';
import { UpstreamBody } from '../../core/providers/upstream-body.js';
import type { UpstreamResponse } from '../../core/providers/provider.js';
import type { RequestContext } from '../../core/pipeline/context.js';
import type { GatewayServices } from '../../core/pipeline/plugin.js';
import type { Attempt } from '../../core/routing/router.js';
import { toResult } from '../../plugins/relay/index.js';

function response(status: number, contentType: string, chunks: readonly string[], ended: boolean): UpstreamResponse {
  const body = new UpstreamBody({ pause() {}, resume() {}, cancel() {} });
  for (const chunk of chunks) body.push(Buffer.from(chunk));
  if (ended) body.end();
  return { status, headers: { 'content-type': contentType }, body, discard: () => Promise.resolve() };
}

const ctx = { stream: false } as RequestContext;
const services = { config: { server: { maxAnswerBytes: 1 << 20 } } } as unknown as GatewayServices;
const attempt = { channel: { keys: ['sk-upstream-0123456789abcdef'] } } as unknown as Attempt;

test('a complete JSON answer is the result itself, its chunks joined', () => {
  const result = toResult(ctx, services, attempt, response(200, 'application/json', ['{"id":', '"x"}'], true));
  assert.ok(!(result instanceof Promise), 'not a promise');
  assert.equal(result.kind, 'body');
  assert.equal(result.status, 200);
  assert.deepEqual(result.kind === 'body' ? [result.headers, result.body.toString()] : null, [{ 'content-type': 'application/json' }, '{"id":"x"}']);
});

test('an answer still arriving is awaited', async () => {
  const res = response(200, 'application/json', ['{"id":'], false);
  const result = toResult(ctx, services, attempt, res);
  assert.ok(result instanceof Promise);
  (res.body as UpstreamBody).push(Buffer.from('"y"}'));
  (res.body as UpstreamBody).end();
  const done = await result;
  assert.equal(done.kind === 'body' ? done.body.toString() : null, '{"id":"y"}');
});

test('a non-JSON error page is refused in the caller\'s format, at once when complete', async () => {
  const isUpstreamError = (err: unknown): boolean => err instanceof GatewayError && err.code === 'GW_ERR_UPSTREAM_ERROR';
  assert.throws(() => toResult(ctx, services, attempt, response(502, 'text/html', ['<html>bad gateway</html>'], true)), isUpstreamError);
  const res = response(502, 'text/html', ['<html>'], false);
  const pending = toResult(ctx, services, attempt, res);
  (res.body as UpstreamBody).end();
  await assert.rejects(Promise.resolve(pending), isUpstreamError);
});
