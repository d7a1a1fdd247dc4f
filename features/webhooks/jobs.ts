// The feature's background work, per process: the sender (every second, the due events) and the scan (every
// minute, the balances and keys), each reading the current config load's hooks at every pass.

import { Counter } from 'prom-client';
import { sectionOf } from '../../core/config/section.js';
import type { JobEnv } from '../../core/feature/feature.js';
import type { Service } from '../../core/lifecycle.js';
import { WEBHOOK_SETTINGS } from './config.js';
import { Deliverer } from './deliver.js';
import { scan } from './scanner.js';
import { WebhookSender, type SenderDeps } from './sender.js';
import { WEBHOOK_STORE } from './store-part.js';

export interface WebhookJobOptions {
  readonly sendEveryMs?: number;
  readonly scanEveryMs?: number;
  readonly now?: () => number;
}

/** Runs `pass` every `everyMs`, one at a time; stop() waits for the one running. */
function repeating(name: string, everyMs: number, pass: () => Promise<unknown>, stopped?: () => Promise<void>): Service {
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<unknown> | null = null;
  return {
    name,
    start: () => {
      timer = setInterval(() => {
        running ??= pass()
          .catch(() => undefined)
          .finally(() => (running = null));
      }, everyMs);
      timer.unref();
    },
    stop: async () => {
      if (timer !== null) clearInterval(timer);
      await running;
      await stopped?.();
    },
  };
}

export function webhookJobs(env: JobEnv, options: WebhookJobOptions = {}): readonly Service[] {
  const deliveries = new Counter({
    name: 'gateway_webhook_deliveries_total',
    help: 'Webhook delivery attempts, by outcome: delivered, retried (failed, due again), failed (given up on).',
    labelNames: ['outcome'],
    registers: [env.services().metrics.registry],
  });
  const deliverer = new Deliverer();
  const senderDeps = (): SenderDeps => {
    const services = env.services();
    return {
      settings: sectionOf(services.config, WEBHOOK_SETTINGS),
      outbox: services.store.part(WEBHOOK_STORE).outbox,
      logger: services.logger,
      counted: (outcome) => deliveries.inc({ outcome }),
    };
  };
  const sender = new WebhookSender({ owner: env.instance, deps: senderDeps, deliverer, ...(options.now === undefined ? {} : { now: options.now }) });
  const now = options.now ?? Date.now;
  const scanPass = async (): Promise<void> => {
    const services = env.services();
    const settings = sectionOf(services.config, WEBHOOK_SETTINGS);
    if (settings.hooks.length === 0) return;
    try {
      await scan({ settings, store: services.store.part(WEBHOOK_STORE), declaredKeys: services.config.keys, declaredAccounts: services.config.accounts, clock: services.clock }, now());
    } catch (err) {
      services.logger.warn({ err }, 'the webhook scan failed; retrying at the next');
    }
  };
  return [
    repeating('webhook sender', options.sendEveryMs ?? 1_000, () => sender.pass(), () => deliverer.close()),
    repeating('webhook scan', options.scanEveryMs ?? 60_000, scanPass),
  ];
}
