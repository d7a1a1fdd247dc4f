// The eight asset-library actions of the fake Volcengine control plane, over records kept in memory: validation,
// per-project visibility, Processing -> Active | Failed, and the List actions' filters and pages as the real API
// is understood to serve them (an absent or empty Filter.GroupIds filters nothing).

import { randomInt } from 'node:crypto';

// Type aliases, not interfaces: a record is handed out as a Result, a Record<string, unknown>.
export type FakeAssetGroup = {
  Id: string;
  Name: string;
  Description: string;
  GroupType: string;
  ProjectName: string;
  CreateTime: string;
  UpdateTime: string;
};

export type FakeAsset = {
  Id: string;
  Name: string;
  URL: string;
  GroupId: string;
  AssetType: string;
  Status: 'Processing' | 'Active' | 'Failed';
  ProjectName: string;
  CreateTime: string;
  UpdateTime: string;
  Error?: { Code: string; Message: string };
};

/** What an action answered: its Result, or an error envelope's status, code and message. */
export type ActionOutcome = { readonly result: Record<string, unknown> } | { readonly status: number; readonly code: string; readonly message: string };

type Body = Readonly<Record<string, unknown>>;

const ASSET_TYPES: ReadonlySet<string> = new Set(['Image', 'Video', 'Audio']);
const STATUSES: ReadonlySet<string> = new Set(['Processing', 'Active', 'Failed']);
const ID_LETTERS = 'abcdefghijklmnopqrstuvwxyz0123456789';

/** RFC 3339 in whole seconds, as the API writes its times. */
export function rfc3339(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** `group-20261126230000-abcde`: the kind, the creation time in UTC, five random letters or digits. */
function newId(kind: 'group' | 'asset', ms: number): string {
  const stamp = rfc3339(ms).replace(/[-:TZ]/g, '');
  let suffix = '';
  for (let i = 0; i < 5; i++) suffix += ID_LETTERS[randomInt(ID_LETTERS.length)];
  return `${kind}-${stamp}-${suffix}`;
}

function invalid(message: string): ActionOutcome {
  return { status: 400, code: 'InvalidParameter', message };
}

function groupNotFound(id: unknown): ActionOutcome {
  return { status: 404, code: 'NotFound.group_id', message: `The specified asset_group ${String(id)} is not found.` };
}

function assetNotFound(id: unknown): ActionOutcome {
  return { status: 404, code: 'NotFound.asset_id', message: `The specified asset ${String(id)} is not found.` };
}

/** A string field: null when absent, else an error outcome when not a string of at most `max` characters. */
function stringField(body: Body, name: string, max: number): string | null | ActionOutcome {
  const value = body[name];
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') return invalid(`The parameter ${name} must be a string.`);
  if (value.length > max) return invalid(`The parameter ${name} must be at most ${max} characters.`);
  return value;
}

function isOutcome(value: unknown): value is ActionOutcome {
  return typeof value === 'object' && value !== null;
}

function projectOf(body: Body): string {
  return typeof body['ProjectName'] === 'string' && body['ProjectName'] !== '' ? body['ProjectName'] : 'default';
}

export class FakeAssetActions {
  readonly groups = new Map<string, FakeAssetGroup>();
  readonly assets = new Map<string, FakeAsset>();
  /** Creation order, so records made in the same second still sort newest first. */
  private readonly order = new Map<string, number>();
  private readonly timers = new Set<NodeJS.Timeout>();

  constructor(private readonly processingMs: number) {}

  perform(action: string, body: Body): ActionOutcome | null {
    switch (action) {
      case 'CreateAssetGroup':
        return this.createGroup(body);
      case 'CreateAsset':
        return this.createAsset(body);
      case 'GetAssetGroup':
        return this.withGroup(body, (group) => ({ result: Object.assign({}, group) }));
      case 'GetAsset':
        return this.withAsset(body, (asset) => ({ result: Object.assign({}, asset) }));
      case 'ListAssetGroups':
        return this.list(body, [...this.groups.values()], (group, filter) => this.groupMatches(group, filter));
      case 'ListAssets':
        return this.list(body, [...this.assets.values()], (asset, filter) => this.assetMatches(asset, filter));
      case 'UpdateAssetGroup':
        return this.updateGroup(body);
      case 'UpdateAsset':
        return this.updateAsset(body);
      default:
        return null;
    }
  }

  /** Stops the pending Processing -> Active timers. */
  stop(): void {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }

  private createGroup(body: Body): ActionOutcome {
    const name = stringField(body, 'Name', 64);
    if (isOutcome(name)) return name;
    if (name === null || name === '') return invalid('The parameter Name is required.');
    const description = stringField(body, 'Description', 300);
    if (isOutcome(description)) return description;
    const groupType = body['GroupType'] ?? 'AIGC';
    if (groupType !== 'AIGC') return invalid('The parameter GroupType must be AIGC.');
    const now = Date.now();
    const group: FakeAssetGroup = {
      Id: newId('group', now),
      Name: name,
      Description: description ?? '',
      GroupType: 'AIGC',
      ProjectName: projectOf(body),
      CreateTime: rfc3339(now),
      UpdateTime: rfc3339(now),
    };
    this.groups.set(group.Id, group);
    this.order.set(group.Id, this.order.size);
    return { result: { Id: group.Id } };
  }

  private createAsset(body: Body): ActionOutcome {
    const groupId = stringField(body, 'GroupId', 128);
    if (isOutcome(groupId)) return groupId;
    if (groupId === null || groupId === '') return invalid('The parameter GroupId is required.');
    const url = stringField(body, 'URL', 4096);
    if (isOutcome(url)) return url;
    if (url === null || url === '') return invalid('The parameter URL is required.');
    if (!/^https?:\/\//i.test(url)) return invalid('The parameter URL must be a public http or https URL.');
    const assetType = body['AssetType'];
    if (typeof assetType !== 'string' || !ASSET_TYPES.has(assetType)) return invalid('The parameter AssetType must be one of Image, Video, Audio.');
    const name = stringField(body, 'Name', 64);
    if (isOutcome(name)) return name;
    const project = projectOf(body);
    const group = this.groups.get(groupId);
    if (group === undefined || group.ProjectName !== project) return groupNotFound(groupId);
    const now = Date.now();
    const asset: FakeAsset = {
      Id: newId('asset', now),
      Name: name ?? '',
      URL: url,
      GroupId: groupId,
      AssetType: assetType,
      Status: 'Processing',
      ProjectName: project,
      CreateTime: rfc3339(now),
      UpdateTime: rfc3339(now),
    };
    this.assets.set(asset.Id, asset);
    this.order.set(asset.Id, this.order.size);
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      this.settle(asset);
    }, this.processingMs);
    timer.unref();
    this.timers.add(timer);
    return { result: { Id: asset.Id } };
  }

  private settle(asset: FakeAsset): void {
    asset.UpdateTime = rfc3339(Date.now());
    if (asset.URL.includes('download-fails')) {
      asset.Status = 'Failed';
      asset.Error = { Code: 'DownloadFailed', Message: 'Failed to download the file from the given URL.' };
    } else {
      asset.Status = 'Active';
    }
  }

  private withGroup(body: Body, then: (group: FakeAssetGroup) => ActionOutcome): ActionOutcome {
    const id = body['Id'];
    if (typeof id !== 'string' || id === '') return invalid('The parameter Id is required.');
    const group = this.groups.get(id);
    return group === undefined || group.ProjectName !== projectOf(body) ? groupNotFound(id) : then(group);
  }

  private withAsset(body: Body, then: (asset: FakeAsset) => ActionOutcome): ActionOutcome {
    const id = body['Id'];
    if (typeof id !== 'string' || id === '') return invalid('The parameter Id is required.');
    const asset = this.assets.get(id);
    return asset === undefined || asset.ProjectName !== projectOf(body) ? assetNotFound(id) : then(asset);
  }

  private updateGroup(body: Body): ActionOutcome {
    const name = stringField(body, 'Name', 64);
    if (isOutcome(name)) return name;
    const description = stringField(body, 'Description', 300);
    if (isOutcome(description)) return description;
    return this.withGroup(body, (group) => {
      if (name !== null && name !== '') group.Name = name;
      if (description !== null) group.Description = description;
      group.UpdateTime = rfc3339(Date.now());
      return { result: {} };
    });
  }

  private updateAsset(body: Body): ActionOutcome {
    const name = stringField(body, 'Name', 64);
    if (isOutcome(name)) return name;
    if (name === null) return invalid('The parameter Name is required.');
    return this.withAsset(body, (asset) => {
      asset.Name = name;
      asset.UpdateTime = rfc3339(Date.now());
      return { result: {} };
    });
  }

  private groupMatches(group: FakeAssetGroup, filter: Body): boolean {
    if (typeof filter['GroupType'] === 'string' && group.GroupType !== filter['GroupType']) return false;
    if (!inList(filter['GroupIds'], group.Id)) return false;
    return typeof filter['Name'] !== 'string' || group.Name.includes(filter['Name']);
  }

  private assetMatches(asset: FakeAsset, filter: Body): boolean {
    const group = this.groups.get(asset.GroupId);
    if (typeof filter['GroupType'] === 'string' && group?.GroupType !== filter['GroupType']) return false;
    if (!inList(filter['GroupIds'], asset.GroupId) || !inList(filter['Statuses'], asset.Status)) return false;
    return typeof filter['Name'] !== 'string' || asset.Name.includes(filter['Name']);
  }

  private list<T extends { Id: string; ProjectName: string }>(body: Body, records: T[], matches: (record: T, filter: Body) => boolean): ActionOutcome {
    const filter = body['Filter'] ?? {};
    if (typeof filter !== 'object' || filter === null || Array.isArray(filter)) return invalid('The parameter Filter must be an object.');
    const problem = listProblem(filter as Body);
    if (problem !== null) return invalid(problem);
    const pageNumber = body['PageNumber'] ?? 1;
    const pageSize = body['PageSize'] ?? 10;
    if (!Number.isInteger(pageNumber) || (pageNumber as number) < 1) return invalid('The parameter PageNumber must be an integer from 1.');
    if (!Number.isInteger(pageSize) || (pageSize as number) < 1 || (pageSize as number) > 100) return invalid('The parameter PageSize must be an integer from 1 to 100.');
    const project = projectOf(body);
    const asc = body['SortOrder'] === 'Asc';
    const found = records
      .filter((record) => record.ProjectName === project && matches(record, filter as Body))
      .sort((a, b) => ((this.order.get(a.Id) ?? 0) - (this.order.get(b.Id) ?? 0)) * (asc ? 1 : -1));
    const start = ((pageNumber as number) - 1) * (pageSize as number);
    const items = found.slice(start, start + (pageSize as number)).map((record) => Object.assign({}, record));
    return { result: { Items: items, TotalCount: found.length, PageNumber: pageNumber, PageSize: pageSize } };
  }
}

/** An absent or empty list filters nothing: a caller that sends `GroupIds: []` sees every group of the project. */
function inList(list: unknown, value: string): boolean {
  return !Array.isArray(list) || list.length === 0 || list.includes(value);
}

function listProblem(filter: Body): string | null {
  for (const name of ['GroupIds', 'Statuses']) {
    const list = filter[name];
    if (list !== undefined && (!Array.isArray(list) || list.some((v) => typeof v !== 'string'))) return `The parameter Filter.${name} must be a list of strings.`;
  }
  const statuses = filter['Statuses'];
  if (Array.isArray(statuses) && statuses.some((s) => !STATUSES.has(s as string))) return 'The parameter Filter.Statuses has an unknown status.';
  for (const name of ['Name', 'GroupType']) {
    if (filter[name] !== undefined && typeof filter[name] !== 'string') return `The parameter Filter.${name} must be a string.`;
  }
  return null;
}
