// The group actions: CreateAssetGroup (owned by the calling key from then on), GetAssetGroup, UpdateAssetGroup and
// ListAssetGroups (paged over the caller's own groups in the store; the page's records read from their libraries).

import { randomUUID } from 'node:crypto';
import { GatewayError } from '../../core/errors.js';
import type { AuthedKey } from '../../core/keys/key-ring.js';
import type { RequestContext } from '../../core/pipeline/context.js';
import type { GatewayServices } from '../../core/pipeline/plugin.js';
import { callerRecord } from './answer.js';
import { callLibrary, channelOf } from './library-call.js';
import { ownerOf, ownGroup } from './ownership.js';
import { pageOf, textOf, type Body } from './request-fields.js';
import { ASSET_ERRORS } from './errors.js';
import { ASSET_STORE } from './store-part.js';
import { ASSETS } from './services.js';

/**
 * The most groups one key holds. Groups cost the operator's library quota and nothing else (CreateAssetGroup is free
 * unless priced), and every ListAssets names all of a key's groups of a library in its GroupIds.
 */
export const MAX_GROUPS_PER_KEY = 200;

/** Failures of a connection that was never made: the request was not sent. */
const NOT_SENT: ReadonlySet<string> = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT']);

/**
 * The library surely made no group: it refused the call (a 4xx, or a 2xx whose envelope carries an error), or was never
 * reached. Anything else (a 5xx, which a proxy in front may answer after the library made the group, a timeout, a
 * connection lost after the request went, an answer that cannot be read) may have made one, whose slot stays taken.
 */
function madeNothing(err: unknown): boolean {
  if (!(err instanceof GatewayError)) return false;
  if (err.upstreamStatus !== null) return err.upstreamStatus >= 200 && err.upstreamStatus < 500;
  const code = (err.cause as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' && NOT_SENT.has(code);
}

export async function createGroup(ctx: RequestContext, services: GatewayServices, key: AuthedKey, body: Body): Promise<Record<string, unknown>> {
  const libraries = services.feature(ASSETS);
  const channel = libraries.forNewGroup();
  if (channel === undefined) {
    const why = libraries.configured ? 'Every asset library is out of service right now; retry later.' : 'No asset library is configured on this gateway.';
    throw new GatewayError(ASSET_ERRORS.GW_ERR_ASSET_LIBRARY_UNAVAILABLE, why);
  }
  const name = textOf(body, 'Name') ?? '';
  const sent: Record<string, unknown> = { Name: name, GroupType: 'AIGC' };
  const description = textOf(body, 'Description');
  if (description !== undefined) sent['Description'] = description;
  // The cap is taken before the library is asked, atomically in the store (a check then a write raced: 30 creates in
  // parallel at 195 made 212). A group the library may have made stays counted when it cannot be recorded.
  const slot = `slot_${randomUUID()}`;
  if (!(await services.store.part(ASSET_STORE).takeGroupSlot(ownerOf(key), slot, channel.name, MAX_GROUPS_PER_KEY, Date.now()))) {
    throw new GatewayError(ASSET_ERRORS.GW_ERR_ASSET_GROUP_LIMIT, `This key holds ${MAX_GROUPS_PER_KEY} asset groups, the most one key may; add assets to those it has.`);
  }
  let id: unknown;
  try {
    id = (await callLibrary(ctx, services, channel, 'CreateAssetGroup', sent))['Id'];
  } catch (err) {
    // A store that cannot give the slot back keeps it counted (the safe side), and the caller hears the library's error.
    if (madeNothing(err)) await services.store.part(ASSET_STORE).releaseGroupSlot(slot).catch((cause: unknown) => services.logger.warn({ err: cause, slot }, 'an asset group slot could not be given back'));
    throw err;
  }
  if (typeof id !== 'string' || id === '') throw new GatewayError('GW_ERR_UPSTREAM_ERROR', 'The asset library did not say which group it made.');
  const at = Date.now();
  try {
    await services.store.part(ASSET_STORE).addGroup({ id, channel: channel.name, keyId: key.id, account: key.account ?? null, bound: true, name, createdAt: at, updatedAt: at }, slot);
  } catch (err) {
    // The slot stays taken: the group exists in the library, owned by no key, and still counts against this one's cap.
    services.logger.error({ err, group: id, channel: channel.name, slot }, 'an asset group the library made could not be recorded; its slot stays counted against the key');
    throw err;
  }
  return { Id: id };
}

export async function getGroup(ctx: RequestContext, services: GatewayServices, key: AuthedKey, body: Body): Promise<Record<string, unknown>> {
  const group = await ownGroup(services, key, textOf(body, 'Id') ?? '', 'Id');
  const channel = channelOf(services, group.channel);
  return callerRecord(await callLibrary(ctx, services, channel, 'GetAssetGroup', { Id: group.id }), channel);
}

export async function updateGroup(ctx: RequestContext, services: GatewayServices, key: AuthedKey, body: Body): Promise<Record<string, unknown>> {
  const group = await ownGroup(services, key, textOf(body, 'Id') ?? '', 'Id');
  const channel = channelOf(services, group.channel);
  const sent: Record<string, unknown> = { Id: group.id };
  for (const field of ['Name', 'Description']) if (body[field] !== undefined) sent[field] = body[field];
  const result = await callLibrary(ctx, services, channel, 'UpdateAssetGroup', sent);
  // The store's name (what ListAssetGroups filters by) and update time follow the library's.
  await services.store.part(ASSET_STORE).renameGroup(group.id, textOf(body, 'Name') ?? group.name, Date.now());
  return callerRecord(result, channel);
}

export async function listGroups(ctx: RequestContext, services: GatewayServices, key: AuthedKey, body: Body): Promise<Record<string, unknown>> {
  const page = pageOf(body);
  const filter = (body['Filter'] ?? {}) as Body;
  const ids = Array.isArray(filter['GroupIds']) ? (filter['GroupIds'] as string[]) : undefined;
  const name = textOf(filter, 'Name');
  const found = await services.store.part(ASSET_STORE).keyGroups(
    ownerOf(key),
    Object.assign(
      { sortBy: body['SortBy'] === 'UpdateTime' ? ('UpdateTime' as const) : ('CreateTime' as const), ascending: body['SortOrder'] === 'Asc', offset: page.offset, limit: page.size },
      ids === undefined ? {} : { ids },
      name === undefined ? {} : { name },
    ),
  );
  // The page's records, from each library that holds some of them (never an empty GroupIds: that lists everything).
  const records = new Map<string, Record<string, unknown>>();
  const byChannel = new Map<string, string[]>();
  for (const row of found.rows) byChannel.set(row.channel, [...(byChannel.get(row.channel) ?? []), row.id]);
  for (const [channelName, groupIds] of byChannel) {
    // A library no longer configured: its groups cannot be read (they stay counted), the others still can.
    const channel = services.feature(ASSETS).byName(channelName);
    if (channel === undefined) continue;
    const result = await callLibrary(ctx, services, channel, 'ListAssetGroups', {
      Filter: { GroupType: 'AIGC', GroupIds: groupIds },
      PageNumber: 1,
      PageSize: groupIds.length,
    });
    const items = Array.isArray(result['Items']) ? (result['Items'] as unknown[]) : [];
    for (const item of items) {
      const record = callerRecord(item, channel);
      if (typeof record['Id'] === 'string' && groupIds.includes(record['Id'])) records.set(record['Id'], record);
    }
  }
  // In the store's order; a group the library no longer has (deleted there) is left out.
  const items = found.rows.flatMap((row) => records.get(row.id) ?? []);
  return { Items: items, TotalCount: found.total, PageNumber: page.number, PageSize: page.size };
}
