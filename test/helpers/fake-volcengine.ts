// A fake Volcengine Ark control plane on loopback: `POST /?Action=X&Version=2024-01-01`, each request's signature
// checked with the official SDK's Signer (never with core's signer, which is what it tests), the official envelopes,
// and the asset actions of fake-volcengine-actions.ts. Every request is kept in `calls`, refused ones included.

import { createHash, randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Signer } from '@volcengine/openapi';
import { LoopbackHttpServer, recordRequest } from './loopback-http-server.js';
import { FakeAssetActions, type ActionOutcome, type FakeAsset, type FakeAssetGroup } from './fake-volcengine-actions.js';

export type { FakeAsset, FakeAssetGroup } from './fake-volcengine-actions.js';

const VERSION = '2024-01-01';
const SERVICE = 'ark';
/** How far X-Date may be from the fake's clock, as the real service allows. */
const MAX_SKEW_MS = 15 * 60 * 1000;
const AUTHORIZATION = /^HMAC-SHA256 Credential=([^/,]+)\/(\d{8})\/([^/,]+)\/([^/,]+)\/request, SignedHeaders=([a-z0-9;-]+), Signature=([0-9a-f]{64})$/;

export interface FakeVolcengineOptions {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  /** The region the credential must name; `cn-beijing` by default. */
  readonly region?: string;
  /** How long a new asset stays Processing; 300 ms by default. */
  readonly processingMs?: number;
}

/** One request as it arrived: its Action (from the query), parsed JSON body, and whether its signature held. */
export interface VolcengineCall {
  readonly action: string;
  readonly body: Record<string, unknown>;
  readonly signed: boolean;
  /** Why the signature was refused, or null. */
  readonly problem: string | null;
}

export interface FakeVolcengine {
  readonly url: string;
  readonly calls: VolcengineCall[];
  readonly groups: ReadonlyMap<string, FakeAssetGroup>;
  readonly assets: ReadonlyMap<string, FakeAsset>;
  /** The next validly signed call of `action` answers this error envelope instead. */
  failNext(action: string, status: number, code: string, message: string): void;
  close(): Promise<void>;
}

/** What the official SDK's Signer needs to sign one request, with the headers to sign as they are sent. */
export interface OfficialSignInput {
  readonly method: string;
  readonly path: string;
  readonly query: Readonly<Record<string, string>>;
  readonly headers: Record<string, string>;
  readonly body: string;
  readonly region: string;
  readonly service: string;
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
}

/**
 * The official Signer, made to sign every header it is given: the SDK leaves Content-Type out of its own
 * SignedHeaders, the gateway (like Volcengine's documented example) signs it, and a server checks whatever list
 * the Authorization header names. Canonical request, hashing and key derivation are the SDK's own.
 */
export class OfficialSigner extends Signer {
  constructor(input: OfficialSignInput) {
    super({ region: input.region, method: input.method, pathname: input.path, params: Object.assign({}, input.query), headers: input.headers, body: input.body }, input.service);
  }

  override isSignableHeader(key: string): boolean {
    return key !== 'authorization';
  }
}

export async function startFakeVolcengine(options: FakeVolcengineOptions): Promise<FakeVolcengine> {
  return new FakeVolcengineServer(options).start();
}

class FakeVolcengineServer extends LoopbackHttpServer implements FakeVolcengine {
  readonly calls: VolcengineCall[] = [];
  private readonly actions: FakeAssetActions;
  private readonly failures = new Map<string, { status: number; code: string; message: string }[]>();
  private readonly region: string;

  constructor(private readonly options: FakeVolcengineOptions) {
    super();
    this.region = options.region ?? 'cn-beijing';
    this.actions = new FakeAssetActions(options.processingMs ?? 300);
  }

  get groups(): ReadonlyMap<string, FakeAssetGroup> {
    return this.actions.groups;
  }

  get assets(): ReadonlyMap<string, FakeAsset> {
    return this.actions.assets;
  }

  failNext(action: string, status: number, code: string, message: string): void {
    const queue = this.failures.get(action) ?? [];
    queue.push({ status, code, message });
    this.failures.set(action, queue);
  }

  override async close(): Promise<void> {
    this.actions.stop();
    await super.close();
  }

  protected async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const recorded = await recordRequest(req);
    const url = new URL(recorded.path, 'http://fake.invalid');
    const action = url.searchParams.get('Action') ?? '';
    const problem = this.signatureProblem(req, url, recorded.raw);
    this.calls.push({ action, body: recorded.body, signed: problem === null, problem });
    const meta = { RequestId: requestId(), Action: action, Version: VERSION, Service: SERVICE, Region: this.region };
    const answer = (status: number, json: unknown): void => {
      res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
      res.end(JSON.stringify(json));
    };
    const fail = (status: number, code: string, message: string, codeN?: number): void => {
      const error = codeN === undefined ? { Code: code, Message: message } : { Code: code, CodeN: codeN, Message: message };
      answer(status, { ResponseMetadata: Object.assign(meta, { Error: error }) });
    };
    if (problem !== null) return fail(401, 'SignatureDoesNotMatch', `The request signature we calculated does not match the signature you provided. ${problem}`, 100010);
    if (req.method !== 'POST' || url.searchParams.get('Version') !== VERSION) {
      return fail(404, 'InvalidActionOrVersion', `Could not find operation ${action} for version ${url.searchParams.get('Version') ?? ''}`, 100008);
    }
    const failure = this.failures.get(action)?.shift();
    if (failure !== undefined) return fail(failure.status, failure.code, failure.message);
    if (!isJsonObject(recorded.raw)) return fail(400, 'InvalidParameter', 'The request body must be a JSON object.');
    const outcome: ActionOutcome | null = this.actions.perform(action, recorded.body);
    if (outcome === null) return fail(404, 'InvalidActionOrVersion', `Could not find operation ${action} for version ${VERSION}`, 100008);
    if ('result' in outcome) return answer(200, { ResponseMetadata: meta, Result: outcome.result });
    return fail(outcome.status, outcome.code, outcome.message);
  }

  /** Null when the request is signed with the fake's key for its region and service, at a time near now; else why not. */
  private signatureProblem(req: IncomingMessage, url: URL, raw: Buffer): string | null {
    const match = AUTHORIZATION.exec(header(req, 'authorization'));
    if (match === null) return 'The Authorization header is missing or malformed.';
    const [, accessKeyId, day, region, service, signedHeaders] = match as unknown as string[];
    if (accessKeyId !== this.options.accessKeyId) return 'The access key id is unknown.';
    if (region !== this.region || service !== SERVICE) return `The credential scope names ${region}/${service}, not ${this.region}/${SERVICE}.`;
    const xDate = header(req, 'x-date');
    const at = parseXDate(xDate);
    if (at === null || day !== xDate.slice(0, 8)) return 'X-Date is missing, malformed, or not the credential scope day.';
    if (Math.abs(Date.now() - at) > MAX_SKEW_MS) return 'X-Date is more than 15 minutes from the server time.';
    if (header(req, 'x-content-sha256') !== createHash('sha256').update(raw).digest('hex')) return 'X-Content-Sha256 is not the hash of the body.';
    const names = (signedHeaders as string).split(';');
    if (!['host', 'x-date', 'x-content-sha256'].every((name) => names.includes(name))) return 'SignedHeaders must list host, x-date and x-content-sha256.';
    // The SDK reads the body hash from a header named exactly X-Content-Sha256; Node gives names in lower case.
    const headers: Record<string, string> = {};
    for (const name of names) headers[name === 'x-content-sha256' ? 'X-Content-Sha256' : name] = header(req, name);
    const query: Record<string, string> = {};
    for (const [key, value] of url.searchParams) query[key] = value;
    const signer = new OfficialSigner({
      method: req.method ?? '',
      path: url.pathname,
      query,
      headers,
      body: raw.toString('utf8'),
      region: this.region,
      service: SERVICE,
      accessKeyId: this.options.accessKeyId,
      secretAccessKey: this.options.secretAccessKey,
    });
    const expected = signer.authorization({ accessKeyId: this.options.accessKeyId, secretKey: this.options.secretAccessKey }, xDate);
    return expected === header(req, 'authorization') ? null : 'The signature does not match.';
  }
}

function header(req: IncomingMessage, name: string): string {
  const value = req.headers[name];
  return Array.isArray(value) ? value.join(',') : (value ?? '');
}

/** `20260410T120000Z` as epoch ms, or null. */
function parseXDate(xDate: string): number | null {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(xDate);
  if (m === null) return null;
  const ms = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6]));
  return Number.isNaN(ms) ? null : ms;
}

function isJsonObject(raw: Buffer): boolean {
  try {
    const json: unknown = JSON.parse(raw.toString('utf8'));
    return typeof json === 'object' && json !== null && !Array.isArray(json);
  } catch {
    return false;
  }
}

/** Like the real ones: the time to the second, then hex. */
function requestId(): string {
  return new Date().toISOString().replace(/\D/g, '').slice(0, 14) + randomBytes(6).toString('hex').toUpperCase();
}
