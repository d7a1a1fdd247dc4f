// The console's channel control (operator only; consoleRoute checks the session, the CSRF token and the operator):
// the channels with their YAML values beside the operator's overrides, their health and cool-downs; an override set
// or cleared. Every change is stored, logged with who made it, counted, applied here at once and told to the fleet.

import { consoleJson } from '../../core/console/console-answer.js';
import { sessionOf } from '../../core/console/session-slot.js';
import type { ResolvedChannel } from '../../core/config/resolved.js';
import { GatewayError } from '../../core/errors.js';
import type { RequestContext } from '../../core/pipeline/context.js';
import type { GatewayServices, RelayResult } from '../../core/pipeline/plugin.js';
import { CHANNEL_CONTROL_ERRORS } from './errors.js';
import { WINDOWS_MS, windowHealth } from './health.js';
import type { StoredOverride } from './override-store.js';
import { CHANNEL_CONTROL_STORE } from './store-part.js';
import { CHANNEL_CONTROL } from './sync.js';

function shownOverride(o: StoredOverride | undefined) {
  return o === undefined ? null : { disabled: o.disabled, weight: o.weight, updated_at: new Date(o.updatedAt).toISOString(), updated_by: o.updatedBy };
}

async function shownChannel(services: GatewayServices, channel: ResolvedChannel, override: StoredOverride | undefined, now: number) {
  const rows = await services.store.part(CHANNEL_CONTROL_STORE).healthRows(channel.name, now - WINDOWS_MS.m60);
  return {
    name: channel.name,
    type: channel.type,
    priority: channel.priority,
    yaml: { weight: channel.weight },
    override: shownOverride(override),
    effective: { enabled: override?.disabled !== true, weight: override?.weight ?? channel.weight },
    cooling_ms: services.router.health.coolingLeftMs(channel.name),
    health: { m5: windowHealth(rows, now - WINDOWS_MS.m5), m60: windowHealth(rows, now - WINDOWS_MS.m60) },
  };
}

function configured(services: GatewayServices, name: string): ResolvedChannel {
  const channel = services.config.channels.find((c) => c.name === name);
  if (channel === undefined) throw new GatewayError(CHANNEL_CONTROL_ERRORS.GW_ERR_CHANNEL_NOT_FOUND, `No channel "${name}" in the config in force.`);
  return channel;
}

/** GET /console/api/channel-control */
export async function listChannelControl(_ctx: RequestContext, services: GatewayServices): Promise<RelayResult> {
  const overrides = new Map((await services.store.part(CHANNEL_CONTROL_STORE).all()).map((o) => [o.channel, o]));
  const now = Date.now();
  const data = await Promise.all(services.config.channels.map((c) => shownChannel(services, c, overrides.get(c.name), now)));
  return consoleJson(200, { object: 'list', data });
}

/** PATCH /console/api/channel-control/{name}: {disabled, weight} (weight null: the YAML one). */
export async function putChannelOverride(ctx: RequestContext, services: GatewayServices): Promise<RelayResult> {
  const channel = configured(services, ctx.params?.['name'] ?? '');
  const body = ctx.request.head;
  // The request schema made both present and typed; read defensively all the same.
  const disabled = body['disabled'] === true;
  const weight = typeof body['weight'] === 'number' ? body['weight'] : null;
  const part = services.store.part(CHANNEL_CONTROL_STORE);
  const before = (await part.all()).find((o) => o.channel === channel.name);
  const who = sessionOf(ctx).user.name;
  const override: StoredOverride = { channel: channel.name, disabled, weight, updatedAt: Date.now(), updatedBy: who };
  await part.put(override);
  const action = disabled ? 'disable' : before?.disabled === true ? 'enable' : 'weight';
  return changed(services, channel, override, action, who);
}

/** DELETE /console/api/channel-control/{name}: back to the YAML values. */
export async function clearChannelOverride(ctx: RequestContext, services: GatewayServices): Promise<RelayResult> {
  const channel = configured(services, ctx.params?.['name'] ?? '');
  const who = sessionOf(ctx).user.name;
  await services.store.part(CHANNEL_CONTROL_STORE).clear(channel.name);
  return changed(services, channel, undefined, 'clear', who);
}

async function changed(services: GatewayServices, channel: ResolvedChannel, override: StoredOverride | undefined, action: string, who: string): Promise<RelayResult> {
  const control = services.feature(CHANNEL_CONTROL);
  control.changes.inc({ action });
  services.logger.info(
    { channel: channel.name, action, by: who, disabled: override?.disabled ?? false, weight: override?.weight ?? null, yaml_weight: channel.weight },
    `channel override: ${who} ${action === 'clear' ? 'cleared the override of' : action === 'weight' ? 'set the weight of' : `${action}d`} ${channel.name}`,
  );
  try {
    await control.changed(services);
  } catch (err) {
    // Stored: every instance's reading of the table (polling, or its next Redis reconnection) still finds it.
    services.logger.warn({ err, channel: channel.name }, 'telling the fleet of a channel override failed; it is stored, and instances read it again when Redis answers');
  }
  return consoleJson(200, await shownChannel(services, channel, override, Date.now()));
}
