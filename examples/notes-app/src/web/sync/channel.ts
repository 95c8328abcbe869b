// The client side of the sync WebSocket: one connection per session, all open notes multiplexed.
// @spec SPEC-SYNC-001
// @decision DEC-SYNC-003

export interface Ack {
  noteId: string;
  /** Post-merge state vector from the server. */
  stateVector: Uint8Array;
  /** Highest outbox sequence number the state vector covers, once computed locally. */
  coversSeq?: number;
}

export interface SyncChannel {
  subscribe(noteId: string, stateVector: Uint8Array): void;
  send(noteId: string, update: Uint8Array): void;
  nextAck(noteId: string): Promise<Ack>;
  close(code?: number): void;
}

/** Reconnect delay: 500 ms base, doubling, capped at 30 s, full jitter (DEC-SYNC-003). */
export function reconnectDelayMs(attempt: number, random: () => number = Math.random): number {
  const ceiling = Math.min(30_000, 500 * 2 ** attempt);
  return Math.floor(random() * ceiling);
}
