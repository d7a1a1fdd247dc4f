// The events a hook subscribes to (gateway.yaml `webhooks[].events`): each produced where it happens (the scan here,
// a feature's code through core's GATEWAY_EVENTS), told by this feature. docs/operations.md describes each one's data.

export const EVENT_TYPES = ['balance_low', 'budget_reached', 'channel_down', 'channel_up', 'video_failed', 'key_expiring'] as const;
export type EventType = (typeof EVENT_TYPES)[number];
