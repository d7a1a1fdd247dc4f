// A node:test reporter (run from its build in dist/scripts: reporters load before tsx) that adds to the usual output the files that took longest (the sum of their top-level tests),
// so the slow ones can be found and listed first in scripts/test-plan.ts.

interface TestEvent {
  readonly type: string;
  readonly data: { readonly nesting?: number; readonly file?: string; readonly details?: { readonly duration_ms?: number } };
}

/** How many files it names; TEST_TIMES=all names every one (to revise scripts/test-plan.ts). */
const SHOWN = process.env['TEST_TIMES'] === 'all' ? Infinity : 15;

export default async function* testTimes(source: AsyncIterable<TestEvent>): AsyncGenerator<string> {
  const times = new Map<string, number>();
  for await (const event of source) {
    if ((event.type !== 'test:pass' && event.type !== 'test:fail') || event.data.nesting !== 0 || event.data.file === undefined) continue;
    times.set(event.data.file, (times.get(event.data.file) ?? 0) + (event.data.details?.duration_ms ?? 0));
  }
  const slowest = [...times].sort((a, b) => b[1] - a[1]).slice(0, SHOWN);
  yield `# slowest files (s): ${slowest.map(([file, ms]) => `${file.replace(`${process.cwd()}/`, '').replace(/^dist\/(.*)\.js$/, '$1.ts')} ${(ms / 1000).toFixed(1)}`).join(', ')}\n`;
}
