// The asset actions: CreateAsset (into the caller's own bound group, its URL checked first), GetAsset, UpdateAsset
// and ListAssets (the library's list with GroupIds forced to the caller's own groups).

import { checkAssetUrl, GatewayError, type AssetStatus, type AuthedKey, type GatewayServices, type LibraryChannel, type RequestContext } from '../../core/index.js';
import { callerRecord } from './answer.js';
import { callLibrary, channelOf } from './library-call.js';
import { ownAsset, ownGroup } from './ownership.js';
import { pageOf, textOf, type Body } from './request-fields.js';

const STATUSES: ReadonlySet<string> = new Set<AssetStatus>(['Processing', 'Active', 'Failed']);

/** Keeps the store's copy of an asset's status (video tasks read it) as the library last said. */
async function noteStatus(services: GatewayServices, record: Readonly<Record<string, unknown>>, known?: AssetStatus): Promise<void> {
  const id = record['Id'];
  const status = record['Status'];
  if (typeof id !== 'string' || typeof status !== 'string' || !STATUSES.has(status) || status === known) return;
  await services.store.assets.setAssetStatus(id, status as AssetStatus, Date.now());
}

export async function createAsset(ctx: RequestContext, services: GatewayServices, key: AuthedKey, body: Body): Promise<Record<string, unknown>> {
  // A foreign or unbound group is refused as a missing one, before the URL is even looked at.
  const group = await ownGroup(services, key, textOf(body, 'GroupId') ?? '');
  const url = await checkAssetUrl(body['URL'], services.resolveHost);
  const assetType = textOf(body, 'AssetType') ?? '';
  const sent: Record<string, unknown> = { GroupId: group.id, URL: url, AssetType: assetType };
  const name = textOf(body, 'Name');
  if (name !== undefined) sent['Name'] = name;
  const result = await callLibrary(ctx, services, channelOf(services, group.channel), 'CreateAsset', sent);
  const id = result['Id'];
  if (typeof id !== 'string' || id === '') throw new GatewayError('GW_ERR_UPSTREAM_ERROR', 'The asset library did not say which asset it made.');
  const at = Date.now();
  await services.store.assets.addAsset({ id, groupId: group.id, channel: group.channel, assetType, status: 'Processing', createdAt: at, updatedAt: at });
  return { Id: id };
}

export async function getAsset(ctx: RequestContext, services: GatewayServices, key: AuthedKey, body: Body): Promise<Record<string, unknown>> {
  const { asset, group } = await ownAsset(services, key, textOf(body, 'Id') ?? '');
  const record = callerRecord(await callLibrary(ctx, services, channelOf(services, group.channel), 'GetAsset', { Id: asset.id }));
  await noteStatus(services, record, asset.status);
  return record;
}

export async function updateAsset(ctx: RequestContext, services: GatewayServices, key: AuthedKey, body: Body): Promise<Record<string, unknown>> {
  const { asset, group } = await ownAsset(services, key, textOf(body, 'Id') ?? '');
  return callerRecord(await callLibrary(ctx, services, channelOf(services, group.channel), 'UpdateAsset', { Id: asset.id, Name: textOf(body, 'Name') ?? '' }));
}

/** The caller's groups by the library holding them, in the libraries' order (priority, then name). */
interface Library {
  readonly channel: LibraryChannel;
  readonly groupIds: readonly string[];
}

interface Listed {
  readonly items: readonly Record<string, unknown>[];
  readonly total: number;
}

function librariesOf(services: GatewayServices, groups: readonly { readonly id: string; readonly channel: string }[]): Library[] {
  const byName = new Map<string, string[]>();
  for (const group of groups) byName.set(group.channel, [...(byName.get(group.channel) ?? []), group.id]);
  return [...byName]
    .map(([name, groupIds]) => ({ channel: channelOf(services, name), groupIds }))
    .sort((a, b) => b.channel.priority - a.channel.priority || (a.channel.name < b.channel.name ? -1 : 1));
}

/** One page of one library's list, its GroupIds forced to the caller's groups there. */
async function listIn(ctx: RequestContext, services: GatewayServices, library: Library, body: Body, filter: Body, page: { readonly number: number; readonly size: number }): Promise<Listed> {
  const sent: Record<string, unknown> = { Filter: Object.assign({}, filter, { GroupType: 'AIGC', GroupIds: library.groupIds }), PageNumber: page.number, PageSize: page.size };
  for (const field of ['SortBy', 'SortOrder']) if (body[field] !== undefined) sent[field] = body[field];
  const result = await callLibrary(ctx, services, library.channel, 'ListAssets', sent);
  const items = (Array.isArray(result['Items']) ? (result['Items'] as unknown[]) : []).map(callerRecord);
  return { items, total: typeof result['TotalCount'] === 'number' ? result['TotalCount'] : items.length };
}

export async function listAssets(ctx: RequestContext, services: GatewayServices, key: AuthedKey, body: Body): Promise<Record<string, unknown>> {
  const page = pageOf(body);
  const filter = (body['Filter'] ?? {}) as Body;
  const own = await services.store.assets.boundGroupIds(key.id);
  const asked = Array.isArray(filter['GroupIds']) ? new Set(filter['GroupIds'] as string[]) : null;
  const groups = asked === null ? own : own.filter((g) => asked.has(g.id));
  // Nothing of the caller's to list: answered here (an empty GroupIds would make the library list everything).
  if (groups.length === 0) return { Items: [], TotalCount: 0, PageNumber: page.number, PageSize: page.size };
  const ids = new Set(groups.map((g) => g.id));
  const libraries = librariesOf(services, groups);
  const ask = (library: Library, number: number, size: number): Promise<Listed> =>
    listIn(ctx, services, library, body, filter, { number, size }).then((listed) => ({ items: listed.items.filter((r) => ids.has(String(r['GroupId']))), total: listed.total }));
  if (libraries.length === 1) {
    const listed = await ask(libraries[0] as Library, page.number, page.size);
    for (const item of listed.items) await noteStatus(services, item);
    return { Items: listed.items, TotalCount: listed.total, PageNumber: page.number, PageSize: page.size };
  }
  // Groups in several libraries (a new group goes to the first healthy one): their lists one after the other, in
  // the libraries' order; each library's count first, then the page's range from the libraries it falls in.
  const totals = await Promise.all(libraries.map(async (library) => (await ask(library, 1, 1)).total));
  const items: Record<string, unknown>[] = [];
  let before = 0;
  for (const [i, library] of libraries.entries()) {
    const total = totals[i] ?? 0;
    const from = Math.max(page.offset - before, 0);
    const to = Math.min(page.offset + page.size - before, total);
    before += total;
    if (from >= to) continue;
    // The library's pages of this size that hold [from, to): one, or two when the range straddles them.
    const first = Math.floor(from / page.size) + 1;
    const last = Math.floor((to - 1) / page.size) + 1;
    const read: Record<string, unknown>[] = [];
    for (let number = first; number <= last; number++) read.push(...(await ask(library, number, page.size)).items);
    const skip = (first - 1) * page.size;
    items.push(...read.slice(from - skip, to - skip));
  }
  for (const item of items) await noteStatus(services, item);
  return { Items: items, TotalCount: before, PageNumber: page.number, PageSize: page.size };
}
