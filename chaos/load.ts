// The clients of a chaos run: workers that send a mixed load to the instances the balancer calls ready, read the
// answers as real clients do (whole, slowly, or not to the end), and keep one line per request: what was sent,
// when, to which instance process, and what came back (status, x-request-id, error code).

import { setTimeout as sleep } from 'node:timers/promises';
import { TAG_HEADER } from './fault-proxy.js';
import type { Fleet, Instance } from './fleet.js';
import { assetRequest, KEYS, modelRequest, videoRequest, type ChaosRequest, type KeyName } from './requests.js';

export type Reader = 'whole' | 'slow' | 'abort';

export interface Answer {
  /** Sent as the `x-chaos-request` header, which the gateway forwards: the fault proxies name the request by it. */
  readonly tag: string;
  readonly kind: string;
  readonly key: KeyName;
  readonly reader: Reader;
  readonly upstreams: readonly (readonly string[])[];
  readonly metered: boolean;
  readonly instance: number;
  /** The instance's process (its start count) that was sent the request. */
  readonly generation: number;
  readonly sentAt: number;
  endedAt: number;
  /** Null: no answer (the connection failed before the headers). */
  status: number | null;
  id: string | null;
  /** The error's code (or type) from the body of an answer >= 400. */
  code: string | null;
  /** The body was read to its end. */
  complete: boolean;
  /** Why the request failed at the client, when it did. */
  failure: string | null;
  /**
   * A 2xx that did not deliver: a stream that ended with the format's in-band error, or a body cut off (not by
   * the client leaving).
   */
  broken: boolean;
}

/** The in-band error of each streaming format: chat's data line, Anthropic's event, Responses' failed event. */
const STREAM_ERROR = /^data: \{"error"|^event: error|"type":"response\.failed"/m;

export interface VideoTaskSeen {
  readonly id: string;
  readonly key: KeyName;
}

const KEY_WEIGHTS: readonly [KeyName, number][] = [
  ['free', 0.3],
  ['rich', 0.3],
  ['poor', 0.15],
  ['rpm', 0.15],
  ['busy', 0.1],
];
const PUBLIC_IMAGE = 'https://93.184.215.14/chaos.png';
/** A client gives up on an answer after this long: no answer should take it. */
const CLIENT_TIMEOUT_MS = 30_000;

export interface Load {
  readonly answers: Answer[];
  readonly videos: VideoTaskSeen[];
  /** Stops the workers; resolves once every request in flight ended. */
  stop(): Promise<void>;
}

interface KeyAssets {
  groups: string[];
  assets: { id: string; at: number }[];
}

function pickKey(random: () => number): KeyName {
  let r = random();
  for (const [name, weight] of KEY_WEIGHTS) {
    if (r < weight) return name;
    r -= weight;
  }
  return 'free';
}

function errorCode(text: string): string | null {
  try {
    const body = JSON.parse(text) as Record<string, unknown>;
    const error = body['error'] as Record<string, unknown> | undefined;
    if (error !== undefined && error !== null) return String(error['code'] ?? error['type'] ?? 'unknown');
    const meta = body['ResponseMetadata'] as { Error?: { Code?: string } } | undefined;
    return meta?.Error?.Code ?? null;
  } catch {
    return 'not-json';
  }
}

export function startLoad(fleet: Fleet, workers: number, random: () => number): Load {
  const answers: Answer[] = [];
  const videos: VideoTaskSeen[] = [];
  const assets = new Map<KeyName, KeyAssets>();
  let running = true;
  let n = 0;
  let turn = 0;
  let sent = 0;

  const instance = async (): Promise<Instance | null> => {
    for (let i = 0; running && i < 200; i++) {
      const ready = fleet.ready();
      if (ready.length > 0) return ready[turn++ % ready.length] as Instance;
      await sleep(25);
    }
    return null;
  };

  const send = async (request: ChaosRequest, key: KeyName, reader: Reader, method = 'POST'): Promise<{ answer: Answer; text: string } | null> => {
    const target = await instance();
    if (target === null) return null;
    const answer: Answer = {
      tag: String(++sent),
      kind: request.kind,
      key,
      reader,
      upstreams: request.upstreams,
      metered: request.metered,
      instance: target.index,
      generation: target.starts,
      sentAt: Date.now(),
      endedAt: 0,
      status: null,
      id: null,
      code: null,
      complete: false,
      failure: null,
      broken: false,
    };
    answers.push(answer);
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(new Error('client timeout')), CLIENT_TIMEOUT_MS);
    let text = '';
    try {
      const init: RequestInit = { method, headers: Object.assign({ [TAG_HEADER]: answer.tag }, request.headers), signal: controller.signal };
      if (method === 'POST') init.body = request.body;
      const response = await fetch(`${target.url}${request.path}`, init);
      answer.status = response.status;
      answer.id = response.headers.get('x-request-id');
      const body = response.body;
      if (body !== null) {
        const decoder = new TextDecoder();
        const chunks = body.getReader();
        for (let i = 0; ; i++) {
          if (reader === 'abort' && i >= 1 + Math.floor(random() * 3)) {
            controller.abort(new Error('client left'));
            break;
          }
          const { done, value } = await chunks.read();
          if (done) {
            answer.complete = true;
            break;
          }
          text += decoder.decode(value, { stream: true });
          if (reader === 'slow') await sleep(20 + random() * 80);
        }
      } else answer.complete = true;
      // A client that left after the first chunk has read a small error whole, code included (the out-of-rotation
      // 503 is told apart by it); a part of one reads as not-json.
      if (answer.status >= 400 && text !== '') answer.code = errorCode(text);
    } catch (err) {
      answer.failure = err instanceof Error ? (err.cause instanceof Error ? `${err.message}: ${err.cause.message}` : err.message) : String(err);
    } finally {
      clearTimeout(timer);
      answer.endedAt = Date.now();
    }
    if (answer.status !== null && answer.status < 300) answer.broken = (answer.failure !== null && reader !== 'abort') || (request.stream && STREAM_ERROR.test(text));
    return { answer, text };
  };

  const assetStep = async (key: KeyName): Promise<void> => {
    const own = assets.get(key) ?? { groups: [], assets: [] };
    assets.set(key, own);
    const r = random();
    if (own.groups.length === 0 || r < 0.1) {
      const done = await send(assetRequest(KEYS[key], 'CreateAssetGroup', { Name: `chaos-${n}` }), key, 'whole');
      const id = done?.answer.status === 200 ? (JSON.parse(done.text) as { Result?: { Id?: string } }).Result?.Id : undefined;
      if (id !== undefined) own.groups.push(id);
      return;
    }
    const group = own.groups[Math.floor(random() * own.groups.length)] as string;
    if (r < 0.5) {
      const done = await send(assetRequest(KEYS[key], 'CreateAsset', { GroupId: group, URL: PUBLIC_IMAGE, AssetType: 'Image', Name: `chaos-${n}` }), key, 'whole');
      const id = done?.answer.status === 200 ? (JSON.parse(done.text) as { Result?: { Id?: string } }).Result?.Id : undefined;
      if (id !== undefined) own.assets.push({ id, at: Date.now() });
    } else if (r < 0.75 && own.assets.length > 0) {
      await send(assetRequest(KEYS[key], 'GetAsset', { Id: (own.assets[Math.floor(random() * own.assets.length)] as { id: string }).id }), key, 'whole');
    } else {
      await send(assetRequest(KEYS[key], 'ListAssets', { Filter: { GroupIds: [group] }, PageSize: 10 }), key, 'whole');
    }
  };

  const videoStep = async (key: KeyName): Promise<void> => {
    const own = assets.get(key);
    // An asset made a while ago is Active by now (the fake library takes 300 ms).
    const ripe = own?.assets.filter((a) => Date.now() - a.at > 3000) ?? [];
    const asset = ripe.length > 0 && random() < 0.4 ? (ripe[Math.floor(random() * ripe.length)] as { id: string }).id : null;
    const done = await send(videoRequest(KEYS[key], random, n, asset), key, 'whole');
    if (done === null || done.answer.status !== 200) return;
    // OpenAI's shape answers `id`, new-api's `task_id`.
    const created = JSON.parse(done.text) as { id?: string; task_id?: string };
    const id = created.id ?? created.task_id;
    if (id === undefined) return;
    videos.push({ id, key });
    const read = { kind: 'video read', path: `/v1/videos/${id}`, headers: { authorization: `Bearer ${KEYS[key]}` }, body: '', stream: false, upstreams: [['ark']], metered: false };
    if (random() < 0.3) await send(Object.assign({}, read, { kind: 'video cancel' }), key, 'whole', 'DELETE');
    else await send(read, key, 'whole', 'GET');
  };

  const worker = async (): Promise<void> => {
    while (running) {
      n++;
      const key = pickKey(random);
      const r = random();
      if (r < 0.06) await assetStep(key === 'busy' ? 'rich' : key);
      else if (r < 0.1) await videoStep(key === 'busy' ? 'rich' : key);
      else {
        const request = modelRequest(KEYS[key], random, n);
        const c = random();
        const reader: Reader = c < 0.1 ? 'abort' : c < 0.2 && request.stream ? 'slow' : 'whole';
        await send(request, key, reader);
      }
    }
  };
  const all = Array.from({ length: workers }, () => worker());
  return {
    answers,
    videos,
    async stop() {
      running = false;
      await Promise.all(all);
    },
  };
}
