// IndexedDB access for notes, snapshots and the sync outbox.
// @spec SPEC-STORE-001
// @decision DEC-STORE-001

import { openDB, type DBSchema, type IDBPDatabase } from "idb";

export interface TidemarkSchema extends DBSchema {
  notes: {
    key: string;
    value: { id: string; title: string; snapshot: Uint8Array; updatedAtMs: number };
  };
  outbox: {
    key: [string, number];
    value: import("../sync/outbox").OutboxEntry;
  };
  meta: { key: string; value: unknown };
}

export const SCHEMA_VERSION = 4;

export function openAccountDb(accountId: string): Promise<IDBPDatabase<TidemarkSchema>> {
  return openDB<TidemarkSchema>(`tidemark:${accountId}`, SCHEMA_VERSION, {
    upgrade(db, oldVersion) {
      if (oldVersion < 1) db.createObjectStore("notes", { keyPath: "id" });
      if (oldVersion < 2) db.createObjectStore("outbox", { keyPath: ["noteId", "seq"] });
      if (oldVersion < 3) db.createObjectStore("meta");
      // Version 4 only added indexes; the outbox store is never cleared (SPEC-STORE-001).
    },
  });
}

export async function loadSnapshot(
  db: IDBPDatabase<TidemarkSchema>,
  noteId: string,
): Promise<Uint8Array | undefined> {
  return (await db.get("notes", noteId))?.snapshot;
}
