// The process-wide runtime: the current Gateway (swapped on reload), the store and usage writer, shutdown.

import type { SharedState } from './shared/shared-state.js';
import type { ServerResponse } from 'node:http';
import type { ResolvedConfig } from './config/resolved.js';
import type { BodyPool } from './formats/body-pool.js';
import { Gateway, type GatewayDeps } from './gateway.js';
import type { ClientAbort } from './client-abort.js';
import { InFlightList } from './pipeline/in-flight-list.js';
import { RequestIds } from './pipeline/request-id.js';
import type { MockImageFiles } from './providers/mock/image-files.js';
import type { UsageWriter } from './store/usage-writer.js';

/** How long requests ended by the shutdown get to write their last words (an error frame) before they are cut. */
const LAST_WORDS_MS = 1000;

interface InFlight {
  readonly abort: ClientAbort;
  readonly res: ServerResponse;
}

export interface RuntimeDeps extends GatewayDeps {
  readonly writer: UsageWriter;
  /** Memory reused for large request bodies (formats/body-pool.ts), across reloads. */
  readonly bodyPool: BodyPool;
  /** The mock channel's images, served at GET /v1/mock/images/<id>.png (http/mock-image-route.ts). */
  readonly mockImages: MockImageFiles;
  /** What the fleet shares through Redis (redis.url): /readyz reports whether it is connected. */
  readonly shared?: SharedState;
}

export class Runtime {
  private gateway: Gateway;
  private readonly inFlight = new InFlightList<InFlight>();
  /** Every answer's request id, the usage record's (pipeline/request-id.ts). */
  readonly ids = new RequestIds();
  private closing = false;
  private unready = false;

  constructor(
    readonly deps: RuntimeDeps,
    config: ResolvedConfig,
  ) {
    this.gateway = new Gateway(config, deps);
    this.gateway.startDiscovery();
  }

  /** The Gateway a new request should use; a request keeps the one it started with. */
  get current(): Gateway {
    return this.gateway;
  }

  get shuttingDown(): boolean {
    return this.closing;
  }

  /** Not ready for new traffic (/readyz 503): a SIGTERM was received; requests are still served until the drain. */
  get draining(): boolean {
    return this.unready || this.closing;
  }

  /** /readyz says 503 from now on, so that load balancers stop sending; beginShutdown() follows after the drain delay. */
  beginDrain(): void {
    this.unready = true;
  }

  /** Builds a Gateway from a new config and swaps it in; throws (keeping the old one) when it cannot be built. */
  reload(config: ResolvedConfig): void {
    const next = new Gateway(config, this.deps);
    const previous = this.gateway;
    this.gateway = next;
    next.startDiscovery(previous);
    void previous.retire().catch((err: unknown) => this.deps.logger.warn({ err }, 'closing the previous config failed'));
  }

  track(entry: InFlight): () => void {
    return this.inFlight.add(entry);
  }

  get inFlightCount(): number {
    return this.inFlight.size;
  }

  /** From now on new requests get 503; the caller closes the listener and waits for `drained()`. */
  beginShutdown(): void {
    this.closing = true;
  }

  /**
   * Resolves when no request is in flight, or ends the rest after `graceMs`: each is aborted as the shutdown, so
   * its client hears why (a 503, or the format's in-band error on a stream) and its record says so; a response
   * still not done a moment later is cut.
   */
  async drained(graceMs: number): Promise<void> {
    const deadline = Date.now() + graceMs;
    while (this.inFlight.size > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
    for (const { abort } of this.inFlight.values()) abort.abortForShutdown();
    const cutAt = Date.now() + LAST_WORDS_MS;
    while (this.inFlight.size > 0 && Date.now() < cutAt) await new Promise((r) => setTimeout(r, 10));
    for (const { res } of this.inFlight.values()) res.destroy();
    // Aborted requests still run their finish hooks (usage records) before they leave the list.
    while (this.inFlight.size > 0) await new Promise((r) => setTimeout(r, 10));
  }

  /** The current Gateway's end: its upstream pools closed once its requests are done. */
  retire(): Promise<void> {
    return this.gateway.retire();
  }
}
