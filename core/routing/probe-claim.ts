// The one request that probes a channel out of rotation, as every sender (the relay, a feature's own upstream calls)
// takes it: claimed only once its request is ready to go, for as long as that request may take, and given back when
// it ends without an outcome (nothing sent, the caller gone, an error not the channel's).

import type { ChannelRotation } from './rotation.js';
import { probeLeaseMs } from './rotation.js';
import type { Attempt } from './router.js';

/** Whether `attempt` may be sent: it is no probe, or its probe is now this request's (another request took it else). */
export function claimAttempt(rotation: ChannelRotation, attempt: Attempt): boolean | Promise<boolean> {
  if (attempt.probe !== true) return true;
  return rotation.claimProbe(attempt.channel.name, probeLeaseMs(attempt.channel.timeoutMs));
}

/** A claimed probe whose request tells no outcome: due again at once (a no-op for an attempt that is no probe). */
export function releaseAttempt(rotation: ChannelRotation, attempt: Attempt): void {
  if (attempt.probe === true) rotation.releaseProbe(attempt.channel.name);
}
