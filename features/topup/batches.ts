// The operator's batches of top-up codes: made (each code's secret in this answer only, never again), listed with
// what became of their codes, disabled or enabled again.

import { GatewayError } from '../../core/errors.js';
import { parseIsoTime } from '../../core/iso-time.js';
import { readAmount } from '../../core/money/account-admin.js';
import { consoleJson } from '../../core/console/console-answer.js';
import { offsetParam } from '../../core/console/query-params.js';
import type { RequestContext } from '../../core/pipeline/context.js';
import type { GatewayServices, RelayResult } from '../../core/pipeline/plugin.js';
import { digestCode, generateCode, lastFour, maskedCode, newBatchId, newCodeId, normalizeCode } from './code-material.js';
import { TOPUP_ERRORS } from './errors.js';
import { readDisabled } from './read-disabled.js';
import { shownBatch } from './shown.js';
import { TOPUP_STORE } from './store-part.js';

/** Codes per batch: a thousand secrets is what one answer (and one spreadsheet) should carry. */
export const MAX_CODES = 1000;
const MAX_NOTE = 500;
const MAX_IDEMPOTENCY_KEY = 200;
const PAGE = 50;

const invalid = (param: string, message: string): GatewayError => new GatewayError('GW_ERR_REQUEST_INVALID_FIELD', message, { param });

function readCount(value: unknown): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > MAX_CODES) throw invalid('count', `count must be a whole number from 1 to ${MAX_CODES}.`);
  return value;
}

function readExpiry(value: unknown, now: number): number | null {
  if (value === undefined || value === null || value === '') return null;
  const at = typeof value === 'string' ? parseIsoTime(value) : null;
  if (at === null) throw invalid('expires_at', 'expires_at must be an ISO 8601 date or time with its offset, such as "2027-01-31" or "2027-01-31T09:00:00+01:00", or null for never.');
  if (at <= now) throw invalid('expires_at', 'expires_at must be in the future.');
  return at;
}

function readNote(value: unknown): string | null {
  if (value === undefined || value === null || value === '') return null;
  if (typeof value !== 'string' || value.length > MAX_NOTE) throw invalid('note', `note must be a string of at most ${MAX_NOTE} characters.`);
  return value;
}

/** POST /console/api/topup/batches: 201 with every code's secret, once; 200 and no secrets for a repeated idempotency key. */
export async function createBatchAnswer(ctx: RequestContext, services: GatewayServices): Promise<RelayResult> {
  const body = ctx.request.head;
  const now = Date.now();
  // Every field checked before anything is made: a bad one makes nothing.
  const amount = readAmount(body['amount'], 'amount');
  const count = readCount(body['count']);
  const expiresAt = readExpiry(body['expires_at'], now);
  const note = readNote(body['note']);
  const key = body['idempotency_key'];
  if (typeof key !== 'string' || key === '' || key.length > MAX_IDEMPOTENCY_KEY) {
    throw invalid('idempotency_key', `idempotency_key is required: a string of 1 to ${MAX_IDEMPOTENCY_KEY} characters naming this batch, so a retry makes it once.`);
  }
  const secrets = Array.from({ length: count }, () => generateCode());
  const codes = secrets.map((secret) => {
    const normalized = normalizeCode(secret) ?? '';
    return { id: newCodeId(), hash: digestCode(normalized), last4: lastFour(normalized) };
  });
  const store = services.store.part(TOPUP_STORE);
  const made = await store.createBatch({ id: newBatchId(), amount, note, idempotencyKey: key, createdAt: now, expiresAt, codes });
  // A retry repeats the fields; other fields under a used key are another batch the operator meant, which was not made.
  const first = made.batch;
  if (!made.created && (first.amount !== amount || first.count !== count || first.note !== note || first.expiresAt !== expiresAt)) {
    throw new GatewayError(TOPUP_ERRORS.GW_ERR_TOPUP_KEY_REUSED, `idempotency_key "${key}" already made batch ${first.id} with other fields: nothing was made. Use a new key for a new batch.`, { param: 'idempotency_key' });
  }
  const summary = await store.batch(made.batch.id);
  if (summary === undefined) throw new GatewayError(TOPUP_ERRORS.GW_ERR_TOPUP_NOT_FOUND, `No batch ${made.batch.id}.`);
  const batch = shownBatch(summary, services.config.pricing.currency, now);
  if (!made.created) return consoleJson(200, { batch, codes: [], applied: false });
  return consoleJson(201, { batch, codes: codes.map((c, i) => ({ id: c.id, code: secrets[i], masked: maskedCode(c.last4) })), applied: true });
}

/** GET /console/api/topup/batches */
export async function listBatches(ctx: RequestContext, services: GatewayServices): Promise<RelayResult> {
  const offset = offsetParam(new URLSearchParams(ctx.query));
  const found = await services.store.part(TOPUP_STORE).listBatches(offset, PAGE);
  const now = Date.now();
  return consoleJson(200, { object: 'list', data: found.rows.map((b) => shownBatch(b, services.config.pricing.currency, now)), total: found.total, offset });
}

/** PATCH /console/api/topup/batches/{id}: {disabled}. A disabled batch's codes are refused until it is enabled again. */
export async function updateBatch(ctx: RequestContext, services: GatewayServices): Promise<RelayResult> {
  const id = ctx.params?.['id'] ?? '';
  const disabled = readDisabled(ctx.request.head);
  const now = Date.now();
  const saved = await services.store.part(TOPUP_STORE).setBatchDisabled(id, disabled ? now : null);
  if (saved === undefined) throw new GatewayError(TOPUP_ERRORS.GW_ERR_TOPUP_NOT_FOUND, `No batch ${id}.`);
  return consoleJson(200, shownBatch(saved, services.config.pricing.currency, now));
}
