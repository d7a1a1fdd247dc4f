// One action on the library that holds a group: recorded as the request's channel, an unreachable or failing
// library cooled down (new groups go elsewhere meanwhile), a refusal thrown as the caller's error.

import type { LibraryChannel } from './libraries.js';
import type { AssetAction, LibraryAnswer } from './library.js';
import { GatewayError } from '../../core/errors.js';
import type { RequestContext } from '../../core/pipeline/context.js';
import type { GatewayServices } from '../../core/pipeline/plugin.js';
import { errorIn, resultOf, upstreamRefusal } from './answer.js';
import { ASSET_ERRORS } from './errors.js';
import { ASSETS } from './services.js';

/**
 * The actions that change the library. They are not cut when the caller leaves: a create the library may already have
 * done must come back and be recorded (and charged), or the asset would exist, unowned and unpaid.
 */
const CHANGES: ReadonlySet<AssetAction> = new Set<AssetAction>(['CreateAssetGroup', 'CreateAsset', 'UpdateAssetGroup', 'UpdateAsset']);

export async function callLibrary(
  ctx: RequestContext,
  services: GatewayServices,
  channel: LibraryChannel,
  action: AssetAction,
  body: Readonly<Record<string, unknown>>,
): Promise<Record<string, unknown>> {
  ctx.channel = channel.name;
  let answer: LibraryAnswer;
  try {
    answer = await channel.library.call(action, body, CHANGES.has(action) ? undefined : ctx.abort.signal);
  } catch (err) {
    if (err instanceof GatewayError && err.code !== 'GW_ERR_CLIENT_CLOSED') services.feature(ASSETS).failed(channel);
    throw err;
  }
  if (answer.status >= 500) services.feature(ASSETS).failed(channel);
  if (answer.status < 200 || answer.status > 299 || errorIn(answer) !== null) throw upstreamRefusal(answer, channel);
  return resultOf(answer);
}

/** The channel a group's record names, which a reload may have taken away. */
export function channelOf(services: GatewayServices, name: string): LibraryChannel {
  const channel = services.feature(ASSETS).byName(name);
  if (channel === undefined) {
    throw new GatewayError(ASSET_ERRORS.GW_ERR_ASSET_LIBRARY_UNAVAILABLE, 'The asset library that holds this group is not configured on this gateway any more.', { retryAfter: 30 });
  }
  return channel;
}
