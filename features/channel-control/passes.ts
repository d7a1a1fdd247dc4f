// The polling job's passes over the overrides table, one at a time. A notice that comes while a pass runs asks for one
// more after it: that pass may have read the table before the change the notice is about, and merging the two would
// lose the change until the next tick. A tick that comes while a pass runs is dropped (a slow store is not polled back
// to back).

export class Passes {
  #running: Promise<void> | null = null;
  #again = false;
  #stopped = false;

  constructor(
    private readonly work: () => Promise<void>,
    private readonly failed: (err: unknown) => void,
  ) {}

  /**
   * Runs a pass now; while one runs, `rerun` (a notice: something changed) asks for one more after it (however many
   * ask meanwhile), and a plain tick is dropped.
   */
  ask(rerun: boolean): void {
    if (this.#stopped) return;
    if (this.#running !== null) {
      if (rerun) this.#again = true;
      return;
    }
    this.#running = this.work()
      .catch((err: unknown) => {
        if (this.#stopped) return;
        try {
          this.failed(err);
        } catch {
          // Reporting failed (a logger gone): the next pass tries again all the same.
        }
      })
      .finally(() => {
        this.#running = null;
        if (this.#again) {
          this.#again = false;
          this.ask(false);
        }
      });
  }

  /** No pass starts after this (not even a rerun asked before); resolves once the running one ended. */
  async stop(): Promise<void> {
    this.#stopped = true;
    while (this.#running !== null) await this.#running;
  }
}
