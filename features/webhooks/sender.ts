// The sender: every tick this instance leases the events that are due (one instance at a time per event), delivers
// each once, and marks it delivered, due again after a back-off that doubles, or given up on after the last attempt.
// An event outlives a crash and a restart in the store: a lease that is not given back runs out, and another sender
// (or this one, restarted) takes it. At least once: a receiver that answered 2xx to an attempt whose mark was lost
// gets it again, with the same webhook-id to know it by.

import type { Logger } from 'pino';
import type { WebhookSettings, WebhookTarget } from './config.js';
import type { Deliverer } from './deliver.js';
import type { OutboxEvent, OutboxStore } from './outbox-store.js';

/** What a pass reads: the current config load's hooks and outbox (a reload swaps them). */
export interface SenderDeps {
  readonly settings: WebhookSettings;
  readonly outbox: OutboxStore;
  readonly logger: Logger;
  readonly counted: (outcome: 'delivered' | 'retried' | 'failed') => void;
}

export interface SenderOptions {
  /** This instance's name, as a lease owner. */
  readonly owner: string;
  readonly deps: () => SenderDeps;
  readonly deliverer: Deliverer;
  readonly now?: () => number;
  /** Events sent at once per pass. */
  readonly batch?: number;
}

/** A lease outlives an attempt (10 s at most) by far. */
const LEASE_MS = 60_000;
/** The first retry's wait; each later one twice the last, up to MAX_BACKOFF_MS. */
const FIRST_BACKOFF_MS = 5_000;
const MAX_BACKOFF_MS = 3_600_000;
/** Attempts before an event is given up on: about 17 hours of retries at the waits above. */
export const MAX_ATTEMPTS = 24;

/** The wait after the `attempts`-th failed attempt. */
export function backoffMs(attempts: number): number {
  return Math.min(MAX_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** Math.max(0, attempts - 1));
}

export class WebhookSender {
  readonly #options: SenderOptions;

  constructor(options: SenderOptions) {
    this.#options = options;
  }

  /** One pass: every due event leased now is sent once; how many were. */
  async pass(): Promise<number> {
    const deps = this.#options.deps();
    const now = (this.#options.now ?? Date.now)();
    // No hook, nothing to send (and no store query: every gateway runs this job).
    if (deps.settings.hooks.length === 0) return 0;
    const hooks = new Map(deps.settings.hooks.map((hook) => [hook.id, hook]));
    let events: OutboxEvent[];
    try {
      events = await deps.outbox.claimDue(this.#options.owner, [...hooks.keys()], now, now + LEASE_MS, this.#options.batch ?? 16);
    } catch (err) {
      deps.logger.warn({ err }, 'looking for webhook events to send failed; retrying');
      return 0;
    }
    await Promise.all(events.map((event) => this.#send(deps, hooks.get(event.hook), event, now)));
    return events.length;
  }

  async #send(deps: SenderDeps, hook: WebhookTarget | undefined, event: OutboxEvent, now: number): Promise<void> {
    const { owner } = this.#options;
    const attempts = event.attempts + 1;
    // Claimed by this instance's hooks only: one is always found.
    if (hook === undefined) return;
    try {
      const outcome = await this.#options.deliverer.deliver(hook, event.id, event.body, (this.#options.now ?? Date.now)());
      if (outcome.ok) {
        await deps.outbox.delivered(event.id, owner, (this.#options.now ?? Date.now)(), attempts);
        deps.counted('delivered');
        return;
      }
      const last = attempts >= MAX_ATTEMPTS;
      await deps.outbox.failed(event.id, owner, now, attempts, outcome.error, last ? null : now + backoffMs(attempts));
      deps.counted(last ? 'failed' : 'retried');
      // The URL's host only: its path or query may carry a token of the receiver's.
      deps.logger.warn({ event: event.id, type: event.type, host: hook.url.host, attempts, error: outcome.error }, last ? 'webhook event given up on' : 'webhook delivery failed; retrying later');
    } catch (err) {
      // The store could not be told: the lease runs out and the event is sent again (at least once).
      deps.logger.warn({ err, event: event.id }, 'a webhook delivery could not be marked; it will be sent again');
    }
  }
}
