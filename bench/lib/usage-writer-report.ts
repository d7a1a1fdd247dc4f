// The usage-writer scenario's table: one row, cells median (min–max) over rounds.

import type { UsageWriterResult } from '../usage-writer-load.js';
import { cell, count, spread } from './report.js';

export interface UsageWriterSample {
  readonly round: number;
  readonly result: UsageWriterResult;
}

export function usageWriterMarkdown(name: string, description: string, durationS: number, samples: readonly UsageWriterSample[]): string {
  const r = (pick: (x: UsageWriterResult) => number): string => cell(spread(samples.map((s) => pick(s.result))));
  const n = (pick: (x: UsageWriterResult) => number): string => cell(spread(samples.map((s) => pick(s.result))), count);
  const lost = samples.reduce((n, s) => n + s.result.lost, 0);
  const errors = samples.reduce((n, s) => n + s.result.writeErrors, 0);
  return [
    `### ${name}: ${description}, ${durationS} s per run`,
    '',
    '| records written/s | records added/s | records per run | lost | write errors | close() drain ms | max pending | saturated waits | CPU µs/record | peak RSS MB |',
    '|---|---|---|---|---|---|---|---|---|---|',
    `| ${[
      n((x) => x.writtenPerS),
      n((x) => x.offeredPerS),
      n((x) => x.rows),
      String(lost),
      String(errors),
      r((x) => x.closeMs),
      n((x) => x.maxPending),
      n((x) => x.saturatedWaits),
      r((x) => x.cpuUsPerRecord),
      r((x) => x.maxRssKb / 1024),
    ].join(' | ')} |`,
  ].join('\n');
}
