// Child processes of a benchmark run: spawned with their output in log files, waited for over HTTP, stopped
// with SIGTERM then SIGKILL. Every child is also registered with a reaper process, which kills whatever is
// left when the runner dies without cleaning up (even by SIGKILL), so no run leaves servers behind.

import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

export interface Child {
  readonly name: string;
  readonly pid: number;
  readonly logFile: string;
  readonly process: ChildProcess;
  /** Resolves with the exit code (or the signal's name) when the process has exited. */
  readonly exited: Promise<number | string>;
  exitedAlready(): boolean;
}

export interface SpawnOptions {
  readonly env?: NodeJS.ProcessEnv;
  readonly cwd?: string;
  /** Give the child a stdin pipe that closes when the runner goes (the fake upstream exits on it). */
  readonly stdinPipe?: boolean;
}

// Reads pid lines (`+123` to watch, `-123` when gone); when its stdin closes, SIGTERMs the watched ones,
// SIGKILLs them 3 s later and removes the directory named by its first argument, if any (the run's temp dir:
// reached only when the runner died without cleaning up). It ignores the signals a terminal or `timeout`
// sends, so it outlives the runner.
const REAPER = `
const pids = new Set(); let buf = ''; const dir = process.argv[1];
const cleanup = () => { if (dir) { try { require('node:fs').rmSync(dir, { recursive: true, force: true }); } catch {} } process.exit(0); };
for (const s of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(s, () => {});
const kill = (sig) => { for (const p of pids) { try { process.kill(p, sig); } catch {} } };
process.stdin.setEncoding('utf8');
process.stdin.on('data', (d) => {
  buf += d; let i;
  while ((i = buf.indexOf('\\n')) >= 0) {
    const l = buf.slice(0, i); buf = buf.slice(i + 1); const p = Number(l.slice(1));
    if (l[0] === '+') pids.add(p); else pids.delete(p);
  }
});
process.stdin.on('end', () => {
  if (pids.size === 0) process.exit(0);
  kill('SIGTERM');
  setTimeout(() => { kill('SIGKILL'); setTimeout(cleanup, 200); }, 3000);
});
`;

export class ProcessSet {
  private readonly children = new Set<Child>();
  private readonly reaper: ChildProcess;

  /** `logDir` holds the children's logs; `orphanDir` is removed by the reaper if the runner dies leaving children. */
  constructor(
    private readonly logDir: string,
    orphanDir?: string,
  ) {
    this.reaper = spawn(process.execPath, ['-e', REAPER, ...(orphanDir === undefined ? [] : [orphanDir])], {
      stdio: ['pipe', 'ignore', 'ignore'],
    });
    this.reaper.unref();
    this.reaper.stdin?.on('error', () => undefined);
    (this.reaper.stdin as unknown as { unref?: () => void } | null)?.unref?.();
  }

  spawn(name: string, command: string, args: readonly string[], options: SpawnOptions = {}): Child {
    const logFile = join(this.logDir, `${name}.log`);
    const fd = openSync(logFile, 'a');
    const proc = spawn(command, args, {
      cwd: options.cwd,
      env: options.env ?? process.env,
      stdio: [options.stdinPipe === true ? 'pipe' : 'ignore', fd, fd],
    });
    closeSync(fd);
    if (proc.pid === undefined) throw new Error(`${name}: could not start ${command}`);
    const pid = proc.pid;
    proc.stdin?.on('error', () => undefined);
    let done = false;
    const exited = new Promise<number | string>((resolve) => {
      proc.once('exit', (code, signal) => {
        done = true;
        this.reaper.stdin?.write(`-${pid}\n`);
        resolve(code ?? signal ?? 'unknown');
      });
      proc.once('error', (err) => {
        done = true;
        resolve(`spawn error: ${err.message}`);
      });
    });
    this.reaper.stdin?.write(`+${pid}\n`);
    const child: Child = { name, pid, logFile, process: proc, exited, exitedAlready: () => done };
    this.children.add(child);
    void exited.then(() => this.children.delete(child));
    return child;
  }

  /** SIGTERM, then SIGKILL after `graceMs`; resolves once the process is gone. */
  async stop(child: Child, graceMs = 5000): Promise<number | string> {
    if (child.exitedAlready()) return child.exited;
    child.process.kill('SIGTERM');
    const timer = setTimeout(() => child.process.kill('SIGKILL'), graceMs);
    const code = await child.exited;
    clearTimeout(timer);
    return code;
  }

  async stopAll(graceMs = 5000): Promise<void> {
    await Promise.all([...this.children].map((c) => this.stop(c, graceMs)));
    this.closeReaper();
  }

  /** For process 'exit' handlers: no waiting possible, so SIGKILL at once. */
  killAllNow(): void {
    for (const c of this.children) if (!c.exitedAlready()) c.process.kill('SIGKILL');
    this.closeReaper();
  }

  private closeReaper(): void {
    this.reaper.stdin?.end();
  }
}

/** A free TCP port on 127.0.0.1 (the OS picks it; it is released before the caller binds it). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr !== null ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/** Polls `url` until it answers with `expectStatus`, the child exits, or `timeoutMs` passes. */
export async function waitForHttp(child: Child, url: string, timeoutMs: number, expectStatus = 200): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = 'no answer';
  while (Date.now() < deadline) {
    if (child.exitedAlready()) throw new Error(`${child.name} exited (${String(await child.exited)}) before it was ready\n${tail(child.logFile)}`);
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(1000) });
      await res.arrayBuffer();
      if (res.status === expectStatus) return;
      last = `HTTP ${res.status}`;
    } catch (err) {
      last = (err as Error).message;
    }
    await sleep(100);
  }
  throw new Error(`${child.name} not ready at ${url} after ${timeoutMs} ms (${last})\n${tail(child.logFile)}`);
}

/** The last lines of a log file, for error messages. */
export function tail(file: string, lines = 20): string {
  try {
    return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  }
}
