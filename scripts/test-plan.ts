// What `npm test` builds before its tests, which test files it starts first, and which `npm run test:quick` runs
// (scripts/run-tests.ts).

/** Where the tests' incremental tsc keeps what it knows (in dist/: removing dist/ removes it too). */
export const TS_BUILD_INFO = 'dist/.tsbuildinfo';

/**
 * The build, its steps side by side: tsc over the whole repository (type-checking the tests too; dist/ holds the
 * gateway `npm start` runs, tsconfig.build.json's subset of the same compile, and the tests), the console's type check,
 * and its bundle (what `npm run build:console` makes). test/architecture/build-script.test.ts holds them to `npm run build`.
 */
export const BUILD_STEPS: readonly (readonly string[])[] = [
  // Incremental: a rebuild after an edit checks and emits what the edit touched (dist/ keeps what tsc knows).
  ['tsc', '-p', 'tsconfig.json', '--incremental', '--tsBuildInfoFile', TS_BUILD_INFO],
  ['tsc', '-p', 'console/tsconfig.json', '--noEmit'],
  ['tsx', 'scripts/build-console.ts'],
];

/**
 * Started first, slowest first, so that the files still running at the end are short ones and the cores stay busy
 * to the last. Measured with TEST_TIMES=all (scripts/test-times-reporter.ts), 4 files at once on 2 cores.
 */
export const SLOW_FIRST: readonly string[] = [
  'test/e2e/fuzz-admin-console.test.ts',
  'test/e2e/billing-shutdown.test.ts',
  'test/e2e/console-lockout.test.ts',
  'test/e2e/fuzz-names.test.ts',
  'test/core/config/fuzz-config.test.ts',
  'test/e2e/fuzz-bodies.test.ts',
  'test/e2e/npm-start.test.ts',
  'test/core/formats/translate-golden.test.ts',
  'test/e2e/billing-overdraft.test.ts',
  'test/e2e/rate-limits-slots.test.ts',
  'test/core/console/sign-in.test.ts',
  'test/e2e/keys.test.ts',
  'test/e2e/billing-fleet.test.ts',
  'test/e2e/rate-limits-redis-outage.test.ts',
  'test/e2e/reload.test.ts',
  'test/e2e/metrics-cardinality.test.ts',
  'test/e2e/key-limits.test.ts',
  'test/e2e/rate-limits-fleet.test.ts',
  'test/e2e/asset-billing.test.ts',
  'test/e2e/console-browser.test.ts',
  'test/e2e/fuzz-images.test.ts',
  'test/e2e/intake-limits.test.ts',
  'test/e2e/fuzz-video-form.test.ts',
  'test/e2e/readyz.test.ts',
  'test/e2e/affinity.test.ts',
  'test/e2e/key-access.test.ts',
  'test/e2e/video-fleet.test.ts',
  'test/e2e/fuzz-video.test.ts',
  'test/e2e/console-videos-browser.test.ts',
  'features/video/video-task-store.test.ts',
];

/** test:quick runs the unit tests (these folders)... */
export const QUICK_FOLDERS: readonly string[] = ['test/architecture', 'test/core', 'test/plugins', 'features'];

/** ...but for their slowest files, which `npm test` runs... */
export const QUICK_SKIPPED: readonly string[] = [
  'test/core/formats/translate-golden.test.ts',
  'test/core/formats/translate-properties.test.ts',
  // These two run the generators as scripts (under tsx, a second load of the sources each).
  'test/core/config/gateway-gen.test.ts',
  'test/plugins/options-gen.test.ts',
  'test/core/console/sign-in.test.ts',
  'features/video/video-task-store.test.ts',
  'test/core/store/ledger.test.ts',
];

/** ...and these end-to-end files: one request of each API through the gateway, fast. */
export const QUICK_E2E: readonly string[] = [
  'test/e2e/openai-sdk.test.ts',
  'test/e2e/anthropic-sdk.test.ts',
  'test/e2e/openai-responses.test.ts',
  'test/e2e/errors.test.ts',
  'test/e2e/billing-formats.test.ts',
  'test/e2e/images.test.ts',
  'test/e2e/video-tasks.test.ts',
  'test/e2e/asset-library.test.ts',
  'test/e2e/cost-told.test.ts',
  'test/e2e/telemetry.test.ts',
  'test/e2e/channel-health.test.ts',
];
