// Tables of the scenarios driven by our own client (lib/request-load.ts): fixed rate, stream closed loop,
// stream open rate, stream hold. Each kind has its own columns; every cell is median (min–max) over rounds.
// "added" columns subtract the baseline leg's figure of the same round (rounds alternate targets, so a
// slow moment of the machine hits both figures of a pair), then take the median of those differences.

import type { TcpCounters } from './os-stats.js';
import type { DriveResult, FailureCounts } from './outcome-tally.js';
import { cell, count, num, spread, type Spread } from './report.js';

/** One measured run of one leg. */
export interface DrivenSample {
  readonly round: number;
  readonly leg: string;
  readonly target: string;
  readonly drive: DriveResult;
  /** CPU of the target process per complete request or stream, microseconds. */
  readonly cpuUsPerReq: number;
  /** CPU per SSE event the client received (cpuUsPerReq / events per stream), microseconds; NaN for JSON. */
  readonly cpuUsPerChunk: number;
  /** CPU of the fake upstream per complete request or stream, microseconds. */
  readonly upstreamCpuUsPerReq: number;
  /** RSS of the target just before the run, KiB. */
  readonly rssBeforeKb: number;
  readonly peakRssKb: number;
  readonly peakRssIsPerRun: boolean;
  readonly rssAfterKb: number;
  /** The kernel's TCP counters over the run (all of loopback: every process of the run). */
  readonly tcp: TcpCounters;
}

export type DrivenKind = 'rate' | 'stream-closed' | 'stream-open' | 'stream-hold';

export interface DrivenTable {
  readonly kind: DrivenKind;
  readonly name: string;
  readonly description: string;
  /** Seconds per run, as shown in the heading (0: not time-bound). */
  readonly durationS: number;
  readonly baseline: string;
  /** Row order. */
  readonly legs: readonly string[];
  readonly samples: readonly DrivenSample[];
}

const FAILURE_LABELS: Readonly<Record<keyof FailureCounts, string>> = {
  non2xx: 'non-2xx',
  reset: 'reset',
  error: 'socket error',
  timeout: 'timeout',
  truncated: 'no end event',
  wrongEvents: 'wrong event count',
  unfinished: 'unfinished',
};

/** `0`, or the total with its kinds: `12 (reset 10, non-2xx 2)`. */
export function failureCell(samples: readonly DrivenSample[]): string {
  const sum: Partial<Record<keyof FailureCounts, number>> = {};
  let total = 0;
  for (const s of samples) {
    for (const [k, v] of Object.entries(s.drive.failures) as [keyof FailureCounts, number][]) {
      if (v === 0) continue;
      sum[k] = (sum[k] ?? 0) + v;
      total += v;
    }
  }
  if (total === 0) return '0';
  const parts = (Object.entries(sum) as [keyof FailureCounts, number][]).map(([k, v]) => `${FAILURE_LABELS[k]} ${v}`);
  return `${total} (${parts.join(', ')})`;
}

type Pick = (s: DrivenSample) => number;

class Rows {
  constructor(private readonly t: DrivenTable) {}

  of(leg: string): DrivenSample[] {
    return this.t.samples.filter((s) => s.leg === leg);
  }

  spread(leg: string, pick: Pick): Spread {
    return spread(this.of(leg).map(pick));
  }

  /** Per round, this leg's figure minus the baseline's; spread over rounds. */
  added(leg: string, pick: Pick): Spread {
    const base = new Map(this.of(this.t.baseline).map((s) => [s.round, pick(s)]));
    return spread(this.of(leg).flatMap((s) => (base.has(s.round) ? [pick(s) - (base.get(s.round) as number)] : [])));
  }

  /** Medians' ratio, this leg over the baseline. */
  ratio(leg: string, pick: Pick): number {
    return this.spread(leg, pick).median / this.spread(this.t.baseline, pick).median;
  }
}

const mb = (kb: number): number => kb / 1024;

/** A column: its heading and its cell for one leg. */
type Column = readonly [string, (leg: string) => string];

export function drivenMarkdown(t: DrivenTable): string {
  const rows = new Rows(t);
  const legs = t.legs.filter((l) => rows.of(l).length > 0);
  const base = t.baseline;
  const isBase = (leg: string): boolean => leg === base;
  const r =
    (pick: Pick): Column[1] =>
    (leg) =>
      cell(rows.spread(leg, pick));
  const n =
    (pick: Pick): Column[1] =>
    (leg) =>
      cell(rows.spread(leg, pick), count);
  const added =
    (pick: Pick): Column[1] =>
    (leg) =>
      isBase(leg) ? '' : cell(rows.added(leg, pick));
  const upstream: Column = [
    t.kind === 'rate' ? 'upstream CPU µs/req' : 'upstream CPU µs/stream',
    (leg) => (rows.of(leg)[0]?.target === 'direct' ? '(same)' : cell(rows.spread(leg, (s) => s.upstreamCpuUsPerReq))),
  ];
  const peakRss: Column = ['peak RSS MB', r((s) => mb(s.peakRssKb))];
  const failures: Column = ['failures', (leg) => failureCell(rows.of(leg))];

  const columns: Column[] = {
    rate: (): Column[] => [
      ['req/s', r((s) => s.drive.okPerS)],
      ['p50 ms', r((s) => s.drive.total.p50)],
      ['p90 ms', r((s) => s.drive.total.p90)],
      ['p99 ms', r((s) => s.drive.total.p99)],
      [`added p50 ms vs ${base}`, added((s) => s.drive.total.p50)],
      [`added p99 ms vs ${base}`, added((s) => s.drive.total.p99)],
      ['CPU µs/req', r((s) => s.cpuUsPerReq)],
      upstream,
      peakRss,
      failures,
    ],
    'stream-closed': (): Column[] => [
      ['streams/s', r((s) => s.drive.okPerS)],
      ['TTFB p50 ms', r((s) => s.drive.ttfb.p50)],
      ['TTFB p99 ms', r((s) => s.drive.ttfb.p99)],
      [`TTFB added p50 ms vs ${base}`, added((s) => s.drive.ttfb.p50)],
      [`TTFB added p99 ms vs ${base}`, added((s) => s.drive.ttfb.p99)],
      ['total p50 ms', r((s) => s.drive.total.p50)],
      ['total p99 ms', r((s) => s.drive.total.p99)],
      ['events/stream', r((s) => s.drive.eventsPerOk)],
      ['CPU µs/stream', r((s) => s.cpuUsPerReq)],
      ['CPU µs/chunk', r((s) => s.cpuUsPerChunk)],
      [`CPU/chunk ÷ ${base}`, (leg) => (isBase(leg) ? '' : num(rows.ratio(leg, (s) => s.cpuUsPerChunk)))],
      upstream,
      peakRss,
      failures,
    ],
    'stream-open': (): Column[] => [
      ['opened/s', r((s) => s.drive.issuedPerS)],
      ['TTFB p50 ms', r((s) => s.drive.ttfb.p50)],
      ['TTFB p90 ms', r((s) => s.drive.ttfb.p90)],
      ['TTFB p99 ms', r((s) => s.drive.ttfb.p99)],
      [`TTFB added p99 ms vs ${base}`, added((s) => s.drive.ttfb.p99)],
      ['total p99 ms', r((s) => s.drive.total.p99)],
      ['max open', n((s) => s.drive.maxOpen)],
      ['CPU µs/stream', r((s) => s.cpuUsPerReq)],
      ['CPU µs/chunk', r((s) => s.cpuUsPerChunk)],
      peakRss,
      failures,
    ],
    'stream-hold': (): Column[] => [
      ['streams', n((s) => s.drive.started)],
      ['max open', n((s) => s.drive.maxOpen)],
      failures,
      ['listen overflows', n((s) => s.tcp.listenOverflows)],
      ['TTFB p99 ms', r((s) => s.drive.ttfb.p99)],
      ['total p50 s', r((s) => s.drive.total.p50 / 1000)],
      ['total max s', r((s) => s.drive.total.max / 1000)],
      ['RSS before MB', r((s) => mb(s.rssBeforeKb))],
      peakRss,
      ['KB/stream (÷ streams)', r((s) => (s.peakRssKb - s.rssBeforeKb) / s.drive.started)],
      ['KB/stream (÷ max open)', r((s) => (s.peakRssKb - s.rssBeforeKb) / s.drive.maxOpen)],
      ['CPU µs/stream', r((s) => s.cpuUsPerReq)],
      ['CPU µs/chunk', r((s) => s.cpuUsPerChunk)],
    ],
  }[t.kind]();

  const per = t.durationS > 0 ? `, ${t.durationS} s per run` : '';
  // Rows are targets, or variants of one target (translation): say which.
  const variants = t.samples.some((s) => s.leg !== s.target);
  const first = variants ? `variant (${[...new Set(t.samples.map((s) => s.target))].join(', ')})` : 'target';
  const headings = [first, ...columns.map(([name]) => name)];
  return [
    `### ${t.name}: ${t.description}${per}`,
    '',
    `| ${headings.join(' | ')} |`,
    `|${headings.map(() => '---').join('|')}|`,
    ...legs.map((leg) => `| ${[leg, ...columns.map(([, value]) => value(leg))].join(' | ')} |`),
  ].join('\n');
}
