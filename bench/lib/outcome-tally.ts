// Adds up the outcomes of one run's requests: counts by failure, percentiles of the complete ones, the most
// requests in flight at once.

import { Samples, type Percentiles } from './percentiles.js';
import type { Failure, Outcome } from './timed-request.js';

export type FailureCounts = Record<Failure | 'wrongEvents', number>;

export interface DriveResult {
  /** Wall time from the first request issued to the last one settled, seconds. */
  readonly durationS: number;
  readonly started: number;
  /** Complete: 2xx, and for streams ended with the terminal event and the expected number of events. */
  readonly ok: number;
  readonly failures: FailureCounts;
  /** Sum of `failures`. */
  readonly failed: number;
  /** Complete requests per second of wall time. */
  readonly okPerS: number;
  /** Requests issued per second while issuing (open loop: the schedule's rate, if the client kept up). */
  readonly issuedPerS: number;
  /** Milliseconds from issuing to the first body bytes, complete requests only. */
  readonly ttfb: Percentiles;
  /** Milliseconds from issuing to the end of the answer, complete requests only. */
  readonly total: Percentiles;
  /** Open loop: how late requests were issued against their schedule (ms); all zero in a closed loop. */
  readonly sendLag: Percentiles;
  /** Mean SSE events per complete stream (0 for JSON replies). */
  readonly eventsPerOk: number;
  readonly bytesPerOk: number;
  /** Most requests issued and not settled at once (streams, and requests still connecting or waiting). */
  readonly maxInFlight: number;
  /** Most streams open at once: first body bytes received, not ended yet. */
  readonly maxOpen: number;
  /** Milliseconds from issuing to the failure, for failures other than `unfinished` (when did they happen). */
  readonly failedAt: Percentiles;
  readonly statusCodes: Readonly<Record<string, number>>;
  readonly errorCodes: Readonly<Record<string, number>>;
  /** CPU time of the load generator (this process) per issued request, microseconds. */
  readonly loadgenCpuUsPerReq: number;
}

export class OutcomeTally {
  private readonly ttfb = new Samples();
  private readonly total = new Samples();
  readonly sendLag = new Samples();
  private readonly failedAt = new Samples();
  private readonly failures: FailureCounts = {
    non2xx: 0,
    reset: 0,
    error: 0,
    timeout: 0,
    truncated: 0,
    unfinished: 0,
    wrongEvents: 0,
  };
  private readonly statusCodes: Record<string, number> = {};
  private readonly errorCodes: Record<string, number> = {};
  private readonly cpuBefore = process.cpuUsage();
  private started = 0;
  private ok = 0;
  private events = 0;
  private bytes = 0;
  private inFlight = 0;
  private maxInFlight = 0;
  private open = 0;
  private maxOpen = 0;

  /** For timedRequest's onFirstByte. */
  readonly opened = (): void => {
    this.open++;
    if (this.open > this.maxOpen) this.maxOpen = this.open;
  };

  /** `expectedEvents`: for streams, the events a complete stream has; another count is a failure. */
  constructor(private readonly expectedEvents: number | undefined) {}

  /** Call when a request is issued; its outcome goes to add(). */
  issued(): void {
    this.started++;
    this.inFlight++;
    if (this.inFlight > this.maxInFlight) this.maxInFlight = this.inFlight;
  }

  add(o: Outcome): void {
    this.inFlight--;
    if (Number.isFinite(o.ttfbMs)) this.open--;
    const code = String(o.status);
    this.statusCodes[code] = (this.statusCodes[code] ?? 0) + 1;
    if (o.errorCode !== undefined) this.errorCodes[o.errorCode] = (this.errorCodes[o.errorCode] ?? 0) + 1;
    if (o.failure !== undefined) {
      this.failures[o.failure]++;
      if (o.failure !== 'unfinished') this.failedAt.push(o.totalMs);
      return;
    }
    if (this.expectedEvents !== undefined && o.events !== this.expectedEvents) {
      this.failures.wrongEvents++;
      return;
    }
    this.ok++;
    this.events += o.events;
    this.bytes += o.bytes;
    this.ttfb.push(o.ttfbMs);
    this.total.push(o.totalMs);
  }

  /** Requests issued whose outcome has not come back yet. */
  get pending(): number {
    return this.inFlight;
  }

  /** `issueS`: how long issuing took (open loop); the whole run for a closed loop. */
  result(durationS: number, issueS = durationS): DriveResult {
    const cpu = process.cpuUsage(this.cpuBefore);
    const failed = Object.values(this.failures).reduce((a, b) => a + b, 0);
    return {
      durationS,
      started: this.started,
      ok: this.ok,
      failures: { ...this.failures },
      failed,
      okPerS: this.ok / durationS,
      issuedPerS: this.started / issueS,
      ttfb: this.ttfb.percentiles(),
      total: this.total.percentiles(),
      sendLag: this.sendLag.percentiles(),
      eventsPerOk: this.ok === 0 ? NaN : this.events / this.ok,
      bytesPerOk: this.ok === 0 ? NaN : this.bytes / this.ok,
      maxInFlight: this.maxInFlight,
      maxOpen: this.maxOpen,
      failedAt: this.failedAt.percentiles(),
      statusCodes: { ...this.statusCodes },
      errorCodes: { ...this.errorCodes },
      loadgenCpuUsPerReq: this.started === 0 ? NaN : (cpu.user + cpu.system) / this.started,
    };
  }
}
