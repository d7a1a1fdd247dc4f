// Sticky conversations: a conversation key -> the channel and upstream key that served it, with a TTL.
// Keeping a conversation on one upstream is what makes prompt caches hit and thinking signatures stay valid.

import { createHash } from 'node:crypto';

/** Longer conversation ids are kept as their digest: the table holds up to max_entries of them. */
const MAX_CONVERSATION_CHARS = 256;

/** Where a conversation was last served. */
export interface AffinityBinding {
  readonly channel: string;
  /** Index into the channel's `keys`; a shorter key list after a reload falls back to rotation. */
  readonly keyIndex: number;
}

/** The shared table of bindings: in process by default; a Redis-backed one serves several instances. */
export interface AffinityStore {
  get(key: string): Promise<AffinityBinding | null>;
  /** Creates or replaces a binding and renews its TTL. */
  set(key: string, binding: AffinityBinding, ttlMs: number): Promise<void>;
  close(): Promise<void>;
}

/** How a request related to its conversation's binding: counted once per request that reached an upstream. */
export type AffinityOutcome = 'hit' | 'miss' | 'break';

/**
 * The binding's table key, per client format (so /v1/responses and its /compact share one). The caller's
 * key id and the model are part of it: one tenant cannot steer
 * another's conversations by reusing its id, and a prompt cache belongs to one model anyway (Claude Code
 * uses a small model for side tasks of the same session).
 */
export function affinityKey(format: string, callerKeyId: string, model: string, conversation: string): string {
  // The id is the client's string, as long as a body may be: bounded, or max_entries bindings could hold gigabytes.
  const id = conversation.length <= MAX_CONVERSATION_CHARS ? conversation : `#${createHash('sha256').update(conversation).digest('base64url')}`;
  return `${format}\u0000${callerKeyId}\u0000${model}\u0000${id}`;
}
