// The mock channel's asset library (`assets: true`): Volcengine's eight actions answered offline, their records kept in
// the store (so that a demo's groups and assets outlive a restart). A new asset is Processing, then Active
// PROCESSING_MS after it was made, as Volcengine's turn once their file is fetched and checked.

import { randomBytes } from 'node:crypto';
import { ASSET_API_VERSION, type AssetAction, type AssetLibrary, type LibraryAnswer } from './library.js';
import type { AssetStore, MockAssetRecord } from './asset-store.js';

const PROCESSING_MS = 2000;
/** The most records one list reads before filtering and paging: a demo library, not a production one. */
const MAX_LISTED = 10_000;
const PROJECT = 'default';

type Body = Readonly<Record<string, unknown>>;

/** `group-20261126230000-a1b2c`: Volcengine's id shape, a timestamp and a random tail. */
function newId(prefix: string, at: number): string {
  const stamp = new Date(at).toISOString().replace(/[-:T]/g, '').slice(0, 14);
  // 40 random bits: ids made in the same second by the whole demo must not meet.
  return `${prefix}-${stamp}-${randomBytes(5).toString('hex')}`;
}

const rfc3339 = (at: number): string => new Date(at).toISOString().replace(/\.\d{3}Z$/, 'Z');

function text(body: Body, name: string): string | undefined {
  const value = body[name];
  return typeof value === 'string' ? value : undefined;
}

export function createMockAssetLibrary(store: AssetStore['mock'], channel: string, now: () => number = Date.now): AssetLibrary {
  const ok = (action: AssetAction, result: Record<string, unknown>): LibraryAnswer => ({ status: 200, body: { ResponseMetadata: metadata(action), Result: result } });
  const fail = (action: AssetAction, status: number, code: string, message: string): LibraryAnswer => ({
    status,
    body: { ResponseMetadata: Object.assign(metadata(action), { Error: { Code: code, Message: message } }) },
  });
  const metadata = (action: AssetAction): Record<string, unknown> => ({
    RequestId: newId('mock', now()).slice(5),
    Action: action,
    Version: ASSET_API_VERSION,
    Service: 'ark',
    Region: 'mock',
  });

  /** An asset's record as read now: Processing until its time is up. */
  const current = (record: MockAssetRecord): Record<string, unknown> =>
    record.kind === 'asset' && record.record['Status'] === 'Processing' && now() - record.createdAt >= PROCESSING_MS
      ? Object.assign({}, record.record, { Status: 'Active' })
      : Object.assign({}, record.record);

  async function list(action: AssetAction, kind: 'group' | 'asset', body: Body): Promise<LibraryAnswer> {
    const filter = (body['Filter'] ?? {}) as Body;
    const ids = Array.isArray(filter['GroupIds']) && filter['GroupIds'].length > 0 ? (filter['GroupIds'] as string[]) : undefined;
    const name = text(filter, 'Name');
    const statuses = Array.isArray(filter['Statuses']) ? (filter['Statuses'] as string[]) : undefined;
    const pageNumber = typeof body['PageNumber'] === 'number' ? body['PageNumber'] : 1;
    const pageSize = typeof body['PageSize'] === 'number' ? body['PageSize'] : 10;
    const found = await store.list(ids === undefined ? { channel, kind, offset: 0, limit: MAX_LISTED } : { channel, kind, ids, offset: 0, limit: MAX_LISTED });
    let items = found.rows.map(current);
    if (name !== undefined && name !== '') items = items.filter((r) => String(r['Name'] ?? '').toLowerCase().includes(name.toLowerCase()));
    if (statuses !== undefined && statuses.length > 0) items = items.filter((r) => statuses.includes(String(r['Status'])));
    if (body['SortOrder'] === 'Asc') items.reverse();
    const start = (pageNumber - 1) * pageSize;
    return ok(action, { Items: items.slice(start, start + pageSize), TotalCount: items.length, PageNumber: pageNumber, PageSize: pageSize });
  }

  async function update(action: AssetAction, kind: 'group' | 'asset', body: Body, fields: readonly string[]): Promise<LibraryAnswer> {
    const id = text(body, 'Id') ?? '';
    const found = await store.get(channel, id);
    if (found === undefined || found.kind !== kind) return notFound(action, kind, id);
    const record: Record<string, unknown> = Object.assign({}, found.record, { UpdateTime: rfc3339(now()) });
    for (const field of fields) if (typeof body[field] === 'string') record[field] = body[field];
    await store.put(Object.assign({}, found, { record }));
    return ok(action, {});
  }

  function notFound(action: AssetAction, kind: 'group' | 'asset', id: string): LibraryAnswer {
    return kind === 'group'
      ? fail(action, 404, 'NotFound.group_id', `The specified asset_group ${id} is not found.`)
      : fail(action, 404, 'NotFound.asset_id', `The specified asset ${id} is not found.`);
  }

  async function get(action: AssetAction, kind: 'group' | 'asset', body: Body): Promise<LibraryAnswer> {
    const id = text(body, 'Id') ?? '';
    const found = await store.get(channel, id);
    return found === undefined || found.kind !== kind ? notFound(action, kind, id) : ok(action, current(found));
  }

  async function call(action: AssetAction, body: Body): Promise<LibraryAnswer> {
    const at = now();
    switch (action) {
      case 'CreateAssetGroup': {
        const id = newId('group', at);
        const record = { Id: id, Name: text(body, 'Name') ?? '', Description: text(body, 'Description') ?? '', GroupType: 'AIGC', ProjectName: PROJECT, CreateTime: rfc3339(at), UpdateTime: rfc3339(at) };
        await store.put({ id, channel, kind: 'group', groupId: null, createdAt: at, record });
        return ok(action, { Id: id });
      }
      case 'CreateAsset': {
        const groupId = text(body, 'GroupId') ?? '';
        const group = await store.get(channel, groupId);
        if (group === undefined || group.kind !== 'group') return notFound(action, 'group', groupId);
        const id = newId('asset', at);
        const record = {
          Id: id,
          Name: text(body, 'Name') ?? '',
          URL: text(body, 'URL') ?? '',
          GroupId: groupId,
          AssetType: text(body, 'AssetType') ?? '',
          Status: 'Processing',
          ProjectName: PROJECT,
          CreateTime: rfc3339(at),
          UpdateTime: rfc3339(at),
        };
        await store.put({ id, channel, kind: 'asset', groupId, createdAt: at, record });
        return ok(action, { Id: id });
      }
      case 'GetAssetGroup':
        return get(action, 'group', body);
      case 'GetAsset':
        return get(action, 'asset', body);
      case 'ListAssetGroups':
        return list(action, 'group', body);
      case 'ListAssets':
        return list(action, 'asset', body);
      case 'UpdateAssetGroup':
        return update(action, 'group', body, ['Name', 'Description']);
      case 'UpdateAsset':
        return update(action, 'asset', body, ['Name']);
    }
  }

  return { call, close: () => Promise.resolve() };
}
