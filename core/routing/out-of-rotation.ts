// The answer when every channel of a model is out of rotation and none is due for its probe: refused at once,
// nothing sent (as LiteLLM's "no deployments available"), with the seconds until the first probe as retry-after.
// One answer for every route that plans channels (the model routes, a feature's task submission).

import type { ApiFormat } from '../config/resolved.js';
import { GatewayError } from '../errors.js';
import type { Router } from './router.js';

/**
 * The 503 (upstream_overloaded, retry-after) when every channel serving `model` in `format` (`only` that one, when the
 * request is bound to it) is out; null otherwise.
 */
export function outOfRotation(router: Router, model: string, format?: ApiFormat | 'any', only?: string): GatewayError | null {
  const ms = router.outOfRotationMs(model, format, only);
  if (ms === null) return null;
  return new GatewayError('GW_ERR_UPSTREAM_OVERLOADED', `Every channel of model "${model.slice(0, 256)}" is out of rotation after repeated failures; retry later.`, {
    retryAfter: Math.max(1, Math.ceil(ms / 1000)),
  });
}
