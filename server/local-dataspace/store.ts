import { migrate, openDatabase } from "../storage/database";

/**
 * The local dataspace's persistent state: JSON documents in collections (participant contexts,
 * assets, negotiations, tenants, credentials, ...) in their own SQLite file, so that everything
 * survives a restart. Every write is a single statement (atomic); reads return copies.
 */

export type Collection =
  | "participants"
  | "assets"
  | "policies"
  | "contractdefinitions"
  | "negotiations"
  | "agreements"
  | "transfers"
  | "edrs"
  | "cells"
  | "dataspaceprofiles"
  | "tenants"
  | "participantprofiles"
  | "credentialdefinitions"
  | "credentials"
  | "credentialrequests";

export type LocalStore = ReturnType<typeof openLocalStore>;

/** `changeCounter`: one Int32 in shared memory to count changes in (the worker form), instead of a local number */
export function openLocalStore(dataDir: string, changeCounter?: Int32Array) {
  const db = openDatabase(dataDir, "local-dataspace.sqlite");
  migrate(db, "local-dataspace-1", [
    `CREATE TABLE ld_documents (
      collection TEXT NOT NULL,
      id TEXT NOT NULL,
      owner TEXT NOT NULL,
      seq INTEGER NOT NULL,
      data TEXT NOT NULL,
      PRIMARY KEY (collection, id)
    )`,
    "CREATE INDEX ld_documents_owner ON ld_documents(collection, owner, seq)",
    "CREATE INDEX ld_documents_seq ON ld_documents(collection, seq)",
    "CREATE TABLE ld_settings (name TEXT PRIMARY KEY, value TEXT NOT NULL)",
  ]);
  // creation order within a collection (lists are per collection): MAX(seq) of one collection is one
  // step down the (collection, seq) index (decision 0022)
  const upsert = db.prepare(
    `INSERT INTO ld_documents (collection, id, owner, seq, data)
     VALUES (@collection, @id, @owner,
       (SELECT COALESCE(MAX(seq), 0) + 1 FROM ld_documents WHERE collection = @collection), @data)
     ON CONFLICT (collection, id) DO UPDATE SET owner = excluded.owner, data = excluded.data`,
  );
  const getOne = db.prepare<[string, string], { data: string }>(
    "SELECT data FROM ld_documents WHERE collection = ? AND id = ?",
  );
  const listAll = db.prepare<[string], { data: string }>(
    "SELECT data FROM ld_documents WHERE collection = ? ORDER BY seq",
  );
  const listOwned = db.prepare<[string, string], { data: string }>(
    "SELECT data FROM ld_documents WHERE collection = ? AND owner = ? ORDER BY seq",
  );
  const del = db.prepare("DELETE FROM ld_documents WHERE collection = ? AND id = ?");
  const getSetting = db.prepare<[string], { value: string }>("SELECT value FROM ld_settings WHERE name = ?");
  const putSetting = db.prepare(
    "INSERT INTO ld_settings (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value",
  );

  // a counter of its own when none is shared (Atomics work on a plain Int32Array too)
  const counter = changeCounter ?? new Int32Array(1);
  const changed = () => void Atomics.add(counter, 0, 1);
  const version = () => Atomics.load(counter, 0);
  return {
    put<T extends object>(collection: Collection, id: string, owner: string, data: T): T {
      upsert.run({ collection, id, owner, data: JSON.stringify(data) });
      changed();
      return data;
    },
    get<T>(collection: Collection, id: string): T | undefined {
      const row = getOne.get(collection, id);
      return row ? (JSON.parse(row.data) as T) : undefined;
    },
    /** documents in creation order, optionally only one owner's */
    list<T>(collection: Collection, owner?: string): T[] {
      const rows = owner === undefined ? listAll.all(collection) : listOwned.all(collection, owner);
      return rows.map((r) => JSON.parse(r.data) as T);
    },
    delete: (collection: Collection, id: string) => {
      changed();
      return del.run(collection, id).changes > 0;
    },
    setting: (name: string) => getSetting.get(name)?.value,
    setSetting: (name: string, value: string) => void putSetting.run(name, value),
    transaction: <T>(fn: () => T): T => db.transaction(fn)(),
    /** a counter that every put and delete increments: readers that cache documents compare it */
    version,
    close: () => db.close(),
  };
}
