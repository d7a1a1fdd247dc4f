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

function heading(t: DrivenTable, columns: readonly string[]): string[] {
  const per = t.durationS > 0 ? `, ${t.durationS} s per run` : '';
  // Rows are targets, or variants of one target (translation): say which.
  const variants = t.samples.some((s) => s.leg !== s.target);
  const first = variants ? `variant (${[...new Set(t.samples.map((s) => s.target))].join(', ')})` : 'target';
  const cols = [first, ...columns.slice(1)];
  return [`### ${t.name}: ${t.description}${per}`, '', `| ${cols.join(' | ')} |`, `|${cols.map(() => '---').join('|')}|`];
}

export function drivenMarkdown(t: DrivenTable): string {
  const rows = new Rows(t);
  const legs = t.legs.filter((l) => rows.of(l).length > 0);
  const isBase = (leg: string): boolean => leg === t.baseline;
  const addedCell = (leg: string, pick: Pick): string => (isBase(leg) ? '' : cell(rows.added(leg, pick)));
  const upstreamCell = (leg: string): string => (rows.of(leg)[0]?.target === 'direct' ? '(same)' : cell(rows.spread(leg, (s) => s.upstreamCpuUsPerReq)));
  const base = t.baseline;
  let lines: string[];
  switch (t.kind) {
    case 'rate':
      lines = heading(t, [
        'target',
        'req/s',
        'p50 ms',
        'p90 ms',
        'p99 ms',
        `added p50 ms vs ${base}`,
        `added p99 ms vs ${base}`,
        'CPU µs/req',
        'upstream CPU µs/req',
        'peak RSS MB',
        'failures',
      ]);
      for (const l of legs) {
        const r = (p: Pick): string => cell(rows.spread(l, p));
        lines.push(
          `| ${[
            l,
            r((s) => s.drive.okPerS),
            r((s) => s.drive.total.p50),
            r((s) => s.drive.total.p90),
            r((s) => s.drive.total.p99),
            addedCell(l, (s) => s.drive.total.p50),
            addedCell(l, (s) => s.drive.total.p99),
            r((s) => s.cpuUsPerReq),
            upstreamCell(l),
            r((s) => mb(s.peakRssKb)),
            failureCell(rows.of(l)),
          ].join(' | ')} |`,
        );
      }
      break;
    case 'stream-closed':
      lines = heading(t, [
        'target',
        'streams/s',
        'TTFB p50 ms',
        'TTFB p99 ms',
        `TTFB added p50 ms vs ${base}`,
        `TTFB added p99 ms vs ${base}`,
        'total p50 ms',
        'total p99 ms',
        'events/stream',
        'CPU µs/stream',
        'CPU µs/chunk',
        `CPU/chunk ÷ ${base}`,
        'upstream CPU µs/stream',
        'peak RSS MB',
        'failures',
      ]);
      for (const l of legs) {
        const r = (p: Pick): string => cell(rows.spread(l, p));
        lines.push(
          `| ${[
            l,
            r((s) => s.drive.okPerS),
            r((s) => s.drive.ttfb.p50),
            r((s) => s.drive.ttfb.p99),
            addedCell(l, (s) => s.drive.ttfb.p50),
            addedCell(l, (s) => s.drive.ttfb.p99),
            r((s) => s.drive.total.p50),
            r((s) => s.drive.total.p99),
            r((s) => s.drive.eventsPerOk),
            r((s) => s.cpuUsPerReq),
            r((s) => s.cpuUsPerChunk),
            isBase(l) ? '' : num(rows.ratio(l, (s) => s.cpuUsPerChunk)),
            upstreamCell(l),
            r((s) => mb(s.peakRssKb)),
            failureCell(rows.of(l)),
          ].join(' | ')} |`,
        );
      }
      break;
    case 'stream-open':
      lines = heading(t, [
        'target',
        'opened/s',
        'TTFB p50 ms',
        'TTFB p90 ms',
        'TTFB p99 ms',
        `TTFB added p99 ms vs ${base}`,
        'total p99 ms',
        'max open',
        'CPU µs/stream',
        'CPU µs/chunk',
        'peak RSS MB',
        'failures',
      ]);
      for (const l of legs) {
        const r = (p: Pick): string => cell(rows.spread(l, p));
        lines.push(
          `| ${[
            l,
            r((s) => s.drive.issuedPerS),
            r((s) => s.drive.ttfb.p50),
            r((s) => s.drive.ttfb.p90),
            r((s) => s.drive.ttfb.p99),
            addedCell(l, (s) => s.drive.ttfb.p99),
            r((s) => s.drive.total.p99),
            cell(rows.spread(l, (s) => s.drive.maxOpen), count),
            r((s) => s.cpuUsPerReq),
            r((s) => s.cpuUsPerChunk),
            r((s) => mb(s.peakRssKb)),
            failureCell(rows.of(l)),
          ].join(' | ')} |`,
        );
      }
      break;
    case 'stream-hold':
      lines = heading(t, [
        'target',
        'streams',
        'max open',
        'failures',
        'listen overflows',
        'TTFB p99 ms',
        'total p50 s',
        'total max s',
        'RSS before MB',
        'peak RSS MB',
        'KB/stream (÷ streams)',
        'KB/stream (÷ max open)',
        'CPU µs/stream',
        'CPU µs/chunk',
      ]);
      for (const l of legs) {
        const r = (p: Pick): string => cell(rows.spread(l, p));
        const n = (p: Pick): string => cell(rows.spread(l, p), count);
        lines.push(
          `| ${[
            l,
            n((s) => s.drive.started),
            n((s) => s.drive.maxOpen),
            failureCell(rows.of(l)),
            n((s) => s.tcp.listenOverflows),
            r((s) => s.drive.ttfb.p99),
            r((s) => s.drive.total.p50 / 1000),
            r((s) => s.drive.total.max / 1000),
            r((s) => mb(s.rssBeforeKb)),
            r((s) => mb(s.peakRssKb)),
            r((s) => (s.peakRssKb - s.rssBeforeKb) / s.drive.started),
            r((s) => (s.peakRssKb - s.rssBeforeKb) / s.drive.maxOpen),
            r((s) => s.cpuUsPerReq),
            r((s) => s.cpuUsPerChunk),
          ].join(' | ')} |`,
        );
      }
      break;
  }
  return lines.join('\n');
}
