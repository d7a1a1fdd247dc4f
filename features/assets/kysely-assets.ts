// AssetStore over Kysely: the same queries on SQLite and PostgreSQL.

import { sql, type Kysely, type Selectable } from 'kysely';
import type { AssetGroupRow, AssetRow, AssetStatus, AssetStore, GroupOwner, GroupQuery, MockAssetRecord, MockRecordQuery } from './asset-store.js';
import type { StoreDialect } from '../../core/store/migrations.js';
import { decodeInteger } from '../../core/store/row-codec.js';
import type { Database } from '../../core/store/schema.js';
import type { AssetGroupsTable, AssetsTable, AssetTables, MockAssetRecordsTable } from './tables.js';

/** Core's tables and the asset library's. */
type AssetDatabase = Database & AssetTables;
import { writeTransaction } from '../../core/store/write-transaction.js';

function decodeGroup(row: Selectable<AssetGroupsTable>): AssetGroupRow {
  return {
    id: row.id,
    channel: row.channel,
    keyId: row.key_id,
    account: row.account,
    bound: decodeInteger(row.bound) !== 0,
    name: row.name,
    createdAt: decodeInteger(row.created_at),
    updatedAt: decodeInteger(row.updated_at),
  };
}

function decodeAsset(row: Selectable<AssetsTable>): AssetRow {
  return {
    id: row.id,
    groupId: row.group_id,
    channel: row.channel,
    assetType: row.asset_type,
    status: row.status as AssetStatus,
    createdAt: decodeInteger(row.created_at),
    updatedAt: decodeInteger(row.updated_at),
  };
}

function decodeMock(row: Selectable<MockAssetRecordsTable>): MockAssetRecord {
  return {
    id: row.id,
    channel: row.channel,
    kind: row.kind === 'group' ? 'group' : 'asset',
    groupId: row.group_id,
    createdAt: decodeInteger(row.created_at),
    record: JSON.parse(row.record) as Record<string, unknown>,
  };
}

/**
 * Names holding `text`, whatever its case (SQLite's like ignores ASCII case and PostgreSQL's does not: both compare
 * lower()), its wildcards taken literally (a name holding `%` or `_` matches only itself).
 */
function nameHolds(text: string) {
  const pattern = `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  return sql<boolean>`lower(name) like ${pattern} escape '\\'`;
}

/** The groups bound to `owner`: its own while the key is of the groups' account. */
function ownedBy(db: Kysely<AssetDatabase>, owner: GroupOwner) {
  const base = db.selectFrom('asset_groups').where('key_id', '=', owner.keyId).where('bound', '=', 1);
  return owner.account === null ? base.where('account', 'is', null) : base.where('account', '=', owner.account);
}

function slotsOf(db: Kysely<AssetDatabase>, owner: GroupOwner) {
  const base = db.selectFrom('asset_group_slots').where('key_id', '=', owner.keyId);
  return owner.account === null ? base.where('account', 'is', null) : base.where('account', '=', owner.account);
}

export class KyselyAssets implements AssetStore {
  readonly #db: Kysely<AssetDatabase>;
  readonly #dialect: StoreDialect;
  readonly mock: AssetStore['mock'];

  constructor(db: Kysely<AssetDatabase>, dialect: StoreDialect) {
    this.#db = db;
    this.#dialect = dialect;
    this.mock = {
      put: (record) => this.#putMock(record),
      get: (channel, id) => this.#getMock(channel, id),
      list: (query) => this.#listMock(query),
    };
  }

  async takeGroupSlot(owner: GroupOwner, slot: string, channel: string, cap: number, at: number): Promise<boolean> {
    return writeTransaction(this.#db, this.#dialect, async (trx) => {
      // SQLite's write transaction already excludes every other writer; PostgreSQL's would let two count the same
      // rows and both insert, so the key's creates queue on a lock of its own (released at commit).
      if (this.#dialect === 'postgres') await sql`select pg_advisory_xact_lock(hashtext(${`asset_group_slots:${owner.keyId}`}))`.execute(trx);
      // One statement, so one snapshot: counted apart, a create that turned its slot into a group between the two
      // counts would be missed by both.
      const held = await trx
        .selectNoFrom((eb) => [
          ownedBy(trx, owner).select(eb.fn.countAll<number | string | bigint>().as('n')).as('groups'),
          slotsOf(trx, owner).select(eb.fn.countAll<number | string | bigint>().as('n')).as('slots'),
        ])
        .executeTakeFirstOrThrow();
      if (decodeInteger(held.groups ?? 0) + decodeInteger(held.slots ?? 0) >= cap) return false;
      await trx.insertInto('asset_group_slots').values({ id: slot, key_id: owner.keyId, account: owner.account, channel, created_at: at }).execute();
      return true;
    });
  }

  async releaseGroupSlot(slot: string): Promise<void> {
    await this.#db.deleteFrom('asset_group_slots').where('id', '=', slot).execute();
  }

  async addGroup(row: AssetGroupRow, slot?: string): Promise<void> {
    if (slot === undefined) return this.#insertGroup(this.#db, row);
    await writeTransaction(this.#db, this.#dialect, async (trx) => {
      await this.#insertGroup(trx, row);
      await trx.deleteFrom('asset_group_slots').where('id', '=', slot).execute();
    });
  }

  async #insertGroup(db: Kysely<AssetDatabase>, row: AssetGroupRow): Promise<void> {
    await db
      .insertInto('asset_groups')
      .values({
        id: row.id,
        channel: row.channel,
        key_id: row.keyId,
        account: row.account,
        bound: row.bound ? 1 : 0,
        name: row.name,
        created_at: row.createdAt,
        updated_at: row.updatedAt,
      })
      .execute();
  }

  async group(id: string): Promise<AssetGroupRow | undefined> {
    const row = await this.#db.selectFrom('asset_groups').selectAll().where('id', '=', id).executeTakeFirst();
    return row === undefined ? undefined : decodeGroup(row);
  }

  async renameGroup(id: string, name: string, at: number): Promise<void> {
    await this.#db.updateTable('asset_groups').set({ name, updated_at: at }).where('id', '=', id).execute();
  }

  #owned(owner: GroupOwner) {
    return ownedBy(this.#db, owner);
  }

  async keyGroups(owner: GroupOwner, query: GroupQuery): Promise<{ readonly rows: readonly AssetGroupRow[]; readonly total: number }> {
    if (query.ids !== undefined && query.ids.length === 0) return { rows: [], total: 0 };
    let base = this.#owned(owner);
    if (query.ids !== undefined) base = base.where('id', 'in', query.ids);
    if (query.name !== undefined && query.name !== '') base = base.where(nameHolds(query.name));
    const order = query.ascending ? 'asc' : 'desc';
    const column = query.sortBy === 'UpdateTime' ? 'updated_at' : 'created_at';
    const [rows, count] = await Promise.all([
      base.selectAll().orderBy(column, order).orderBy('id', order).offset(query.offset).limit(query.limit).execute(),
      base.select((eb) => eb.fn.countAll<number | string | bigint>().as('n')).executeTakeFirstOrThrow(),
    ]);
    return { rows: rows.map(decodeGroup), total: decodeInteger(count.n) };
  }

  async boundGroupIds(owner: GroupOwner): Promise<readonly { readonly id: string; readonly channel: string }[]> {
    return this.#owned(owner).select(['id', 'channel']).orderBy('created_at', 'desc').execute();
  }

  async bindGroup(id: string, keyId: string, at: number): Promise<void> {
    await this.#db.updateTable('asset_groups').set({ key_id: keyId, bound: 1, updated_at: at }).where('id', '=', id).execute();
  }

  async addAsset(row: AssetRow): Promise<void> {
    await this.#db
      .insertInto('assets')
      .values({
        id: row.id,
        group_id: row.groupId,
        channel: row.channel,
        asset_type: row.assetType,
        status: row.status,
        created_at: row.createdAt,
        updated_at: row.updatedAt,
      })
      // A list may have recorded it first (an asset whose create answer was lost, seen in a list): same asset.
      .onConflict((oc) => oc.column('id').doNothing())
      .execute();
  }

  async asset(id: string): Promise<AssetRow | undefined> {
    const row = await this.#db.selectFrom('assets').selectAll().where('id', '=', id).executeTakeFirst();
    return row === undefined ? undefined : decodeAsset(row);
  }

  async assetsByIds(ids: readonly string[]): Promise<readonly AssetRow[]> {
    if (ids.length === 0) return [];
    return (await this.#db.selectFrom('assets').selectAll().where('id', 'in', ids).execute()).map(decodeAsset);
  }

  async setAssetStatus(id: string, status: AssetStatus, at: number): Promise<void> {
    await this.#db.updateTable('assets').set({ status, updated_at: at }).where('id', '=', id).where('status', '!=', status).execute();
  }

  async accountGroups(
    account: string | null,
    page: { readonly offset: number; readonly limit: number; readonly keyId?: string },
  ): Promise<{ readonly rows: readonly AssetGroupRow[]; readonly total: number }> {
    let base = this.#db.selectFrom('asset_groups');
    if (account !== null) base = base.where('account', '=', account);
    if (page.keyId !== undefined) base = base.where('key_id', '=', page.keyId);
    const [rows, count] = await Promise.all([
      base.selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').offset(page.offset).limit(page.limit).execute(),
      base.select((eb) => eb.fn.countAll<number | string | bigint>().as('n')).executeTakeFirstOrThrow(),
    ]);
    return { rows: rows.map(decodeGroup), total: decodeInteger(count.n) };
  }

  async groupAssets(groupIds: readonly string[], limit: number): Promise<readonly AssetRow[]> {
    if (groupIds.length === 0) return [];
    const rows = await this.#db.selectFrom('assets').selectAll().where('group_id', 'in', groupIds).orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
    return rows.map(decodeAsset);
  }

  async #putMock(record: MockAssetRecord): Promise<void> {
    const text = JSON.stringify(record.record);
    await this.#db
      .insertInto('mock_asset_records')
      .values({ id: record.id, channel: record.channel, kind: record.kind, group_id: record.groupId, created_at: record.createdAt, record: text })
      .onConflict((oc) => oc.column('id').doUpdateSet({ record: text }))
      .execute();
  }

  async #getMock(channel: string, id: string): Promise<MockAssetRecord | undefined> {
    const row = await this.#db.selectFrom('mock_asset_records').selectAll().where('channel', '=', channel).where('id', '=', id).executeTakeFirst();
    return row === undefined ? undefined : decodeMock(row);
  }

  async #listMock(query: MockRecordQuery): Promise<{ readonly rows: readonly MockAssetRecord[]; readonly total: number }> {
    if (query.ids !== undefined && query.ids.length === 0) return { rows: [], total: 0 };
    let base = this.#db.selectFrom('mock_asset_records').where('channel', '=', query.channel).where('kind', '=', query.kind);
    if (query.ids !== undefined) base = base.where(query.kind === 'group' ? 'id' : 'group_id', 'in', query.ids);
    const [rows, count] = await Promise.all([
      base.selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').offset(query.offset).limit(query.limit).execute(),
      base.select((eb) => eb.fn.countAll<number | string | bigint>().as('n')).executeTakeFirstOrThrow(),
    ]);
    return { rows: rows.map(decodeMock), total: decodeInteger(count.n) };
  }
}
