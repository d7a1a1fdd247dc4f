// The fleet of a chaos run: two `gateway serve` processes (the real CLI) on one PostgreSQL, reached through a TCP
// proxy the run can cut, and one redis-server of the run's own, which it can stop. Each instance keeps its port
// across restarts (and so its usage journal). The load balancer in front of them is `ready()`: an instance gets
// traffic only while its last /readyz answered 200, read every 100 ms, as a real balancer's health check would.

import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cliEnv, freePort, killIfRunning, runCli, spawnCli, waitForLog, type CliProcess } from '../test/helpers/cli-process.js';
import { OwnRedis } from '../test/helpers/own-redis.js';
import { startTcpProxy, type TcpProxy } from '../test/helpers/tcp-proxy.js';
import { storeBackends } from '../test/helpers/test-stores.js';

const READY_POLL_MS = 100;
const WAIT = { timeoutMs: 60_000, intervalMs: 50 };
/** server.shutdown_grace_ms (chaos/config.ts) plus the drain delay and a margin. */
const EXIT_TIMEOUT_MS = 15_000;

export interface Instance {
  readonly index: number;
  readonly port: number;
  readonly url: string;
  cli: CliProcess;
  /** Its last /readyz said 200. */
  ready: boolean;
  /** Processes this instance ran, the current one included. */
  starts: number;
  /** What the earlier processes of this instance wrote to stderr (the current one's is `cli.output.stderr`). */
  earlierLogs: string;
}

export interface Fleet {
  readonly instances: readonly Instance[];
  readonly dir: string;
  readonly configPath: string;
  /** The store's URL as the fleet uses it (through the proxy), and directly. */
  readonly storeUrl: string;
  readonly directStoreUrl: string;
  readonly redis: OwnRedis;
  readonly redisPrefix: string;
  readonly postgres: TcpProxy;
  /** Instances ready for traffic now. */
  ready(): readonly Instance[];
  writeConfig(yaml: string): Promise<void>;
  /** SIGHUP to every instance, once the config file changed. */
  reload(): Promise<void>;
  /** SIGTERM, the drain, exit 0 (else throws), and a new process on the same port. */
  restart(instance: Instance): Promise<void>;
  /** SIGKILL; the time it was sent. The instance is started again by `revive`. */
  kill(instance: Instance): number;
  revive(instance: Instance): Promise<void>;
  /** Resident set size of the instance's process in bytes (its /proc status). */
  rss(instance: Instance): Promise<number>;
  /** SIGTERM to every instance; their exits. */
  stop(): Promise<readonly string[]>;
  /** Runs `gateway <args> --config <the fleet's>` to its end. */
  cli(args: readonly string[]): Promise<{ code: number | null; stdout: string; stderr: string }>;
  close(): Promise<void>;
}

export interface FleetOptions {
  /** The PostgreSQL server a database of the run's own is made on (a schema, dropped at the end). */
  readonly postgresUrl: string;
  /** gateway.yaml for a store URL, Redis URL and prefix. */
  readonly config: (storeUrl: string, redisUrl: string, prefix: string) => string;
}

export async function startFleet(options: FleetOptions): Promise<Fleet> {
  // The test suite's way to a database of one's own: a schema on the server, dropped at the end.
  process.env['GATEWAY_TEST_POSTGRES_URL'] = options.postgresUrl;
  const db = await storeBackends()
    .find((b) => b.name === 'postgres')
    ?.fresh();
  if (db === undefined) throw new Error('no PostgreSQL backend');
  const target = new URL(db.url);
  const proxy = await startTcpProxy(target.hostname, Number(target.port || 5432));
  const proxied = new URL(db.url);
  proxied.hostname = '127.0.0.1';
  proxied.port = String(proxy.port);
  const redis = new OwnRedis();
  const dir = await mkdtemp(join(tmpdir(), 'gw-chaos-'));
  const configPath = join(dir, 'gateway.yaml');
  const prefix = `chaos:${process.pid}:`;
  const spawnInstance = (port: number): CliProcess => spawnCli(['serve', '--config', configPath], cliEnv({ PORT: String(port), LOG_LEVEL: 'info' }));
  const instances: Instance[] = [];
  const teardown = async (): Promise<void> => {
    for (const instance of instances) killIfRunning(instance.cli.proc);
    await redis.stop();
    await proxy.close();
    await db.cleanup();
    await rm(dir, { recursive: true, force: true });
  };
  try {
    await redis.start();
    await writeFile(configPath, options.config(proxied.href, redis.url, prefix));
    for (let index = 0; index < 2; index++) {
      const port = await freePort();
      instances.push({ index, port, url: `http://127.0.0.1:${port}`, cli: spawnInstance(port), ready: false, starts: 1, earlierLogs: '' });
    }
    for (const instance of instances) await waitForListening(instance);
  } catch (err) {
    // Nothing of a run that could not start is left behind: processes, Redis, the schema.
    await teardown();
    throw err;
  }

  // The balancer's health checks.
  let polling = true;
  const poll = async (instance: Instance): Promise<void> => {
    while (polling) {
      try {
        const answer = await fetch(`${instance.url}/readyz`, { signal: AbortSignal.timeout(1000) });
        await answer.arrayBuffer();
        instance.ready = answer.status === 200;
      } catch {
        instance.ready = false;
      }
      await new Promise((resolve) => setTimeout(resolve, READY_POLL_MS));
    }
  };
  const polls = instances.map((i) => poll(i));

  // A drain that never ends is a failure of its own, not a hung run: past the grace period and a margin, SIGKILL.
  const exitOf = async (instance: Instance): Promise<string> => {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), EXIT_TIMEOUT_MS)));
    const exit = await Promise.race([instance.cli.exited, late]);
    clearTimeout(timer);
    if (exit === 'late') {
      killIfRunning(instance.cli.proc);
      return `still running ${EXIT_TIMEOUT_MS} ms after SIGTERM`;
    }
    return exit.signal === null ? `exit ${exit.code}` : exit.signal;
  };

  return {
    instances,
    dir,
    configPath,
    storeUrl: proxied.href,
    directStoreUrl: db.url,
    redis,
    redisPrefix: prefix,
    postgres: proxy,
    ready: () => instances.filter((i) => i.ready && i.cli.proc.exitCode === null && i.cli.proc.signalCode === null),
    writeConfig: (yaml) => writeFile(configPath, yaml),
    async reload() {
      for (const instance of instances) instance.cli.proc.kill('SIGHUP');
    },
    async restart(instance) {
      instance.cli.proc.kill('SIGTERM');
      const exit = await exitOf(instance);
      if (exit !== 'exit 0') throw new Error(`instance ${instance.index} ended with ${exit} on SIGTERM:\n${instance.cli.output.stderr.slice(-4000)}`);
      instance.earlierLogs += instance.cli.output.stderr;
      instance.cli = spawnInstance(instance.port);
      instance.starts++;
      await waitForListening(instance);
    },
    kill(instance) {
      instance.cli.proc.kill('SIGKILL');
      instance.ready = false;
      return Date.now();
    },
    async revive(instance) {
      await instance.cli.exited;
      instance.earlierLogs += instance.cli.output.stderr;
      instance.cli = spawnInstance(instance.port);
      instance.starts++;
      await waitForListening(instance);
    },
    async rss(instance) {
      const status = await readFile(`/proc/${instance.cli.proc.pid}/status`, 'utf8');
      const kb = /VmRSS:\s+(\d+) kB/.exec(status)?.[1];
      return kb === undefined ? 0 : Number(kb) * 1024;
    },
    async stop() {
      for (const instance of instances) instance.cli.proc.kill('SIGTERM');
      return Promise.all(instances.map((i) => exitOf(i)));
    },
    cli: (args) => runCli([...args, '--config', configPath], cliEnv()),
    async close() {
      polling = false;
      await Promise.all(polls);
      await teardown();
    },
  };
}

async function waitForListening(instance: Instance): Promise<void> {
  await waitForLog(instance.cli, 'gateway listening', WAIT);
}
