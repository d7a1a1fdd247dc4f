// GET /v1/models: the models the caller's group may use, in the OpenAI list shape.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { toGatewayError } from '../errors.js';
import type { Runtime } from '../runtime.js';
import { sendError, sendJson } from './send.js';

/** Models have no creation date of their own here; a fixed one keeps the answer stable across restarts. */
const CREATED = 1_700_000_000;

export async function serveModels(runtime: Runtime, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const gateway = runtime.current;
  try {
    const key = await gateway.services.keys.identify(req.headers);
    const { access } = gateway.services;
    const data = gateway.services.router
      .listModels()
      .filter((model) => access.allows(key.group, model))
      .map((id) => ({ id, object: 'model', created: CREATED, owned_by: 'llm-gateway' }));
    sendJson(res, 200, { object: 'list', data });
  } catch (err) {
    sendError(res, toGatewayError(err));
  }
}
