// Processes by pid, read from /proc: who a process's children are, what they run, and whether one still lives.

import { readdirSync, readFileSync } from 'node:fs';

/** The fields of /proc/<pid>/stat after the command name (which may hold spaces and parentheses). */
function statFields(pid: number): string[] | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/** The pids whose parent is `pid` (this kernel has no /proc/<pid>/task/<tid>/children, so every process is read). */
export function childPids(pid: number): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map(Number)
    .filter((candidate) => statFields(candidate)?.[1] === String(pid));
}

/** Children, their children and so on, parents before children. */
export function descendantPids(pid: number): number[] {
  const found = childPids(pid);
  for (let i = 0; i < found.length; i++) found.push(...childPids(found[i] ?? 0));
  return found;
}

/** The command line of a process, arguments joined by spaces; '' for one that is gone. */
export function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
  } catch {
    return '';
  }
}

/** True while the process exists and has not died (a zombie waiting to be reaped counts as dead). */
export function isAlive(pid: number): boolean {
  const state = statFields(pid)?.[0];
  return state !== undefined && state !== 'Z' && state !== 'X';
}
