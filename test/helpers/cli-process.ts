// The real `gateway` CLI as a child process, and the loopback port it is told to use. Under `npm test` (which builds
// first and sets GATEWAY_TEST_BUILT) it is the built dist/bin/gateway.js, as `npm start` runs it; a test file run on
// its own runs bin/gateway.ts through tsx, so that it tests the sources as they are.

import { spawn, type ChildProcess, type ChildProcessByStdio } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { until, type PollOptions } from './poll.js';
import { REPO_ROOT } from './repo-root.js';

const ROOT = REPO_ROOT;
const GATEWAY_TS = join(ROOT, 'bin', 'gateway.ts');
const GATEWAY_JS = join(ROOT, 'dist', 'bin', 'gateway.js');
/** tsx by file URL, and this repository's tsconfig: a bare `--import tsx` is looked up from the working directory. */
const TSX = import.meta.resolve('tsx');
const TSCONFIG = join(ROOT, 'tsconfig.json');
/** A `gateway` run that has not ended by then is killed, so a hung CLI fails its test instead of stalling it. */
const RUN_KILL_MS = 60_000;

export interface CliResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

export interface CliExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

export interface CliProcess {
  readonly proc: ChildProcess;
  /** Everything the process wrote so far, growing as it writes. */
  readonly output: { stdout: string; stderr: string };
  readonly exited: Promise<CliExit>;
}

/** This process's environment plus `extra`, without what would make the child a test runner or pick another config. */
export function cliEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extra };
  delete env['NODE_TEST_CONTEXT'];
  delete env['GATEWAY_CONFIG'];
  // A test's config names its own store; one set in the shell must not move the test's gateway elsewhere.
  if (extra['GATEWAY_STORE_URL'] === undefined) delete env['GATEWAY_STORE_URL'];
  return env;
}

export interface SpawnOptions {
  /** The working directory; the repository root by default. */
  readonly cwd?: string;
}

/** Starts `gateway <args>` (from the repository root unless `cwd` says otherwise) and collects its output. */
export function spawnCli(args: readonly string[], env = cliEnv(), options: SpawnOptions = {}): CliProcess {
  return collectOutput(
    spawn(process.execPath, process.env['GATEWAY_TEST_BUILT'] === '1' ? ['--enable-source-maps', GATEWAY_JS, ...args] : ['--import', TSX, GATEWAY_TS, ...args], {
      cwd: options.cwd ?? ROOT,
      env: { TSX_TSCONFIG_PATH: TSCONFIG, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );
}

/** Output and exit of a process spawned with stdout and stderr piped. */
export function collectOutput(proc: ChildProcessByStdio<null, Readable, Readable>): CliProcess {
  const output = { stdout: '', stderr: '' };
  proc.stdout.setEncoding('utf8').on('data', (s: string) => (output.stdout += s));
  proc.stderr.setEncoding('utf8').on('data', (s: string) => (output.stderr += s));
  const exited = new Promise<CliExit>((resolve) => proc.once('exit', (code, signal) => resolve({ code, signal })));
  return { proc, output, exited };
}

/** Runs `gateway <args>` to its end (all output read); killed after a minute. */
export function runCli(args: readonly string[], env = cliEnv(), options: SpawnOptions = {}): Promise<CliResult> {
  const { proc, output } = spawnCli(args, env, options);
  const killer = setTimeout(() => proc.kill('SIGKILL'), RUN_KILL_MS);
  return new Promise((resolve) =>
    proc.once('close', (code) => {
      clearTimeout(killer);
      resolve({ code, ...output });
    }),
  );
}

/** Waits until the process logged a line with this `msg`; fails at once if it exits without having logged it. */
export function waitForLog(cli: CliProcess, msg: string, poll: PollOptions): Promise<true> {
  return until(
    `the "${msg}" log line`,
    () => {
      if (cli.output.stderr.includes(`"msg":"${msg}"`)) return true;
      if (cli.proc.exitCode !== null) throw new Error(`the gateway exited early (${cli.proc.exitCode}):\n${cli.output.stderr}`);
      return undefined;
    },
    poll,
  );
}

/** SIGKILL for a process that is still running; nothing for one that is gone (or was never started). */
export function killIfRunning(proc: ChildProcess | undefined): void {
  if (proc !== undefined && proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
}

/** A loopback port nothing listens on: bound to port 0, read, and released. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A `gateway serve` process of a fleet and its URL. */
export interface FleetMember {
  readonly cli: CliProcess;
  readonly url: string;
}

/**
 * Starts `count` gateway processes on one config, each on a free port, and resolves once every one listens. A port
 * is free when it is picked and taken when the child binds it, so another process may take it between the two: a
 * member that exits on EADDRINUSE starts again on another port (its journal is named after the port, so it cannot
 * listen on port 0 and report it).
 */
export async function startFleet(configPath: string, count: number): Promise<FleetMember[]> {
  const start = async (): Promise<FleetMember> => {
    const port = await freePort();
    return { cli: spawnCli(['serve', '--config', configPath], cliEnv({ PORT: String(port), LOG_LEVEL: 'info' })), url: `http://127.0.0.1:${port}` };
  };
  const members: FleetMember[] = [];
  for (let i = 0; i < count; i++) members.push(await start());
  for (let i = 0; i < members.length; i++) {
    for (let attempt = 1; ; attempt++) {
      try {
        await waitForLog((members[i] as FleetMember).cli, 'gateway listening', { timeoutMs: 30_000, intervalMs: 50 });
        break;
      } catch (err) {
        if (attempt >= 3 || !String(err).includes('EADDRINUSE')) throw err;
        members[i] = await start();
      }
    }
  }
  return members;
}
