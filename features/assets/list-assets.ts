// ListAssets: the library's own list (its filters, statuses and paging), with GroupIds forced to the caller's groups
// there; groups in several libraries are listed one library after the other.

import type { LibraryChannel } from './libraries.js';
import { GatewayError } from '../../core/errors.js';
import type { AuthedKey } from '../../core/keys/key-ring.js';
import type { RequestContext } from '../../core/pipeline/context.js';
import type { GatewayServices } from '../../core/pipeline/plugin.js';
import type { AssetStatus } from './asset-store.js';
import { callerRecord } from './answer.js';
import { STATUSES } from './assets.js';
import { callLibrary } from './library-call.js';
import { ownerOf } from './ownership.js';
import { pageOf, type Body } from './request-fields.js';
import { ASSET_STORE } from './store-part.js';
import { ASSETS } from './services.js';

/** The caller's groups in one library. */
interface Library {
  readonly channel: LibraryChannel;
  readonly groupIds: readonly string[];
}

interface Listed {
  readonly items: readonly Record<string, unknown>[];
  readonly total: number;
}

/**
 * The caller's groups by the library holding them, in the libraries' order (priority, then name). A library no longer
 * configured is left out: its groups cannot be read, and the others still can.
 */
function librariesOf(services: GatewayServices, groups: readonly { readonly id: string; readonly channel: string }[]): Library[] {
  const byName = new Map<string, string[]>();
  for (const group of groups) byName.set(group.channel, [...(byName.get(group.channel) ?? []), group.id]);
  return [...byName]
    .flatMap(([name, groupIds]) => {
      const channel = services.feature(ASSETS).byName(name);
      return channel === undefined ? [] : [{ channel, groupIds }];
    })
    .sort((a, b) => b.channel.priority - a.channel.priority || (a.channel.name < b.channel.name ? -1 : 1));
}

/** One page of one library's list, its GroupIds forced to the caller's groups there. */
async function listIn(ctx: RequestContext, services: GatewayServices, library: Library, body: Body, page: { readonly number: number; readonly size: number }): Promise<Listed> {
  const filter = (body['Filter'] ?? {}) as Body;
  const sent: Record<string, unknown> = { Filter: Object.assign({}, filter, { GroupType: 'AIGC', GroupIds: library.groupIds }), PageNumber: page.number, PageSize: page.size };
  for (const field of ['SortBy', 'SortOrder']) if (body[field] !== undefined) sent[field] = body[field];
  const result = await callLibrary(ctx, services, library.channel, 'ListAssets', sent);
  const items = (Array.isArray(result['Items']) ? (result['Items'] as unknown[]) : []).map((item) => callerRecord(item, library.channel));
  // An item of another group means the library did not apply the filter: its count and pages would then be of the
  // whole project. Nothing of it is answered.
  const ids = new Set(library.groupIds);
  if (items.some((item) => !ids.has(String(item['GroupId'])))) {
    throw new GatewayError('GW_ERR_UPSTREAM_ERROR', 'The asset library answered a list that was not narrowed to the groups asked for.');
  }
  return { items, total: typeof result['TotalCount'] === 'number' ? result['TotalCount'] : items.length };
}

export async function listAssets(ctx: RequestContext, services: GatewayServices, key: AuthedKey, body: Body): Promise<Record<string, unknown>> {
  const page = pageOf(body);
  const filter = (body['Filter'] ?? {}) as Body;
  const own = await services.store.part(ASSET_STORE).boundGroupIds(ownerOf(key));
  const asked = Array.isArray(filter['GroupIds']) ? new Set(filter['GroupIds'] as string[]) : null;
  const libraries = librariesOf(services, asked === null ? own : own.filter((g) => asked.has(g.id)));
  // Nothing of the caller's to list: answered here (an empty GroupIds would make the library list everything).
  if (libraries.length === 0) return { Items: [], TotalCount: 0, PageNumber: page.number, PageSize: page.size };
  if (libraries.length === 1) {
    const listed = await listIn(ctx, services, libraries[0] as Library, body, page);
    await noteAssets(services, listed.items, (libraries[0] as Library).channel);
    return { Items: listed.items, TotalCount: listed.total, PageNumber: page.number, PageSize: page.size };
  }
  // Groups in several libraries (a new group goes to the first healthy one): their lists one after the other, in
  // the libraries' order; each library's count first, then the page's range from the libraries it falls in.
  const totals = await Promise.all(libraries.map(async (library) => (await listIn(ctx, services, library, body, { number: 1, size: 1 })).total));
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
    for (let number = first; number <= last; number++) read.push(...(await listIn(ctx, services, library, body, { number, size: page.size })).items);
    const skip = (first - 1) * page.size;
    const taken = read.slice(from - skip, to - skip);
    await noteAssets(services, taken, library.channel);
    items.push(...taken);
  }
  return { Items: items, TotalCount: before, PageNumber: page.number, PageSize: page.size };
}

/**
 * What a list says of the assets it shows, kept in the store: a changed status (video tasks read it), and an asset
 * the store does not know, in one of the caller's groups. That is one the library made while its answer never came
 * back (a timeout): it is the group owner's, and recorded so that Get and Update find it as the list does.
 */
async function noteAssets(services: GatewayServices, items: readonly Record<string, unknown>[], channel: LibraryChannel): Promise<void> {
  try {
    await keepAssets(services, items, channel);
  } catch (err) {
    // The answer is the library's; the store's copy catches up on the next read.
    services.logger.warn({ err }, 'listed assets not saved');
  }
}

async function keepAssets(services: GatewayServices, items: readonly Record<string, unknown>[], channel: LibraryChannel): Promise<void> {
  const known = new Map((await services.store.part(ASSET_STORE).assetsByIds(items.map((item) => String(item['Id'])))).map((row) => [row.id, row]));
  const at = Date.now();
  for (const item of items) {
    const id = item['Id'];
    const status = typeof item['Status'] === 'string' && STATUSES.has(item['Status']) ? (item['Status'] as AssetStatus) : 'Processing';
    if (typeof id !== 'string' || id === '') continue;
    const row = known.get(id);
    if (row === undefined) {
      const assetType = typeof item['AssetType'] === 'string' ? item['AssetType'] : '';
      await services.store.part(ASSET_STORE).addAsset({ id, groupId: String(item['GroupId']), channel: channel.name, assetType, status, createdAt: at, updatedAt: at });
    } else if (row.status !== status) {
      await services.store.part(ASSET_STORE).setAssetStatus(id, status, at);
    }
  }
}
