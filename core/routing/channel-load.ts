// How many requests each channel is serving right now (this process's), for the console's channel view: counted
// from the upstream call to the request's end. Kept across config loads, as requests are.

export class ChannelLoad {
  readonly #counts = new Map<string, number>();

  started(channel: string): void {
    this.#counts.set(channel, (this.#counts.get(channel) ?? 0) + 1);
  }

  ended(channel: string): void {
    const left = (this.#counts.get(channel) ?? 0) - 1;
    // Names of channels a reload removed go once their last request ends: the map holds at most the live ones.
    if (left > 0) this.#counts.set(channel, left);
    else this.#counts.delete(channel);
  }

  inFlight(channel: string): number {
    return this.#counts.get(channel) ?? 0;
  }
}
