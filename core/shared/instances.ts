// The gateway instances of a deployment, as GET /admin/instances shows them: with Redis, every instance whose
// heartbeat is recent (shared/redis-state.ts); without, this one alone.

import { GatewayError } from '../errors.js';

export interface InstanceInfo {
  readonly id: string;
  /** The instance that answers. */
  readonly self: boolean;
}

export interface Instances {
  /** This process's id. */
  readonly id: string;
  list(): Promise<InstanceInfo[]>;
}

/** Without shared state: this instance is the only one anyone can see. */
export class LocalInstances implements Instances {
  constructor(readonly id: string) {}

  list(): Promise<InstanceInfo[]> {
    return Promise.resolve([{ id: this.id, self: true }]);
  }
}

/** The live instances, for an answer: Redis out is a 503 the caller may retry, not a 500. */
export async function liveInstances(instances: Instances): Promise<readonly InstanceInfo[]> {
  try {
    return await instances.list();
  } catch (err) {
    throw new GatewayError('GW_ERR_SHARED_STATE_UNAVAILABLE', 'Redis, where the instances register, does not answer right now; retry shortly.', { cause: err, retryAfter: 1 });
  }
}
