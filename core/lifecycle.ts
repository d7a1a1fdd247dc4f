// The process's one lifecycle: every service (a store, a pool, a background loop, a listener) is started in the
// order it is added, and stopped in the reverse order, once. A start that fails stops what started before it.

import type { Logger } from './logging/logger.js';

/** A part of the running gateway that has something to stop. */
export interface Service {
  readonly name: string;
  start?(): void | Promise<void>;
  stop(): void | Promise<void>;
}

export class Lifecycle {
  /** Started services, in their start order. */
  readonly #running: Service[] = [];
  #stopping: Promise<void> | null = null;

  constructor(private readonly logger: Logger) {}

  /** Starts `service`; stop() stops it after every service started later. */
  async start(service: Service): Promise<void> {
    await service.start?.();
    this.#running.push(service);
  }

  /** Opens a resource as a service: `close` is its stop. */
  async open<T>(name: string, open: () => T | Promise<T>, close: (value: T) => void | Promise<void>): Promise<T> {
    const value = await open();
    this.#running.push({ name, stop: () => close(value) });
    return value;
  }

  /** The services started, by name, in start order (what stop() undoes from the end). */
  get names(): readonly string[] {
    return this.#running.map((service) => service.name);
  }

  /**
   * Stops every started service, the last started first. One that fails is logged and the rest still stop; the
   * first failure is thrown at the end (usage records left unwritten must not look like a clean stop).
   */
  stop(): Promise<void> {
    this.#stopping ??= this.#stopAll();
    return this.#stopping;
  }

  async #stopAll(): Promise<void> {
    let failure: { readonly error: unknown } | null = null;
    for (let service = this.#running.pop(); service !== undefined; service = this.#running.pop()) {
      try {
        await service.stop();
      } catch (error) {
        this.logger.error({ err: error, service: service.name }, 'stopping a service failed');
        failure ??= { error };
      }
    }
    if (failure !== null) throw failure.error;
  }
}
