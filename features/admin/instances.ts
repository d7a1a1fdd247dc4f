// GET /admin/instances: the deployment's live instances (with Redis, every one whose heartbeat is recent).

import { jsonAnswer } from '../../core/pipeline/json-answer.js';
import type { RequestContext } from '../../core/pipeline/context.js';
import type { GatewayServices, RelayResult } from '../../core/pipeline/plugin.js';
import { liveInstances } from '../../core/shared/instances.js';

export async function listInstances(_ctx: RequestContext, services: GatewayServices): Promise<RelayResult> {
  return jsonAnswer(200, { object: 'list', data: await liveInstances(services.instances) });
}
