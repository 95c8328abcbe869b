"""Keeps one SQLite FTS5 index per workspace up to date from note_changed events."""
# @spec SPEC-SEARCH-001
# @decision DEC-SEARCH-001 (FTS5 per workspace, no search cluster)

from __future__ import annotations

import logging
import sqlite3
from pathlib import Path

log = logging.getLogger("tidemark.search")

SCHEMA = """
CREATE VIRTUAL TABLE IF NOT EXISTS notes_fts USING fts5(
    note_id UNINDEXED, title, body, tokenize = 'unicode61 remove_diacritics 2'
);
"""


def open_index(root: Path, workspace_id: str) -> sqlite3.Connection:
    conn = sqlite3.connect(root / f"{workspace_id}.sqlite3")
    conn.executescript(SCHEMA)
    return conn


def upsert(conn: sqlite3.Connection, note_id: str, title: str, body: str) -> None:
    with conn:
        conn.execute("DELETE FROM notes_fts WHERE note_id = ?", (note_id,))
        conn.execute(
            "INSERT INTO notes_fts (note_id, title, body) VALUES (?, ?, ?)",
            (note_id, title, body),
        )
    # NORM-SEC-001: log the id and size, never the text.
    log.info("indexed note=%s chars=%d", note_id, len(title) + len(body))


def remove(conn: sqlite3.Connection, note_id: str) -> None:
    with conn:
        conn.execute("DELETE FROM notes_fts WHERE note_id = ?", (note_id,))


def search(conn: sqlite3.Connection, query: str, limit: int = 20) -> list[tuple[str, str]]:
    rows = conn.execute(
        "SELECT note_id, snippet(notes_fts, 2, '[', ']', '…', 12) "
        "FROM notes_fts WHERE notes_fts MATCH ? ORDER BY bm25(notes_fts) LIMIT ?",
        (query, limit),
    )
    return list(rows)
