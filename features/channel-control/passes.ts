// The polling job's passes over the overrides table, one at a time. A notice (or a tick) that comes while a pass runs
// asks for one more after it: that pass may have read the table before the change the notice is about, and merging
// the two would lose the change until the next tick.

export class Passes {
  #running: Promise<void> | null = null;
  #again = false;
  #stopped = false;

  constructor(
    private readonly work: () => Promise<void>,
    private readonly failed: (err: unknown) => void,
  ) {}

  /** Runs a pass now, or once more after the one running (however many ask meanwhile). */
  ask(): void {
    if (this.#stopped) return;
    if (this.#running !== null) {
      this.#again = true;
      return;
    }
    this.#running = this.work()
      .catch((err: unknown) => {
        if (!this.#stopped) this.failed(err);
      })
      .finally(() => {
        this.#running = null;
        if (this.#again) {
          this.#again = false;
          this.ask();
        }
      });
  }

  /** No pass starts after this (not even a rerun asked before); resolves once the running one ended. */
  async stop(): Promise<void> {
    this.#stopped = true;
    while (this.#running !== null) await this.#running;
  }
}
