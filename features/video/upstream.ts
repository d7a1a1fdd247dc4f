// The contract of a video task upstream: Ark's data plane (providers/volcengine/data-plane.ts) or the mock's
// (providers/mock/video-tasks.ts). A task is made once, read until it ends, cancelled while queued, and its file
// downloaded as a byte stream; the gateway keeps the task (this folder), the upstream only runs it.

import type { Chunks } from '../../core/sse/pulled-body.js';
import type { ResolvedChannel } from '../../core/config/resolved.js';

/** Ark's task states, as its data plane names them. */
export type UpstreamTaskStatus = 'queued' | 'running' | 'succeeded' | 'failed' | 'cancelled' | 'expired';

export const UPSTREAM_TASK_STATUSES: readonly UpstreamTaskStatus[] = ['queued', 'running', 'succeeded', 'failed', 'cancelled', 'expired'];

/** What one read of an upstream task says. */
export interface UpstreamTask {
  readonly status: UpstreamTaskStatus;
  /** The video's URL once succeeded (Ark's expire after 24 h); null before. */
  readonly videoUrl: string | null;
  /** `usage.total_tokens` once succeeded (what Seedance bills); null when not reported. */
  readonly totalTokens: number | null;
  /** Seconds of video made (`duration`), when reported. */
  readonly duration: number | null;
  /** On failure: the upstream's code and message. */
  readonly error: { readonly code: string; readonly message: string } | null;
}

/**
 * One call's target: the channel and the upstream key to use; `signal` aborts it (the call then rejects with the
 * abort's own error, not a VideoUpstreamError: an abort is the caller's doing, not the upstream's failure).
 */
export interface TaskCall {
  readonly channel: ResolvedChannel;
  readonly key: string;
  readonly signal: AbortSignal;
}

/** A downloaded file, relayed as it arrives. */
export interface VideoFile {
  readonly contentType: string;
  /** Bytes, when the upstream said. */
  readonly contentLength: number | null;
  readonly body: Chunks;
  /** Drops the body unread (what is left of it, when iteration has begun). */
  discard(): Promise<void>;
}

/**
 * An upstream call that failed. `refused`: the upstream answered 4xx but 408 and 429 (the request is wrong: its
 * status, code and message go to the caller); `unavailable`: no answer, a timeout, 408, 429 or 5xx (another channel
 * may be tried, and a poll is retried later). `code` is the upstream's, or the gateway's own when it said none:
 * `UpstreamError` (an answer not in the API's shape), `UpstreamTimeout`, `UpstreamUnavailable` (no connection).
 */
export class VideoUpstreamError extends Error {
  constructor(
    readonly kind: 'refused' | 'unavailable',
    readonly status: number,
    readonly code: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'VideoUpstreamError';
  }
}

export interface VideoUpstream {
  /** Makes a task from an Ark request body (`model` already the upstream's name); its upstream id. */
  create(call: TaskCall, body: Readonly<Record<string, unknown>>): Promise<string>;
  get(call: TaskCall, id: string): Promise<UpstreamTask>;
  /**
   * Cancels a queued task. Ark's DELETE is also its delete: a succeeded, failed or expired task is removed (a later
   * get is a 404 `refused`), and a running or cancelled one is refused. So call it only on a task last read queued.
   */
  cancel(call: TaskCall, id: string): Promise<void>;
  /**
   * The file at `url`, a succeeded task's `videoUrl`, streamed. It is fetched without the upstream key (Ark's are
   * pre-signed URLs on another origin); an answer other than 2xx is `unavailable`.
   */
  download(call: TaskCall, url: string): Promise<VideoFile>;
  close(): Promise<void>;
}
