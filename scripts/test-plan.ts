// Which test files `npm test` starts first, and which `npm run test:quick` leaves out (scripts/run-tests.ts).

/** Started first, slowest first (measured; scripts/test-times-reporter.ts prints the slowest of a run). */
export const SLOW_FIRST: readonly string[] = [];

/** Left out of test:quick: the slow end-to-end files (a build, many processes, browsers, long fuzzing). */
export const QUICK_EXCLUDED: readonly string[] = [];
