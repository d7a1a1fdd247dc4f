// The operator's view of the running gateway: its instances, its config (redacted) and the reload button.

import { redactConfig } from '../../core/config/redact-config.js';
import { consoleJson } from '../../core/console/console-answer.js';
import { GatewayError } from '../../core/errors.js';
import type { RequestContext } from '../../core/pipeline/context.js';
import type { GatewayServices, RelayResult } from '../../core/pipeline/plugin.js';
import { liveInstances } from '../../core/shared/instances.js';
import { channelsAnswer } from './channels.js';

/** GET /console/api/channels */
export async function listChannels(_ctx: RequestContext, services: GatewayServices): Promise<RelayResult> {
  return consoleJson(200, await channelsAnswer(services));
}

/** GET /console/api/instances */
export async function listInstances(_ctx: RequestContext, services: GatewayServices): Promise<RelayResult> {
  return consoleJson(200, { object: 'list', data: await liveInstances(services.instances) });
}

/** GET /console/api/config: the file as last loaded, its secrets redacted. */
export function showConfig(_ctx: RequestContext, services: GatewayServices): Promise<RelayResult> {
  const source = services.control.source?.() ?? null;
  return Promise.resolve(consoleJson(200, { path: source?.file ?? null, yaml: source === null ? null : redactConfig(source.text) }));
}

/** POST /console/api/config/reload: this instance reads its file again. */
export async function reloadConfig(_ctx: RequestContext, services: GatewayServices): Promise<RelayResult> {
  const reload = services.control.reload;
  if (reload === null) throw new GatewayError('GW_ERR_ROUTE_NOT_FOUND', 'This gateway was not started from a config file: there is nothing to reload.');
  const reloaded = await reload();
  const message = reloaded
    ? 'Reloaded: this instance now runs the file as it is (the others reload on their own watch or SIGHUP).'
    : 'The file was rejected; the previous config stays in force. The log names the problems.';
  return consoleJson(200, { reloaded, message });
}
