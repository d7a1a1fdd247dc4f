// GatewayEvents over the outbox: an event is kept once for each hook that wants its type, with its body made now (its
// id, its time), so every attempt, on any instance, sends the same bytes.

import { randomBytes } from 'node:crypto';
import type { GatewayEvent, GatewayEvents } from '../../core/feature/gateway-events.js';
import type { WebhookSettings, WebhookTarget } from './config.js';
import type { NewOutboxEvent, OutboxStore } from './outbox-store.js';

export function eventId(): string {
  return `evt_${randomBytes(12).toString('hex')}`;
}

/** Keeps `event` for each of `hooks` that wants its type. */
export async function keepFor(outbox: OutboxStore, hooks: readonly WebhookTarget[], event: GatewayEvent, at: number): Promise<void> {
  const rows: NewOutboxEvent[] = [];
  for (const hook of hooks) {
    if (!hook.events.has(event.type)) continue;
    const id = eventId();
    const body = JSON.stringify({ id, type: event.type, time: new Date(at).toISOString(), data: event.data });
    rows.push({ id, hook: hook.id, key: event.key, type: event.type, body });
  }
  await outbox.keep(rows, at);
}

/** The GatewayEvents the feature gives the rest of the gateway: every hook that wants the event's type gets it. */
export function outboxEmitter(settings: WebhookSettings, outbox: () => OutboxStore): GatewayEvents {
  return {
    emit: (event: GatewayEvent, at = Date.now()) => keepFor(outbox(), settings.hooks, event, at),
  };
}
