"""The ledger's tables, and the migrations that bring an older file up to them.

``PRAGMA user_version`` is the schema version. Each migration runs in the same transaction as
the version it sets (SQLite's DDL is transactional), so a process killed half-way leaves the file
at the old version, whole, and the next open runs the migration again.
"""

from __future__ import annotations

import sqlite3

# One entry per version: MIGRATIONS[0] takes an empty file to version 1, and so on. Never edit a
# shipped entry; append a new one.
MIGRATIONS: tuple[str, ...] = (
    """
    CREATE TABLE calls (
        -- The ledger's own number: an outbound call whose answer was lost has no call id yet.
        row INTEGER PRIMARY KEY AUTOINCREMENT,
        call_id TEXT UNIQUE,
        agent TEXT NOT NULL DEFAULT '',
        -- web, talk, socket, outbound, or elsewhere (added by its id)
        kind TEXT NOT NULL,
        to_number TEXT,
        from_ref TEXT,
        -- When the console learned of the call (UTC, ISO 8601).
        noted_at TEXT NOT NULL,
        -- 'unknown' for a placement whose answer was lost, NULL once the call id is known.
        outcome TEXT,
        -- An Idempotency-Key is no secret: it lets the same placement be asked about again.
        idempotency_key TEXT,
        -- Cached from the last GET /v1/calls/{id}. Never the recording URL: it is signed.
        status TEXT,
        end_reason TEXT,
        duration_seconds REAL,
        credits REAL,
        summary TEXT,
        transcript TEXT,
        has_recording INTEGER NOT NULL DEFAULT 0,
        created_at TEXT,
        ended_at TEXT,
        read_at TEXT,
        read_error TEXT
    );
    CREATE INDEX calls_noted ON calls (noted_at);
    """,
    """
    -- What the file says of itself. 'account': the one-way fingerprint of the account (server and
    -- key, never the key) whose calls it keeps (ledger/accounts.py).
    CREATE TABLE meta (
        name TEXT PRIMARY KEY,
        value TEXT NOT NULL
    );
    """,
    """
    -- Issue 34: the answer time of each agent turn, in order, in milliseconds (a JSON array), of a
    -- call the console held itself (Talk, vap agents talk and test). NULL: none was measured.
    ALTER TABLE calls ADD COLUMN answer_ms TEXT;
    -- Issue 33: the record's toolCalls (a sandbox extension) as JSON, each call of a tool with its
    -- name, status, milliseconds and error. NULL: the record had none (the real service).
    ALTER TABLE calls ADD COLUMN tool_calls TEXT;
    """,
)

SCHEMA_VERSION = len(MIGRATIONS)


class LedgerTooNew(Exception):
    """The file was written by a newer vap-console (a schema this one does not know)."""


def migrate(conn: sqlite3.Connection) -> int:
    """Bring the file to SCHEMA_VERSION; the version it was at. The caller holds no transaction."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        (version,) = conn.execute("PRAGMA user_version").fetchone()
        if version > SCHEMA_VERSION:
            raise LedgerTooNew(
                f"the calls ledger is at schema version {version}, newer than this vap-console "
                f"knows ({SCHEMA_VERSION}): update vap-console"
            )
        for number in range(version, SCHEMA_VERSION):
            for statement in MIGRATIONS[number].split(";"):
                if statement.strip():
                    conn.execute(statement)
            conn.execute(f"PRAGMA user_version = {number + 1}")
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    return int(version)
