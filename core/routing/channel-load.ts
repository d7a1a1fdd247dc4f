// What each channel is doing, as this process sees it, for the console's channel view: requests in flight (from the
// upstream call to the request's end) and, per minute over the last hour, upstream attempts and the failed ones
// (an attempt that failed over to another channel counts against this one, which the usage records, naming only
// the channel that answered, cannot show). Kept across config loads, as requests are.

const WINDOW_MINUTES = 60;
const MINUTE_MS = 60_000;

interface Minute {
  minute: number;
  attempts: number;
  failures: number;
}

interface Channel {
  inFlight: number;
  /** A ring of the last WINDOW_MINUTES minutes, by minute number modulo its size. */
  readonly minutes: Minute[];
}

export class ChannelLoad {
  readonly #channels = new Map<string, Channel>();

  constructor(private readonly now: () => number = Date.now) {}

  #channel(name: string): Channel {
    let channel = this.#channels.get(name);
    if (channel === undefined) {
      channel = { inFlight: 0, minutes: Array.from({ length: WINDOW_MINUTES }, () => ({ minute: -1, attempts: 0, failures: 0 })) };
      this.#channels.set(name, channel);
    }
    return channel;
  }

  #thisMinute(channel: Channel): Minute {
    const minute = Math.floor(this.now() / MINUTE_MS);
    const slot = channel.minutes[minute % WINDOW_MINUTES] as Minute;
    if (slot.minute !== minute) Object.assign(slot, { minute, attempts: 0, failures: 0 });
    return slot;
  }

  /** An upstream attempt begins: in flight until it fails or its request ends. */
  started(name: string): void {
    const channel = this.#channel(name);
    channel.inFlight++;
    this.#thisMinute(channel).attempts++;
  }

  /** The attempt failed (the request may go on to another channel). */
  failed(name: string): void {
    this.brokeOff(name);
    this.ended(name);
  }

  /** The answer it had begun broke off (or could not be read): a failed attempt, in flight until its request ends. */
  brokeOff(name: string): void {
    this.#thisMinute(this.#channel(name)).failures++;
  }

  /** The request the channel answered has ended. */
  ended(name: string): void {
    const channel = this.#channels.get(name);
    if (channel !== undefined && channel.inFlight > 0) channel.inFlight--;
  }

  inFlight(name: string): number {
    return this.#channels.get(name)?.inFlight ?? 0;
  }

  /** Attempts and failures of the last WINDOW_MINUTES minutes. */
  recent(name: string): { readonly windowMinutes: number; readonly attempts: number; readonly failures: number } {
    const channel = this.#channels.get(name);
    const since = Math.floor(this.now() / MINUTE_MS) - WINDOW_MINUTES;
    let attempts = 0;
    let failures = 0;
    for (const slot of channel?.minutes ?? []) {
      if (slot.minute <= since) continue;
      attempts += slot.attempts;
      failures += slot.failures;
    }
    return { windowMinutes: WINDOW_MINUTES, attempts, failures };
  }
}
