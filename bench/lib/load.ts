// Closed-loop load with autocannon, driven in-process. autocannon's own latency histogram has 1 ms
// resolution, so every 2xx response time is also kept here (float milliseconds) for exact percentiles.

import autocannon from 'autocannon';
import { Samples, type Percentiles } from './percentiles.js';

export interface LoadOptions {
  readonly url: string;
  readonly method: 'GET' | 'POST';
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: Buffer;
  readonly connections: number;
  readonly durationS: number;
  /** Seconds a single request may take before it counts as a timeout. */
  readonly timeoutS: number;
}

export interface LoadResult {
  readonly durationS: number;
  readonly ok: number;
  readonly non2xx: number;
  readonly errors: number;
  readonly timeouts: number;
  /** 2xx responses per second. */
  readonly rps: number;
  /** Milliseconds, 2xx responses only. */
  readonly latency: Percentiles;
  /** CPU time of the load generator (this process) per 2xx response, microseconds. */
  readonly loadgenCpuUsPerReq: number;
  readonly statusCodes: Readonly<Record<string, number>>;
}

let current: autocannon.Instance | undefined;

/** Stops the load in progress, if any (its promise then resolves with what was measured so far). */
export function stopCurrentLoad(): void {
  current?.stop();
}

export async function runLoad(opts: LoadOptions): Promise<LoadResult> {
  const latencies = new Samples();
  const cpuBefore = process.cpuUsage();
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: opts.url,
        method: opts.method,
        headers: { ...opts.headers },
        ...(opts.body === undefined ? {} : { body: opts.body }),
        connections: opts.connections,
        duration: opts.durationS,
        timeout: opts.timeoutS,
        pipelining: 1,
      },
      (err: unknown, res: autocannon.Result) => {
        current = undefined;
        if (err !== null && err !== undefined) reject(err instanceof Error ? err : new Error(String(err)));
        else resolve(res);
      },
    );
    current = instance;
    instance.on('response', (_client, statusCode, _bytes, responseTime) => {
      const code = Number(statusCode);
      if (code >= 200 && code < 300) latencies.push(responseTime);
    });
  });
  const cpu = process.cpuUsage(cpuBefore);
  const ok = result['2xx'];
  const statusCodes: Record<string, number> = {};
  for (const [code, stat] of Object.entries(result.statusCodeStats ?? {})) statusCodes[code] = stat.count ?? 0;
  return {
    durationS: result.duration,
    ok,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    rps: ok / result.duration,
    latency: latencies.percentiles(),
    loadgenCpuUsPerReq: ok === 0 ? NaN : (cpu.user + cpu.system) / ok,
    statusCodes,
  };
}
