// A key's status and its Disable/Enable edit. The contract lists `status` and `disabled`; a server that answers
// with the admin API's key shape instead (`enabled`, no `status`) is read the same, and edited with its own field.

import type { Key, KeyStatus } from '../api-types.js';

export function isDisabled(key: Key): boolean {
  return key.disabled ?? key.enabled === false;
}

export function keyStatus(key: Key, now = Date.now()): KeyStatus {
  if (key.status !== undefined) return key.status;
  if (key.revoked_at !== null) return 'revoked';
  if (isDisabled(key)) return 'disabled';
  if (key.expires_at !== null && Date.parse(key.expires_at) <= now) return 'expired';
  return 'active';
}

/** The PATCH body that disables (or enables) the key, in the field its own shape uses. */
export function disablePatch(key: Key, disable: boolean): { disabled: boolean } | { enabled: boolean } {
  return key.disabled === undefined && key.enabled !== undefined ? { enabled: !disable } : { disabled: disable };
}
