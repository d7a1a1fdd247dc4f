// The client's disconnect, as a flag and plain callbacks. On Node 20 an AbortController costs ~4 us to make
// and a few more per listener (measured: +20 us per small proxied request with one per request and undici
// listening on it, a fifth of what the whole request may cost), so the AbortSignal is made only when asked for.

export class ClientAbort {
  #aborted = false;
  #byShutdown = false;
  #controller: AbortController | null = null;
  #listeners: (() => void)[] | null = null;

  get aborted(): boolean {
    return this.#aborted;
  }

  /** An AbortSignal for APIs that take one (made on first use, already aborted if the client is gone). */
  get signal(): AbortSignal {
    if (this.#controller === null) {
      this.#controller = new AbortController();
      if (this.#aborted) this.#controller.abort();
    }
    return this.#controller.signal;
  }

  /** True when the gateway ended the request for shutdown (the client may still be there to hear why). */
  get byShutdown(): boolean {
    return this.#byShutdown;
  }

  /** Ends the request's work as a client's disconnect does, but as the shutdown: the record and the client say so. */
  abortForShutdown(): void {
    if (this.#aborted) return;
    this.#byShutdown = true;
    this.abort();
  }

  abort(): void {
    if (this.#aborted) return;
    this.#aborted = true;
    this.#controller?.abort();
    const listeners = this.#listeners;
    this.#listeners = null;
    if (listeners !== null) for (const listener of listeners) listener();
  }

  /** Runs `listener` once when the client goes (at once if it has); returns what removes it. */
  onAbort(listener: () => void): () => void {
    if (this.#aborted) {
      listener();
      return NOTHING;
    }
    (this.#listeners ??= []).push(listener);
    return () => {
      const listeners = this.#listeners;
      const at = listeners?.indexOf(listener) ?? -1;
      if (at >= 0) listeners?.splice(at, 1);
    };
  }
}

const NOTHING = (): void => undefined;
