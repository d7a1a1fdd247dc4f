// GET /admin/instances: the deployment's live instances (with Redis, every one whose heartbeat is recent).

import { GatewayError } from '../../core/errors.js';
import type { RequestContext } from '../../core/pipeline/context.js';
import { jsonAnswer } from '../../core/pipeline/json-answer.js';
import type { GatewayServices, RelayResult } from '../../core/pipeline/plugin.js';

export async function listInstances(_ctx: RequestContext, services: GatewayServices): Promise<RelayResult> {
  let data;
  try {
    data = await services.instances.list();
  } catch (err) {
    throw new GatewayError('GW_ERR_SHARED_STATE_UNAVAILABLE', 'Redis, where the instances register, does not answer right now; retry shortly.', { cause: err, retryAfter: 1 });
  }
  return jsonAnswer(200, { object: 'list', data });
}
