// What happened that an operator wants to be told of without opening the console (a balance run low, a task that
// failed, a channel taken out): any part of the gateway says so here, and the feature that tells the world (the
// webhooks') keeps and delivers it. Core holds the contract, so that the producers (core, features) never import the
// deliverer, and a gateway without it loses nothing but the telling.

import { slot, type Slot } from '../slot.js';

export interface GatewayEvent {
  /** Its kind, one of those a hook subscribes to (gateway.yaml `webhooks[].events`; features/webhooks/event-types.ts). */
  readonly type: string;
  /**
   * What makes this occurrence one: two instances (or two scans) that see the same thing happen give the same key
   * (the task's id, "balance_low:acme:<its last credit>"), and it is kept, and sent, once per fleet.
   */
  readonly key: string;
  /** The event's facts, as JSON; never a secret (a key's name, not the key). */
  readonly data: Readonly<Record<string, unknown>>;
}

export interface GatewayEvents {
  /**
   * Keeps `event` for delivery (durably, before it resolves); one whose key was kept before is dropped. Rejects when
   * the store cannot be reached: a producer that must not lose it retries, one that reports as it goes logs it.
   */
  emit(event: GatewayEvent, at?: number): Promise<void>;
}

/** Where the feature that delivers events puts its GatewayEvents (`services.findFeature(GATEWAY_EVENTS)`). */
export const GATEWAY_EVENTS: Slot<GatewayEvents> = slot('gateway events');
