// What the OS knows about a process: CPU time from /proc/<pid>/stat, memory from /proc/<pid>/status.

import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';

function clockTicks(): number {
  try {
    const n = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
    if (Number.isInteger(n) && n > 0) return n;
  } catch {
    // getconf missing: Linux's USER_HZ is 100 on every common build.
  }
  return 100;
}

/** Clock ticks per second, the unit of utime and stime. */
export const CLK_TCK = clockTicks();

/** User plus system CPU time of the process (all its threads), in microseconds; tick resolution. */
export function cpuMicros(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Field 2 (comm) is in parentheses and may hold spaces; fields from 3 on follow the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime and stime are fields 14 and 15 of the whole line, so 12 and 13 counted from field 3.
  const ticks = Number(fields[11]) + Number(fields[12]);
  return (ticks * 1e6) / CLK_TCK;
}

export interface Memory {
  /** Resident set size now, KiB. */
  readonly rssKb: number;
  /** Peak resident set size (VmHWM), KiB: since the process started, or since the last resetPeakRss. */
  readonly peakKb: number;
}

export function memory(pid: number): Memory {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (name: string): number => {
    const m = new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status);
    return m === null ? NaN : Number(m[1]);
  };
  return { rssKb: field('VmRSS'), peakKb: field('VmHWM') };
}

/**
 * Resets VmHWM to the current RSS (writing 5 to /proc/<pid>/clear_refs, Linux >= 4.0), so that the next
 * reading is the peak of one run, not of the process's life. False where the kernel or permissions refuse.
 */
export function resetPeakRss(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

/** The kernel's TCP counters that tell why connections failed under load (loopback only here, so ours). */
export interface TcpCounters {
  /** Connections dropped because a listener's accept queue was full (the server did not accept fast enough). */
  readonly listenOverflows: number;
  /** Resets sent on closing a socket with unread data. */
  readonly abortOnClose: number;
  /** Resets sent because data arrived after the socket was closed. */
  readonly abortOnData: number;
  /** Established connections that were reset. */
  readonly estabResets: number;
  readonly outRsts: number;
}

/** "Prefix: name name ...\nPrefix: value value ..." pairs of /proc/net/netstat and /proc/net/snmp. */
function readCounterTable(file: string, prefix: string): Map<string, number> {
  const out = new Map<string, number>();
  try {
    const lines = readFileSync(file, 'utf8').split('\n').filter((l) => l.startsWith(`${prefix}:`));
    const names = (lines[0] ?? '').split(/\s+/).slice(1);
    const values = (lines[1] ?? '').split(/\s+/).slice(1);
    names.forEach((n, i) => out.set(n, Number(values[i])));
  } catch {
    // Not Linux, or /proc/net hidden: the counters read as NaN.
  }
  return out;
}

export function tcpCounters(): TcpCounters {
  const ext = readCounterTable('/proc/net/netstat', 'TcpExt');
  const tcp = readCounterTable('/proc/net/snmp', 'Tcp');
  return {
    listenOverflows: ext.get('ListenOverflows') ?? NaN,
    abortOnClose: ext.get('TCPAbortOnClose') ?? NaN,
    abortOnData: ext.get('TCPAbortOnData') ?? NaN,
    estabResets: tcp.get('EstabResets') ?? NaN,
    outRsts: tcp.get('OutRsts') ?? NaN,
  };
}

export function tcpCountersSince(before: TcpCounters): TcpCounters {
  const now = tcpCounters();
  return {
    listenOverflows: now.listenOverflows - before.listenOverflows,
    abortOnClose: now.abortOnClose - before.abortOnClose,
    abortOnData: now.abortOnData - before.abortOnData,
    estabResets: now.estabResets - before.estabResets,
    outRsts: now.outRsts - before.outRsts,
  };
}
