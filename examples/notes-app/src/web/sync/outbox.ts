// Pending local edits, waiting to be sent over the sync channel.
// @spec SPEC-SYNC-001
// @decision DEC-SYNC-003 (pruned only by acks that carry a state vector)

import type { IDBPDatabase } from "idb";
import type { TidemarkSchema } from "../store/db";

/**
 * One pending edit. TODO(TASK-002): this is still the legacy text-patch shape;
 * SPEC-SYNC-001 requires the binary Yjs update instead, because patches are
 * re-applied as new operations after a tab is restored and duplicate text.
 */
export interface OutboxEntry {
  noteId: string;
  seq: number;
  patch: { from: number; to: number; insert: string };
  createdAtMs: number;
}

export async function pendingFor(
  db: IDBPDatabase<TidemarkSchema>,
  noteId: string,
): Promise<OutboxEntry[]> {
  const range = IDBKeyRange.bound([noteId, 0], [noteId, Number.MAX_SAFE_INTEGER]);
  return db.getAll("outbox", range);
}

export async function notesWithPending(db: IDBPDatabase<TidemarkSchema>): Promise<string[]> {
  const ids = new Set<string>();
  let cursor = await db.transaction("outbox").store.openKeyCursor();
  while (cursor) {
    ids.add(cursor.key[0]);
    cursor = await cursor.continue();
  }
  return [...ids].sort();
}

/** Delete every entry of `noteId` with a sequence number up to and including `uptoSeq`. */
export async function prune(
  db: IDBPDatabase<TidemarkSchema>,
  noteId: string,
  uptoSeq: number,
): Promise<number> {
  const tx = db.transaction("outbox", "readwrite");
  let removed = 0;
  let cursor = await tx.store.openCursor(IDBKeyRange.bound([noteId, 0], [noteId, uptoSeq]));
  while (cursor) {
    await cursor.delete();
    removed += 1;
    cursor = await cursor.continue();
  }
  await tx.done;
  // NORM-SEC-001: ids and counts only, never the patch text.
  console.debug(`outbox.prune note=${noteId} removed=${removed}`);
  return removed;
}
