// What must hold of the channel-down profile (issue 45: "no request is sent to it after the threshold, except the
// probes"), judged from what the down channel's fault proxy received (each request's arrival and the load's tag of
// it), the clients' answers, the fleet's log lines of its rotation changes and its metric of them.
//
// The threshold is the arrival of the `errors`-th request the channel failed (the proxy's own moment: the fleet's
// window of the channel counts those failures, so it cannot take the channel out earlier). The fleet's taking it out
// is the instance's log line "out of rotation", written when the Redis script that flipped it answered: the most
// exact signal the fleet gives (the counter has no time; a scrape would place the change only within its interval).
// Requests sent before that line (and up to PROPAGATION_MS after it, while the other instance hears the news by
// pub/sub) may still reach the channel; every later one must be a probe: the k-th at least its back-off (probe_after_ms
// doubled k times, at most probe_max_ms) after the one before, the first that long after the threshold. A back-off
// runs from the flip that follows the previous failure, which is later than that failure's arrival: a bound without
// slack but the clocks' rounding.

import type { Arrival } from './fault-proxy.js';
import { backoffMs, type ChannelDown } from './channel-down.js';
import type { Rotation } from './config.js';
import type { FaultWindow } from './faults.js';
import type { Row } from './invariants.js';
import type { Answer } from './load.js';

/** Requests sent this long after the fleet logged the change are no longer in flight at it (pub/sub's delivery). */
export const PROPAGATION_MS = 50;
/** Clock rounding between the proxy (Date.now), Redis (TIME, ms) and the instances (performance.now). */
const CLOCK_MS = 5;
/** The fleet takes the channel out within this of the threshold's failure (its outcome's trip to Redis). */
const TAKE_OUT_MS = 1000;
/** The channel is back this long after the longest back-off at most (a due probe is taken by the next request). */
const RETURN_MS = 1000;

/** One rotation change as its instance logged it. */
export interface LoggedChange {
  readonly time: number;
  readonly channel: string;
  readonly reason: 'errors' | 'probe_failed' | 'probe_served';
}

/** The rotation changes in the instances' logs (every process of each), in time order. */
export function loggedChanges(logs: readonly string[]): LoggedChange[] {
  const changes: LoggedChange[] = [];
  for (const log of logs) {
    for (const line of log.split('\n')) {
      if (!line.includes('rotation') || !line.includes('"reason"')) continue;
      let entry: { time?: unknown; channel?: unknown; reason?: unknown; msg?: unknown };
      try {
        entry = JSON.parse(line) as typeof entry;
      } catch {
        continue;
      }
      const { time, channel, reason, msg } = entry;
      if (typeof time !== 'number' || typeof channel !== 'string' || typeof msg !== 'string' || !msg.includes('rotation')) continue;
      if (reason === 'errors' || reason === 'probe_failed' || reason === 'probe_served') changes.push({ time, channel, reason });
    }
  }
  return changes.sort((a, b) => a.time - b.time);
}

export interface RotationEvidence {
  readonly began: number;
  readonly down: ChannelDown;
  readonly rotation: Rotation;
  readonly answers: readonly Answer[];
  readonly changes: readonly LoggedChange[];
  /** gateway_channel_health_changes_total over the fleet, by `<channel> <change>`. */
  readonly metric: ReadonlyMap<string, number>;
  /** The load's workers: at most this many requests are in flight at once. */
  readonly workers: number;
}

export interface RotationFindings {
  readonly rows: Row[];
  readonly details: string[];
  /** The counts of the report. */
  readonly summary: string;
}

export function checkRotation(evidence: RotationEvidence): RotationFindings {
  const { down, rotation, began } = evidence;
  const rows: Row[] = [];
  const details: string[] = [];
  const row = (what: string, value: number | string, bound: string, held: boolean): void => void rows.push({ what, value: String(value), bound, held });
  const byTag = new Map(evidence.answers.map((a) => [a.tag, a]));
  const at = (t: number | undefined): string => (t === undefined ? 'never' : `${t - down.start} ms`);
  const name = down.channel;

  const failed = down.arrivals.filter((a) => a.met !== 'passed');
  const threshold = failed[rotation.errors - 1]?.at;
  row(`${name} down ${Math.round((down.end - down.start) / 1000)} s: requests it failed (reset or 5xx)`, failed.length, `>= ${rotation.errors}`, failed.length >= rotation.errors);
  row(`  threshold: the ${rotation.errors}th failure reached it (ms after it went down)`, at(threshold), 'reached', threshold !== undefined);

  const outs = evidence.changes.filter((c) => c.channel === name && c.reason === 'errors' && c.time >= down.start);
  const takenOut = outs[0]?.time;
  const outMetric = evidence.metric.get(`${name} errors`) ?? 0;
  row(
    '  taken out by the fleet: its "out of rotation" log line after the threshold (lines; metric)',
    takenOut === undefined || threshold === undefined ? `never (${outs.length}; ${outMetric})` : `+${takenOut - threshold} ms (${outs.length}; ${outMetric})`,
    `0..${TAKE_OUT_MS} ms (1; 1)`,
    takenOut !== undefined && threshold !== undefined && takenOut >= threshold - CLOCK_MS && takenOut - threshold <= TAKE_OUT_MS && outs.length === 1 && outMetric === 1,
  );
  // Without the fleet's line (rotation off) the threshold itself is where the fleet should have known.
  const known = takenOut ?? threshold ?? down.end;
  const inFlight = (a: Arrival): boolean => {
    const answer = a.tag === null ? undefined : byTag.get(a.tag);
    return a.at > known && answer !== undefined && answer.sentAt <= known + PROPAGATION_MS;
  };
  const before = down.arrivals.filter((a) => a.at >= down.start && a.at <= known && a.met !== 'passed');
  const atIt = down.arrivals.filter(inFlight);
  row(
    '  requests to it up to the fleet\'s line / sent before it and arriving after (in flight)',
    `${before.length} / ${atIt.length}`,
    `in flight <= ${evidence.workers} (the workers)`,
    atIt.length <= evidence.workers,
  );

  // The rest, after the threshold, up to and including the first it served (the probe that puts it back).
  const after = down.arrivals.filter((a) => a.at > known && !inFlight(a));
  const firstServed = after.findIndex((a) => a.met === 'passed');
  const judged = firstServed < 0 ? after : after.slice(0, firstServed + 1);
  const probes: Arrival[] = [];
  const early: Arrival[] = [];
  let previous = threshold ?? known;
  for (const a of judged) {
    const wait = backoffMs(rotation, probes.length);
    if (a.at >= previous + wait - CLOCK_MS) {
      probes.push(a);
      previous = a.at;
    } else early.push(a);
  }
  const whileDown = probes.filter((a) => a.met !== 'passed');
  const schedule = probes.map((_, k) => backoffMs(rotation, k) / 1000).join(', ');
  row(
    '  probes after the threshold while it was down (ms after the threshold)',
    `${whileDown.length}: ${whileDown.map((a) => `+${a.at - (threshold ?? known)}`).join(', ')}`,
    `each >= its back-off after the one before (${schedule} s)`,
    true,
  );
  row('  requests after the threshold that were not probes (earlier than their back-off)', early.length, '0', early.length === 0);
  for (const a of early.slice(0, 10)) {
    const answer = a.tag === null ? undefined : byTag.get(a.tag);
    details.push(`not a probe: ${a.met} at ${a.at - began} ms (request ${a.tag ?? '?'} sent at ${answer === undefined ? '?' : answer.sentAt - began} ms to instance ${answer?.instance ?? '?'})`);
  }
  const failedProbeLines = evidence.changes.filter((c) => c.channel === name && c.reason === 'probe_failed' && c.time >= down.start).length;
  const failedProbeMetric = evidence.metric.get(`${name} probe_failed`) ?? 0;
  row('  failed probes: at the proxy / "stays out" log lines / metric', `${whileDown.length} / ${failedProbeLines} / ${failedProbeMetric}`, 'equal', whileDown.length === failedProbeLines && failedProbeLines === failedProbeMetric);

  const served = firstServed < 0 ? undefined : after[firstServed];
  const backIn = evidence.changes.find((c) => c.channel === name && c.reason === 'probe_served' && c.time >= down.end);
  const servedLater = served === undefined ? 0 : down.arrivals.filter((a) => a.at > served.at && a.met === 'passed').length;
  const servedMetric = evidence.metric.get(`${name} probe_served`) ?? 0;
  const returnBound = rotation.probeMaxMs + RETURN_MS;
  row(
    '  back: its first request after it came back (a probe, served) / "back in rotation" logged / requests it served after (metric)',
    `${served === undefined ? 'none' : `+${served.at - down.end} ms`} / ${backIn === undefined || served === undefined ? 'no' : `+${backIn.time - served.at} ms after the probe`} / ${servedLater} (${servedMetric})`,
    `<= ${returnBound} ms, a probe / yes / > 0 (1)`,
    served !== undefined && served.at - down.end <= returnBound && probes.includes(served) && backIn !== undefined && backIn.time >= served.at - CLOCK_MS && servedLater > 0 && servedMetric === 1,
  );

  const others = evidence.changes.filter((c) => c.channel !== name);
  const otherMetric = [...evidence.metric].filter(([key]) => !key.startsWith(`${name} `)).reduce((sum, [, n]) => sum + n, 0);
  row('other channels\' rotation changes (log lines; metric)', `${others.length}; ${otherMetric}`, '0; 0', others.length === 0 && otherMetric === 0);
  for (const c of others.slice(0, 10)) details.push(`rotation change of ${c.channel}: ${c.reason} at ${c.time - began} ms`);

  // What the clients of the model's requests saw: failover hides every failure of the down channel, before the
  // threshold too; a 503 "out of rotation" would say the fleet took out both.
  const model = evidence.answers.filter((a) => a.upstreams.some((group) => group.includes(name)));
  const errors = model.filter((a) => a.status === null || a.status >= 500 || a.broken);
  row(`requests of ${name}'s models: client-visible errors (5xx, no answer, 2xx broken)`, `${errors.length} of ${model.length}`, '0', errors.length === 0);
  for (const a of errors.slice(0, 10)) details.push(`client-visible error: ${a.kind} -> ${a.status ?? 'no answer'} ${a.code ?? ''} ${a.id ?? ''} at ${a.sentAt - began} ms${a.failure === null ? '' : `: ${a.failure}`}`);
  const met = failed.map((a) => (a.tag === null ? undefined : byTag.get(a.tag)));
  const statuses = new Map<string, number>();
  for (const answer of met) statuses.set(String(answer?.status ?? 'none'), (statuses.get(String(answer?.status ?? 'none')) ?? 0) + 1);
  const notServed = met.filter((answer) => answer === undefined || answer.status === null || answer.status >= 300).length;
  row('  requests the down channel failed, as their clients saw them (failover)', [...statuses].map(([s, n]) => `${s}: ${n}`).join(', '), 'each 2xx', notServed === 0);

  const summary = [
    `down channel ${name}: ${failed.length} requests failed while down`,
    `threshold at +${threshold === undefined ? '?' : threshold - down.start} ms, logged out at +${takenOut === undefined ? 'never' : takenOut - down.start} ms`,
    `${before.length} before the line, ${atIt.length} in flight at it, ${whileDown.length} probes while down, ${early.length} not probes`,
    `back ${served === undefined ? 'never' : `+${served.at - down.end} ms`} after it came back, then ${servedLater} served`,
  ].join('; ');
  return { rows, details, summary };
}

/** The refusal of a model whose every channel is out of rotation, in each client shape (OpenAI's code, Anthropic's type). */
const OUT_OF_ROTATION_CODES: ReadonlySet<string> = new Set(['upstream_overloaded', 'overloaded_error']);

/**
 * A 503 of the fault profiles that rotation explains: the out-of-rotation refusal, for a request one of whose groups of
 * upstreams had every channel taken out by the fleet (its log line) inside a fault window on it, or within
 * `faultSlackMs` after (a timeout's failure is counted up to 2 s later), and no later than the answer; sent no later
 * than that window's end, its slack, the longest back-off and a second (the next request takes the due probe, and the
 * fault is over). Anything else (another code, a channel the fleet never took out, a channel out long after its
 * fault) stays unexplained.
 */
export function explainsOutOfRotation(answer: Answer, windows: readonly FaultWindow[], changes: readonly LoggedChange[], rotation: Rotation, faultSlackMs: number): boolean {
  if (answer.status !== 503 || answer.code === null || !OUT_OF_ROTATION_CODES.has(answer.code)) return false;
  const takenOut = (upstream: string): boolean =>
    windows.some((w) => {
      const end = w.end === 0 ? Date.now() : w.end;
      if (!w.upstreams.includes(upstream) || answer.sentAt > end + faultSlackMs + rotation.probeMaxMs + RETURN_MS) return false;
      return changes.some((c) => c.channel === upstream && c.reason !== 'probe_served' && c.time >= w.start && c.time <= end + faultSlackMs && c.time <= answer.endedAt);
    });
  return answer.upstreams.some((group) => group.every((u) => u === 'chat-spare' || takenOut(u)));
}

/** The fleet's rotation changes, and those that took a channel out with no fault on it (what nothing explains). */
export function changesRow(windows: readonly FaultWindow[], changes: readonly LoggedChange[], faultSlackMs: number): { row: Row; details: string[] } {
  const out = changes.filter((c) => c.reason !== 'probe_served');
  const unexplained = out.filter((c) => !windows.some((w) => w.upstreams.includes(c.channel) && c.time >= w.start && c.time <= (w.end === 0 ? Date.now() : w.end) + faultSlackMs));
  const count = (reason: LoggedChange['reason']): number => changes.filter((c) => c.reason === reason).length;
  const channels = [...new Set(changes.map((c) => c.channel))].sort();
  return {
    row: {
      what: `rotation changes logged: taken out / failed probes / back in (${channels.join(', ') || 'no channel'}); of them out with no fault on the channel`,
      value: `${count('errors')} / ${count('probe_failed')} / ${count('probe_served')}; ${unexplained.length}`,
      bound: '0 with no fault',
      held: unexplained.length === 0,
    },
    details: unexplained.slice(0, 10).map((c) => `channel ${c.channel} ${c.reason} at ${c.time} with no fault on it`),
  };
}
