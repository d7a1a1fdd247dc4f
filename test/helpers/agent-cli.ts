// Runs a coding-agent CLI (claude, codex) to its end in a clean environment, and kills it if it hangs.

import { spawn } from 'node:child_process';

/** A run that has not ended by then is killed, so a hung CLI fails its test instead of stalling the suite. */
const RUN_KILL_MS = 120_000;

export interface AgentRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * `env` is the whole environment (nothing of the test runner's leaks in). The CLI gets its own process
 * group, killed whole: npm's codex launcher is a Node process that spawns the native binary, and killing the
 * launcher alone would leave the binary running with the pipes open, so the run would never end.
 */
export async function runAgentCli(binary: string, args: readonly string[], env: NodeJS.ProcessEnv, cwd: string): Promise<AgentRun> {
  const proc = spawn(binary, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let stdout = '';
  let stderr = '';
  proc.stdout.setEncoding('utf8').on('data', (s: string) => (stdout += s));
  proc.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s));
  const killer = setTimeout(() => {
    try {
      if (proc.pid !== undefined) process.kill(-proc.pid, 'SIGKILL');
    } catch {
      proc.kill('SIGKILL'); // the group is gone already
    }
  }, RUN_KILL_MS);
  const code = await new Promise<number | null>((resolve) => proc.once('close', resolve));
  clearTimeout(killer);
  return { code, stdout, stderr };
}
