// The gateway instances of a deployment, as GET /admin/instances shows them: with Redis, every instance whose
// heartbeat is recent (shared/redis-state.ts); without, this one alone.

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
