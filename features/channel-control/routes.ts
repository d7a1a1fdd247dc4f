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
import { channelHealth } from './health.js';
import type { StoredOverride } from './override-store.js';
import { CHANNEL_CONTROL_STORE } from './store-part.js';
import { CHANNEL_CONTROL, FleetNotTold } from './sync.js';

/** Channels whose health the list reads at once. */
const HEALTH_AT_ONCE = 2;

function shownOverride(o: StoredOverride | undefined) {
  return o === undefined ? null : { disabled: o.disabled, weight: o.weight, updated_at: new Date(o.updatedAt).toISOString(), updated_by: o.updatedBy };
}

/** The channel as it stands; its health only when asked (the list), not on a change's answer (the page reloads the list). */
async function shownChannel(services: GatewayServices, channel: ResolvedChannel, override: StoredOverride | undefined, now: number | null) {
  const health = now === null ? null : await channelHealth(services.store.part(CHANNEL_CONTROL_STORE), channel.name, now);
  return {
    name: channel.name,
    type: channel.type,
    priority: channel.priority,
    yaml: { weight: channel.weight },
    override: shownOverride(override),
    effective: { enabled: override?.disabled !== true, weight: override?.weight ?? channel.weight },
    cooling_ms: services.router.health.coolingLeftMs(channel.name),
    health_state: rotationOf(services, channel),
    health,
  };
}

/** The channel's rotation as this instance knows it (gateway.yaml health): in, out until its probe, or probing. */
function rotationOf(services: GatewayServices, channel: ResolvedChannel) {
  const state = services.router.rotation.state(channel.name, channel.health);
  const until = state.state === 'out' ? new Date(Date.now() + state.dueInMs).toISOString() : null;
  return { state: state.state, until, failures: state.failures, window: state.window };
}

function configured(services: GatewayServices, name: string): ResolvedChannel {
  const channel = services.config.channels.find((c) => c.name === name);
  if (channel === undefined) throw new GatewayError(CHANNEL_CONTROL_ERRORS.GW_ERR_CHANNEL_NOT_FOUND, `No channel "${name}" in the config in force.`);
  return channel;
}

/** GET /console/api/channel-control: the configured channels, and the stored overrides of names no longer configured. */
export async function listChannelControl(_ctx: RequestContext, services: GatewayServices): Promise<RelayResult> {
  const stored = await services.store.part(CHANNEL_CONTROL_STORE).all();
  const overrides = new Map(stored.map((o) => [o.channel, o]));
  const now = Date.now();
  // Two channels at a time: each is two queries over its hour of records, on the pool the request path writes through.
  const data: Awaited<ReturnType<typeof shownChannel>>[] = [];
  const channels = services.config.channels;
  for (let at = 0; at < channels.length; at += HEALTH_AT_ONCE) {
    data.push(...(await Promise.all(channels.slice(at, at + HEALTH_AT_ONCE).map((c) => shownChannel(services, c, overrides.get(c.name), now)))));
  }
  // Kept and ignored while the name is not configured, in force again if it comes back: shown, so they can be cleared.
  const names = new Set(services.config.channels.map((c) => c.name));
  const orphans = stored.filter((o) => !names.has(o.channel)).map((o) => Object.assign({ name: o.channel }, shownOverride(o)));
  return consoleJson(200, { object: 'list', data, orphans });
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
  await changed(services, channel.name, channel.weight, override, action, who);
  return consoleJson(200, await shownChannel(services, channel, override, null));
}

/**
 * DELETE /console/api/channel-control/{name}: back to the YAML values. Also for a name no longer configured whose
 * override is still stored (it would apply again if the name came back); a name neither configured nor stored is a 404.
 */
export async function clearChannelOverride(ctx: RequestContext, services: GatewayServices): Promise<RelayResult> {
  const name = ctx.params?.['name'] ?? '';
  const channel = services.config.channels.find((c) => c.name === name);
  const who = sessionOf(ctx).user.name;
  const cleared = await services.store.part(CHANNEL_CONTROL_STORE).clear(name);
  if (channel === undefined && !cleared) throw new GatewayError(CHANNEL_CONTROL_ERRORS.GW_ERR_CHANNEL_NOT_FOUND, `No channel "${name}" in the config in force, and no override of it stored.`);
  // Nothing was stored: nothing changed, to count, log or tell.
  if (cleared) await changed(services, name, channel?.weight ?? null, undefined, 'clear', who);
  return consoleJson(200, { object: 'channel_override', name, cleared, configured: channel !== undefined });
}

/**
 * POST /console/api/channel-control/{name}/rotation/reset: the channel back in rotation now, not at its next served
 * probe (the operator knows the upstream is fixed). Its window starts empty. With Redis every instance has it back at
 * once (the rotation's own news); without, the instance that answers (each instance keeps its own rotation then).
 * Logged with who did it (core's rotation report: one line, the count, channel_up) only when it was out.
 */
export async function resetChannelRotation(ctx: RequestContext, services: GatewayServices): Promise<RelayResult> {
  const channel = configured(services, ctx.params?.['name'] ?? '');
  const who = sessionOf(ctx).user.name;
  const { change, fleet } = await services.router.rotation.reset(channel.name, who);
  return consoleJson(200, { object: 'channel_rotation_reset', name: channel.name, was_out: change !== null, fleet });
}

/** Counted, logged with who made it, applied here and told to the fleet. */
async function changed(services: GatewayServices, name: string, yamlWeight: number | null, override: StoredOverride | undefined, action: string, who: string): Promise<void> {
  const control = services.feature(CHANNEL_CONTROL);
  control.changes.inc({ action });
  services.logger.info(
    { channel: name, action, by: who, disabled: override?.disabled ?? false, weight: override?.weight ?? null, yaml_weight: yamlWeight },
    `channel override: ${who} ${action === 'clear' ? 'cleared the override of' : action === 'weight' ? 'set the weight of' : `${action}d`} ${name}`,
  );
  try {
    await control.changed(services);
  } catch (err) {
    // Stored: every instance's polling (this one's too, if applying it here is what failed) reads it within a second.
    const told = err instanceof FleetNotTold;
    services.logger.warn(
      { err: told ? err.cause : err, channel: name },
      told
        ? 'telling the fleet of a channel override failed; it is stored and in force here, and the other instances read it within a second by polling'
        : 'applying a channel override here failed; it is stored, and every instance reads it within a second by polling',
    );
  }
}
