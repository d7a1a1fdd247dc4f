// A topic of news the fleet shares through Redis (cool-downs, rotation), copied into each instance's memory: every
// instance subscribes and applies every message (its own too, in Redis's order), and reads again what it may have
// missed (the state kept beside the topic) whenever its subscription comes back. A subscribed connection can do
// nothing else: a second one, whose errors are the main connection's too (same server), which its owner reports.

import type { RedisState } from './redis-state.js';

export interface RedisNewsOptions {
  readonly topic: string;
  readonly onMessage: (message: string) => void;
  /** Reads what was missed meanwhile (on the main connection): at every (re)connection of the subscriber. */
  readonly reload: () => Promise<void>;
  readonly onError: (err: unknown) => void;
}

export class RedisNews {
  readonly #options: RedisNewsOptions;
  readonly #subscriber: RedisState['client'];
  #subscribed = false;
  /** Resolves once the state was first read after subscribing (a test waits for it before writing behind its back). */
  readonly #firstLoad: Promise<void>;
  #loadedOnce: () => void = () => undefined;

  constructor(state: RedisState, options: RedisNewsOptions) {
    this.#options = options;
    this.#firstLoad = new Promise((resolve) => {
      this.#loadedOnce = resolve;
    });
    this.#subscriber = state.client.duplicate();
    this.#subscriber.on('error', () => undefined);
    // node-redis subscribes again by itself on a reconnection; the first subscription is made (and retried) here.
    this.#subscriber.on('ready', () => void this.#subscribeThenLoad());
    // The main connection was found dead (a frozen or unreachable server): this one, to the same server, is too.
    state.onRecycled(() => {
      if (this.#subscriber.isOpen) this.#subscriber.destroy();
      this.#subscribed = false;
      this.#subscriber.connect().catch((err: unknown) => options.onError(err));
    });
  }

  /** Connects in the background (a Redis that is down is retried by the client). */
  start(): void {
    this.#subscriber.connect().catch((err: unknown) => this.#options.onError(err));
  }

  close(): void {
    this.#subscriber.destroy();
  }

  async #subscribeThenLoad(): Promise<void> {
    if (!this.#subscribed) {
      try {
        await this.#subscriber.subscribe(this.#options.topic, (message) => this.#options.onMessage(message));
        this.#subscribed = true;
      } catch (err) {
        // Retried at the next 'ready' (the connection dropped in between).
        this.#options.onError(err);
        return;
      }
    }
    await this.#options.reload();
    this.#loadedOnce();
  }

  /** Subscribed, and the state read once since. */
  loaded(): Promise<void> {
    return this.#firstLoad;
  }
}
