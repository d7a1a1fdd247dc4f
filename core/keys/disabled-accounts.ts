// The accounts an operator disabled (the console): their keys are refused. Asked on every metered request, so it
// answers from memory, re-read from the store every few seconds; a disable made through this process applies at
// once (refresh), one made through another instance within the interval.

/** How often the store is read; bounds how late another instance's disable is seen. */
const REFRESH_MS = 5_000;

export class DisabledAccounts {
  #names: ReadonlySet<string> = new Set();
  #timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly read: () => Promise<readonly string[]>,
    private readonly onError: (err: unknown) => void = () => undefined,
  ) {}

  has(account: string): boolean {
    return this.#names.has(account);
  }

  async refresh(): Promise<void> {
    this.#names = new Set(await this.read());
  }

  /** Reads now and then every REFRESH_MS until stop(); a failed read keeps the last list. */
  async start(): Promise<void> {
    await this.refresh().catch(this.onError);
    this.#timer ??= setInterval(() => void this.refresh().catch(this.onError), REFRESH_MS);
    this.#timer.unref();
  }

  stop(): void {
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#timer = null;
  }
}
