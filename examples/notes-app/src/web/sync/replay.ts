// Drains the outbox when the sync channel opens.
// @spec SPEC-SYNC-001
// @decision DEC-SYNC-003

import * as Y from "yjs";
import type { SyncChannel } from "./channel";
import { notesWithPending, pendingFor, prune } from "./outbox";
import { openAccountDb, loadSnapshot } from "../store/db";

export async function replayAll(accountId: string, channel: SyncChannel): Promise<void> {
  const db = await openAccountDb(accountId);
  for (const noteId of await notesWithPending(db)) {
    const doc = new Y.Doc();
    const snapshot = await loadSnapshot(db, noteId);
    if (snapshot) Y.applyUpdate(doc, snapshot);

    const entries = await pendingFor(db, noteId);
    channel.subscribe(noteId, Y.encodeStateVector(doc));
    for (const entry of entries) {
      // TODO(TASK-002): re-deriving an update from a text patch creates new
      // operations under this tab's client id; send the stored update bytes instead.
      const text = doc.getText("body");
      doc.transact(() => {
        text.delete(entry.patch.from, entry.patch.to - entry.patch.from);
        text.insert(entry.patch.from, entry.patch.insert);
      });
      channel.send(noteId, Y.encodeStateAsUpdate(doc));
    }
    const ack = await channel.nextAck(noteId);
    if (ack.coversSeq !== undefined) await prune(db, noteId, ack.coversSeq);
  }
}
