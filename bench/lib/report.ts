// Summaries (min / median / max over rounds) and the markdown table of the closed-loop (autocannon) scenarios;
// the cell formatting every table shares.

import type { LoadResult } from './load.js';

export interface Spread {
  readonly min: number;
  readonly median: number;
  readonly max: number;
}

export function spread(values: readonly number[]): Spread {
  const v = values.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  if (v.length === 0) return { min: NaN, median: NaN, max: NaN };
  const mid = Math.floor(v.length / 2);
  const median = v.length % 2 === 1 ? (v[mid] as number) : ((v[mid - 1] as number) + (v[mid] as number)) / 2;
  return { min: v[0] as number, median, max: v[v.length - 1] as number };
}

/** One measured closed-loop run of one target. */
export interface Sample {
  readonly round: number;
  /** The row: the leg's name (for closed-loop scenarios, the target's). */
  readonly target: string;
  readonly load: LoadResult;
  /** CPU of the target process per 2xx response (for `direct`, the fake upstream itself), microseconds. */
  readonly cpuUsPerReq: number;
  /** CPU of the fake upstream per 2xx response, microseconds (for `direct` the same as cpuUsPerReq). */
  readonly upstreamCpuUsPerReq: number;
  /** Peak RSS of the target process during this run (or since it started, see peakRssIsPerRun), KiB. */
  readonly peakRssKb: number;
  readonly peakRssIsPerRun: boolean;
  readonly rssAfterKb: number;
}

export interface TargetSummary {
  readonly target: string;
  readonly rounds: number;
  readonly rps: Spread;
  /** Median req/s of this target over median req/s of direct. */
  readonly rpsVsDirect: number;
  readonly p50Ms: Spread;
  readonly p99Ms: Spread;
  readonly cpuUsPerReq: Spread;
  readonly upstreamCpuUsPerReq: Spread;
  readonly peakRssMb: Spread;
  /** non-2xx responses + connection errors + timeouts, summed over rounds. */
  readonly failures: number;
}

export function summarize(samples: readonly Sample[], targets: readonly string[]): TargetSummary[] {
  const byTarget = (t: string): Sample[] => samples.filter((s) => s.target === t);
  const directRps = spread(byTarget('direct').map((s) => s.load.rps)).median;
  return targets
    .filter((t) => byTarget(t).length > 0)
    .map((t) => {
      const s = byTarget(t);
      const rps = spread(s.map((x) => x.load.rps));
      return {
        target: t,
        rounds: s.length,
        rps,
        rpsVsDirect: rps.median / directRps,
        p50Ms: spread(s.map((x) => x.load.latency.p50)),
        p99Ms: spread(s.map((x) => x.load.latency.p99)),
        cpuUsPerReq: spread(s.map((x) => x.cpuUsPerReq)),
        upstreamCpuUsPerReq: spread(s.map((x) => x.upstreamCpuUsPerReq)),
        peakRssMb: spread(s.map((x) => x.peakRssKb / 1024)),
        failures: s.reduce((n, x) => n + x.load.non2xx + x.load.errors + x.load.timeouts, 0),
      };
    });
}

export function num(v: number): string {
  if (!Number.isFinite(v)) return '–';
  const a = Math.abs(v);
  if (a >= 100) return Math.round(v).toLocaleString('en-US');
  if (a >= 10) return v.toFixed(1);
  if (a >= 1) return v.toFixed(2);
  return v.toFixed(3);
}

/** A count (streams, overflows, records): whole, with thousands separators. */
export function count(v: number): string {
  return Number.isFinite(v) ? Math.round(v).toLocaleString('en-US') : '–';
}

/** `median (min–max)`, or just the value when all rounds agree or there was one. */
export function cell(s: Spread, format: (v: number) => string = num): string {
  if (!Number.isFinite(s.median)) return '–';
  return format(s.min) === format(s.max) ? format(s.median) : `${format(s.median)} (${format(s.min)}–${format(s.max)})`;
}

export interface ScenarioTable {
  readonly name: string;
  readonly description: string;
  readonly connections: number;
  readonly durationS: number;
  readonly bodyBytes: number;
  readonly summary: readonly TargetSummary[];
}

export function markdownTable(s: ScenarioTable): string {
  const kb = s.bodyBytes / 1024;
  const perKb = kb >= 10;
  const lines = [
    `### ${s.name}: ${s.description}, ${s.connections} connections, ${s.durationS} s per run`,
    '',
    `| target | req/s | vs direct | p50 ms | p99 ms | CPU µs/req${perKb ? ' | CPU µs/KB' : ''} | upstream CPU µs/req | peak RSS MB | failures |`,
    `|---|---|---|---|---|---|${perKb ? '---|' : ''}---|---|---|`,
  ];
  for (const t of s.summary) {
    const upstream = t.target === 'direct' ? '(same)' : cell(t.upstreamCpuUsPerReq);
    const cpuPerKb = perKb ? ` ${num(t.cpuUsPerReq.median / kb)} |` : '';
    lines.push(
      `| ${t.target} | ${cell(t.rps)} | ${num(t.rpsVsDirect)} | ${cell(t.p50Ms)} | ${cell(t.p99Ms)} | ${cell(t.cpuUsPerReq)} |${cpuPerKb} ${upstream} | ${cell(t.peakRssMb)} | ${t.failures} |`,
    );
  }
  return lines.join('\n');
}
