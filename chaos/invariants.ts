// What must hold after a chaos run, each a row of figures with its bound and whether it held: every answer of a
// metered route has exactly one usage record that agrees with it (but for the stated kill -9 window), the books
// audit clean (an overdraft within its stated bound), nothing left held, every video task settled and recorded
// once, no failure that no fault explains (a channel's rotation included), and each instance process's memory back
// within its bound.

import pg from 'pg';
import { formatMoney } from '../core/money/decimal.js';
import type { Rotation } from './config.js';
import type { FaultWindow } from './faults.js';
import type { Answer, VideoTaskSeen } from './load.js';
import { changesRow, explainsOutOfRotation, type LoggedChange } from './rotation-invariants.js';

/**
 * Usage records are written every 200 ms (core/store/usage-writer.ts); with the batch's own write time under load,
 * a kill -9 may lose the records of answers that ended this long before it (and of requests it cut).
 */
export const KILL_WINDOW_MS = 2000;
/** A failure within this long after a fault's end is still its doing (a timeout's answer comes up to ~3 s later). */
const FAULT_SLACK_MS = 3000;
/** An instance process's RSS after its load may exceed the one it settled at by this factor (or slack) at most. */
export const RSS_FACTOR = 1.5;
export const RSS_SLACK_BYTES = 64 * 1024 * 1024;
/** A process that served less than this is not judged on its memory (it had no time to leak). */
const RSS_MIN_LIFE_MS = 60_000;

export interface Row {
  readonly what: string;
  readonly value: string;
  readonly bound: string;
  readonly held: boolean;
}

/** One process of an instance: its RSS once settled under load, its peak, and its last sample (or the end's). */
export interface RssFigure {
  readonly instance: number;
  readonly generation: number;
  readonly lifeMs: number;
  readonly settled: number;
  readonly peak: number;
  readonly after: number;
  /** Still running at the end (its `after` was read once the load stopped). */
  readonly final: boolean;
}

export interface Evidence {
  /** When the run began (times in the details are ms from it). */
  readonly began: number;
  readonly answers: readonly Answer[];
  readonly videos: readonly VideoTaskSeen[];
  readonly windows: readonly FaultWindow[];
  readonly storeUrl: string;
  readonly audit: { readonly code: number | null; readonly output: string };
  /** The load's workers: at most this many requests of one account are in flight at once. */
  readonly workers: number;
  readonly exits: readonly string[];
  readonly rss: readonly RssFigure[];
  /** Concurrency slots still open in Redis, and the instances' in-flight gauges, once the load had stopped. */
  readonly openSlots: number;
  readonly inFlight: number;
  /** The tasks the fake Ark ran, by its own ids, and when each was made. */
  readonly arkTasks: readonly { readonly id: string; readonly createdMs: number }[];
  /** Every channel's rotation, and its changes as the instances logged them. */
  readonly rotation: Rotation;
  readonly changes: readonly LoggedChange[];
  /** Requests the spare chat channel got while it was configured, and after it was removed; null: no reloads ran. */
  readonly spare: { readonly whileConfigured: number; readonly afterRemoval: number } | null;
}

export interface Findings {
  readonly rows: Row[];
  /** What broke an invariant, one line each (the first few of a kind), to read after a failed run. */
  readonly details: string[];
}

interface RecordRow {
  readonly request_id: string;
  readonly status: number;
  readonly key_name: string;
  readonly route: string;
}

const mb = (bytes: number): string => `${Math.round(bytes / 1024 / 1024)} MB`;

function describe(answer: Answer, began: number): string {
  return `${answer.kind} (${answer.key}, ${answer.reader}) -> ${answer.status ?? 'no answer'} ${answer.code ?? ''} ${answer.id ?? ''} on instance ${answer.instance}/${answer.generation}, ${answer.sentAt - began}..${answer.endedAt - began} ms${answer.failure === null ? '' : `: ${answer.failure}`}`;
}

function overlapping(answer: Answer, windows: readonly FaultWindow[]): FaultWindow[] {
  return windows.filter((w) => answer.sentAt <= (w.end === 0 ? Date.now() : w.end) + FAULT_SLACK_MS && answer.endedAt >= w.start);
}

/**
 * A 5xx a fault explains: never a 500 (an upstream's 500 becomes a 502; a 500 is ours); a 503 while the store was
 * cut; or a 502/503/504 while faults took away every upstream of one group the request needs (a fault on one
 * channel of a tier must be hidden by failover).
 */
function explains5xx(answer: Answer, windows: readonly FaultWindow[]): boolean {
  if (answer.status === 500) return false;
  const near = overlapping(answer, windows);
  if (answer.status === 503 && near.some((w) => w.kind === 'PostgreSQL cut and restored')) return true;
  const faulted = new Set(near.flatMap((w) => w.upstreams));
  return answer.upstreams.some((group) => group.every((u) => u === 'chat-spare' || faulted.has(u)));
}

/** A 2xx that broke on the way: a fault on an upstream that served it, the store cut, or its process killed. */
function explainsBroken(answer: Answer, windows: readonly FaultWindow[]): boolean {
  const near = overlapping(answer, windows);
  if (near.some((w) => w.kind === 'PostgreSQL cut and restored')) return true;
  if (inKillWindow(answer, windows)) return true;
  return near.some((w) => w.upstreams.some((u) => answer.upstreams.some((group) => group.includes(u))));
}

/** When the process that answered was killed, if it was and the answer ended (or was cut) within KILL_WINDOW_MS of it. */
function killOf(answer: Answer, windows: readonly FaultWindow[]): number | undefined {
  const w = windows.find((x) => x.killed !== undefined && x.killed.instance === answer.instance && x.killed.generation === answer.generation);
  const at = w?.killed?.at;
  return at !== undefined && answer.endedAt >= at - KILL_WINDOW_MS ? at : undefined;
}

function inKillWindow(answer: Answer, windows: readonly FaultWindow[]): boolean {
  return killOf(answer, windows) !== undefined;
}

async function count(db: pg.Client, sql: string): Promise<number> {
  return Number((await db.query<{ n: string }>(sql)).rows[0]?.n ?? 0);
}

export async function checkInvariants(evidence: Evidence): Promise<Findings> {
  const rows: Row[] = [];
  const details: string[] = [];
  const began = evidence.began;
  const row = (what: string, value: number | string, bound: string, held: boolean): void => void rows.push({ what, value: String(value), bound, held });
  const db = new pg.Client({ connectionString: evidence.storeUrl });
  await db.connect();
  try {
    const records = new Map((await db.query<RecordRow>('SELECT request_id, status, key_name, route FROM usage_records')).rows.map((r) => [r.request_id, r]));
    const tasks = (await db.query<{ id: string; upstream_id: string | null; status: string }>('SELECT id, upstream_id, status FROM video_tasks')).rows;
    const taskIds = new Set(tasks.map((r) => r.id));

    const metered = evidence.answers.filter((a) => a.metered);
    const withId = metered.filter((a) => a.id !== null);
    const noId = metered.filter((a) => a.status !== null && a.id === null);
    const noAnswer = metered.filter((a) => a.status === null);
    let matched = 0;
    let lost = 0;
    let lostInKillWindow = 0;
    let disagree = 0;
    /** How long before its kill the earliest answer without a record ended (what the window had to be). */
    let oldestBeforeKill = 0;
    for (const answer of withId) {
      const record = records.get(answer.id as string);
      if (record === undefined) {
        const kill = killOf(answer, evidence.windows);
        if (kill !== undefined) {
          lostInKillWindow++;
          oldestBeforeKill = Math.max(oldestBeforeKill, kill - answer.endedAt);
        }
        else if (++lost <= 10) details.push(`record lost: ${describe(answer, began)}`);
        continue;
      }
      // The record says what the client got: its status (a stream that broke after its head stays 200), key and route.
      if (record.status !== answer.status || record.key_name !== answer.key || !answer.kind.startsWith(kindOfRoute(record.route))) {
        if (++disagree <= 10) details.push(`record ${record.status} ${record.key_name} ${record.route} for answer ${describe(answer, began)}`);
        continue;
      }
      matched++;
    }
    const answered = new Set(withId.map((a) => a.id));
    const orphans = [...records.keys()].filter((id) => !answered.has(id) && !taskIds.has(id)).length;
    const inWindow = withId.filter((a) => inKillWindow(a, evidence.windows)).length;
    const kills = evidence.windows.filter((w) => w.killed !== undefined).length;
    row('requests sent', evidence.answers.length, '', evidence.answers.length > 0);
    row('answers of metered routes', metered.length - noAnswer.length, '', withId.length > 0);
    row('  without a request id', noId.length, '0', noId.length === 0);
    row('  matched by one usage record that agrees with it (status, key, route)', matched, `= answers - kill -9 window`, matched + lostInKillWindow === withId.length);
    row('  records lost', lost, '0', lost === 0);
    row('  records that disagree with their answer', disagree, '0', disagree === 0);
    // Stated: the bound is the window itself; a record lost outside it is the "records lost" row.
    row(
      `  kill -9 window (answers of the killed process ended at most ${KILL_WINDOW_MS} ms before the kill, or cut by it): no record`,
      `${lostInKillWindow} of ${inWindow}, the earliest ${oldestBeforeKill} ms before its kill`,
      `stated (${kills} kill${kills === 1 ? '' : 's'})`,
      true,
    );
    row('requests that got no answer (connection lost before the head)', noAnswer.length, '', true);
    row('records of requests without an answer', orphans, `<= ${noAnswer.length}`, orphans <= noAnswer.length);

    // The ledger's charges are one entry per account and batch of records (core/store/kysely-ledger.ts), so charged
    // once is the audit's: every balance against its ledger, the charges against the records' costs, every cost
    // against its tokens at its prices.
    // Exact books are the audit's problems; an account below zero is no problem of the books but an overdraft,
    // which docs/money.md bounds by C x O: C requests of the account in flight (at most the load's workers), O the
    // largest overrun of one (at most the largest cost of one of its records).
    const problems = /(\d+) problems, (\d+) accounts below zero/.exec(evidence.audit.output);
    const mismatches = problems === null ? Number.NaN : Number(problems[1]);
    const expectedCode = problems !== null && Number(problems[2]) > 0 ? 1 : 0;
    row('`gateway accounts audit`: ledger mismatches (exit code)', `${mismatches} (${evidence.audit.code})`, `0 (${expectedCode})`, mismatches === 0 && evidence.audit.code === expectedCode);
    const below = (
      await db.query<{ name: string; balance: string; largest: string | null }>(
        'SELECT a.name, a.balance, (SELECT max(cost) FROM usage_records r WHERE r.account = a.name) AS largest FROM accounts a WHERE a.balance < 0',
      )
    ).rows;
    const overdrawn = below.map((a) => ({ name: a.name, by: -BigInt(a.balance), bound: BigInt(evidence.workers) * BigInt(a.largest ?? 0) }));
    row(
      'accounts below zero: overdraft <= C x O (C = the load\'s workers, O = the account\'s largest record cost)',
      overdrawn.length === 0 ? 'none' : overdrawn.map((a) => `${a.name} by ${formatMoney(a.by)}`).join(', '),
      overdrawn.length === 0 ? '' : overdrawn.map((a) => `<= ${formatMoney(a.bound)}`).join(', '),
      overdrawn.every((a) => a.by <= a.bound),
    );
    const holds = await count(db, 'SELECT count(*) AS n FROM holds');
    row('reservations (holds) left after the stop', holds, '0', holds === 0);

    const unsettled = await count(db, 'SELECT count(*) AS n FROM video_tasks WHERE settled_at IS NULL');
    // A task the upstream took is charged by its own record (its id); one it never took (the submission failed)
    // has none: the submission's answer and record say what happened.
    const taken = tasks.filter((t) => t.upstream_id !== null);
    const wrong = tasks.filter((t) => (records.has(t.id) ? 1 : 0) !== (t.upstream_id === null ? 0 : 1));
    for (const t of wrong.slice(0, 10)) details.push(`video task ${t.id} (${t.status}, upstream ${t.upstream_id ?? 'none'}): ${records.has(t.id) ? 'a' : 'no'} record`);
    const stuck = (await db.query<Record<string, unknown>>('SELECT id, status, upstream_id, lease_owner, lease_until, next_poll_at, polls, created_at, updated_at FROM video_tasks WHERE settled_at IS NULL')).rows;
    for (const t of stuck.slice(0, 10)) details.push(`unsettled video task: ${JSON.stringify(t)} (now ${Date.now()})`);
    const seenMissing = evidence.videos.filter((v) => !taskIds.has(v.id)).length;
    const known = new Set(taken.map((t) => t.upstream_id));
    const unknown = evidence.arkTasks.filter((t) => !known.has(t.id));
    // A submission in flight when a fault began counts too: Ark may have made the task just before its answer was
    // cut, or just before the instance that sent it was killed.
    const unexplainedUnknown = unknown.filter(
      (t) =>
        !evidence.windows.some(
          (w) =>
            t.createdMs >= w.start - KILL_WINDOW_MS &&
            t.createdMs <= (w.end === 0 ? Date.now() : w.end) + FAULT_SLACK_MS &&
            (w.kind === 'PostgreSQL cut and restored' || w.killed !== undefined || w.upstreams.includes('ark')),
        ),
    );
    for (const t of unexplainedUnknown.slice(0, 10)) details.push(`Ark ran task ${t.id} (made at ${t.createdMs - began} ms), unknown to the gateway, with no fault to explain it`);
    row('video tasks', `${tasks.length} (${taken.length} taken upstream)`, '', true);
    row('  accepted by the gateway but not in its store', seenMissing, '0', seenMissing === 0);
    row('  not settled', unsettled, '0', unsettled === 0);
    row('  settled with one usage record (none when the upstream never took it)', tasks.length - wrong.length, `= ${tasks.length}`, wrong.length === 0);
    row('  run by Ark, unknown to the gateway (known gap: the submission cut after Ark took it)', unknown.length, `each in a fault window: ${unknown.length - unexplainedUnknown.length}`, unexplainedUnknown.length === 0);
  } finally {
    await db.end();
  }

  row('concurrency slots open once the load stopped (Redis; gauges)', `${evidence.openSlots}; ${evidence.inFlight}`, '0; 0', evidence.openSlots === 0 && evidence.inFlight === 0);
  if (evidence.spare !== null) row('spare chat channel: requests while configured / after its removal', `${evidence.spare.whileConfigured} / ${evidence.spare.afterRemoval}`, '> 0 / 0', evidence.spare.whileConfigured > 0 && evidence.spare.afterRemoval === 0);

  const failed5xx = evidence.answers.filter((a) => a.status !== null && a.status >= 500);
  // The rotation's refusals first, so that the row counts them all (most fall inside their fault window, which
  // would explain them as well).
  const byRotation = new Set(failed5xx.filter((a) => explainsOutOfRotation(a, evidence.windows, evidence.changes, evidence.rotation, FAULT_SLACK_MS)));
  const byFault = new Set(failed5xx.filter((a) => !byRotation.has(a) && explains5xx(a, evidence.windows)));
  const unexpected = failed5xx.filter((a) => !byFault.has(a) && !byRotation.has(a));
  row('5xx answers explained by an injected fault (beside the rotation\'s)', byFault.size, '', true);
  row(
    `503 "out of rotation" explained by every channel of a group the request needs taken out in a fault window on it (after its end: ${FAULT_SLACK_MS / 1000} s, the longest back-off and 1 s)`,
    byRotation.size,
    '',
    true,
  );
  row('unexpected 5xx', unexpected.length, '0', unexpected.length === 0);
  const changes = changesRow(evidence.windows, evidence.changes, FAULT_SLACK_MS);
  rows.push(changes.row);
  details.push(...changes.details);
  for (const a of unexpected.slice(0, 20)) details.push(`unexpected 5xx: ${describe(a, began)}`);
  const broken = evidence.answers.filter((a) => a.broken);
  const unexplainedBroken = broken.filter((a) => !explainsBroken(a, evidence.windows));
  row('2xx that broke mid-answer, explained by a fault', broken.length - unexplainedBroken.length, '', true);
  row('2xx that broke mid-answer, unexplained', unexplainedBroken.length, '0', unexplainedBroken.length === 0);
  for (const a of unexplainedBroken.slice(0, 20)) details.push(`broken without a fault: ${describe(a, began)}`);
  const timeouts = evidence.answers.filter((a) => a.failure === 'client timeout').length;
  row('answers the clients waited 30 s for in vain', timeouts, '0', timeouts === 0);
  row('instance exits at the end (SIGTERM)', evidence.exits.join(', '), 'exit 0 each', evidence.exits.every((e) => e === 'exit 0'));

  const judged = evidence.rss.filter((r) => r.settled > 0 && (r.final || r.lifeMs >= RSS_MIN_LIFE_MS));
  const over = judged.filter((r) => r.after > bound(r));
  for (const r of evidence.rss.filter((x) => x.final)) {
    row(`RSS of instance ${r.instance}'s last process (${Math.round(r.lifeMs / 1000)} s): settled / peak / after`, `${mb(r.settled)} / ${mb(r.peak)} / ${mb(r.after)}`, `after <= ${mb(bound(r))}`, r.after <= bound(r));
  }
  const worst = judged.reduce((m, r) => Math.max(m, r.after / r.settled), 0);
  row(`RSS of every process that lived ${RSS_MIN_LIFE_MS / 1000} s or more, at its end, against its settled figure`, `${judged.length} processes, worst ${worst.toFixed(2)}x`, `each <= ${RSS_FACTOR}x or +${mb(RSS_SLACK_BYTES)}`, over.length === 0);
  for (const r of over) details.push(`RSS of instance ${r.instance} process ${r.generation}: ${mb(r.settled)} settled, ${mb(r.after)} at its end`);
  return { rows, details };
}

function bound(r: RssFigure): number {
  return Math.max(r.settled * RSS_FACTOR, r.settled + RSS_SLACK_BYTES);
}

/** The start of the load's kind for a record's route (`/v1/chat/completions` -> `chat`). */
function kindOfRoute(route: string): string {
  if (route === '/v1/chat/completions') return 'chat';
  if (route === '/v1/messages') return 'messages';
  if (route === '/v1/responses') return 'responses';
  if (route.startsWith('/v1/images')) return 'images';
  if (route.startsWith('/v1/videogen/asset')) return 'asset';
  if (route === '/v1/videos' || route === '/v1/video/generations') return 'video';
  return route;
}

/** Answers by kind and status, for the report. */
export function statusTable(answers: readonly Answer[]): Map<string, Map<string, number>> {
  const table = new Map<string, Map<string, number>>();
  for (const a of answers) {
    const byStatus = table.get(a.kind) ?? new Map<string, number>();
    table.set(a.kind, byStatus);
    const status = a.status === null ? 'none' : String(a.status);
    byStatus.set(status, (byStatus.get(status) ?? 0) + 1);
  }
  return table;
}
