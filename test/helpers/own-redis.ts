// A redis-server a test starts on a free port of its own, so that it can stop it (the shared one must stay up).

import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from './cli-process.js';

/** Why a test that needs its own redis-server is skipped, or undefined when it can run. */
export const ownRedisSkip = spawnSync('redis-server', ['--version']).status === 0 ? undefined : 'redis-server is not installed (the Debian package redis-server provides it)';

export class OwnRedis {
  #server: ChildProcess | null = null;
  port = 0;

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  /** Starts it (on the same port as before after a stop) and waits until it answers. */
  async start(): Promise<void> {
    if (this.port === 0) this.port = await freePort();
    this.#server = spawn('redis-server', ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
    const deadline = Date.now() + 10_000;
    while (spawnSync('redis-cli', ['-p', String(this.port), 'ping']).stdout?.toString().trim() !== 'PONG') {
      if (Date.now() > deadline) throw new Error('redis-server did not start');
      await sleep(50);
    }
  }

  /** Kills it (as a crash would: no goodbye to its clients) and waits until it is gone. */
  async stop(): Promise<void> {
    const server = this.#server;
    if (server === null) return;
    const stopped = new Promise((resolve) => server.once('exit', resolve));
    server.kill('SIGKILL');
    await stopped;
    this.#server = null;
  }

  /** Freezes it (SIGSTOP): connections stay open and nothing answers, as a hung or overloaded server. */
  pause(): void {
    this.#server?.kill('SIGSTOP');
  }

  resume(): void {
    this.#server?.kill('SIGCONT');
  }
}
