// One action on the library that holds a group: recorded as the request's channel, an unreachable or failing
// library cooled down (new groups go elsewhere meanwhile), a refusal thrown as the caller's error.

import { GatewayError, type AssetAction, type GatewayServices, type LibraryChannel, type RequestContext } from '../../core/index.js';
import { resultOf, upstreamRefusal } from './answer.js';

export async function callLibrary(
  ctx: RequestContext,
  services: GatewayServices,
  channel: LibraryChannel,
  action: AssetAction,
  body: Readonly<Record<string, unknown>>,
): Promise<Record<string, unknown>> {
  ctx.channel = channel.name;
  let answer;
  try {
    answer = await channel.library.call(action, body, ctx.abort.signal);
  } catch (err) {
    if (err instanceof GatewayError && err.code !== 'GW_ERR_CLIENT_CLOSED') services.assets.failed(channel);
    throw err;
  }
  if (answer.status >= 500) services.assets.failed(channel);
  if (answer.status < 200 || answer.status > 299) throw upstreamRefusal(answer, channel);
  return resultOf(answer);
}

/** The channel a group's record names, which a reload may have taken away. */
export function channelOf(services: GatewayServices, name: string): LibraryChannel {
  const channel = services.assets.byName(name);
  if (channel === undefined) {
    throw new GatewayError('GW_ERR_ASSET_LIBRARY_UNAVAILABLE', 'The asset library that holds this group is not configured on this gateway any more.', { retryAfter: 30 });
  }
  return channel;
}
