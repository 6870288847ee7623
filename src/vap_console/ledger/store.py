"""The calls ledger: every call this profile's console and CLI started or were told about.

The real service publishes no list of calls (reference voice.md §4), so the console keeps one: a
SQLite file per profile in the user's data directory, ``calls/<profile>.sqlite3``. Each call is
written the moment its id is known (``record_started``); what ``GET /v1/calls/{id}`` last said is
cached on it (``cache_record``) so the list, the chart and the export need no network.

Safe with several processes: WAL (readers never wait for the writer), a busy timeout, and short
transactions, one statement each; a connection per operation, so no thread or process shares one.
A commit is durable (``synchronous=FULL``): a process killed mid-write loses only the write it
had not committed. The file, its -wal and -shm are its owner's alone (0600, in a 0700 folder).
No secret is stored: no key, and never a recording URL (it is signed; the
record is read again for a fresh one).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vap_console.ledger import figures
from vap_console.ledger.schema import migrate
from vap_console.ledger.search import like_anywhere, words_said
from vap_console.local_files import create_private, make_private, private_dir

if TYPE_CHECKING:
    from vap_console.api.models.calls import CallRecord

APP_NAME = "vap-console"
BUSY_TIMEOUT_MS = 10_000
KINDS = ("web", "talk", "socket", "outbound", "elsewhere")
OUTCOME_UNKNOWN = "outcome unknown"
TERMINAL = frozenset({"completed", "failed", "expired"})
# The ledger's own status for a call the server says it does not have (another account's id, a
# sandbox that was restarted): it is not read again.
GONE = "not found"

_COLUMNS = ("row, call_id, agent, kind, to_number, from_ref, noted_at, outcome, idempotency_key, status, "
            "end_reason, duration_seconds, credits, summary, has_recording, created_at, ended_at, "
            "read_at, read_error")

_NAMES = tuple(name.strip() for name in _COLUMNS.split(","))
_COUNT = len(_NAMES)
# Read after _COLUMNS for what a call's detail shows (see _entry): the answer times, what was said,
# the tool calls. A plain listing (`vap calls list`) reads none of them.
_DETAIL = f"{_COLUMNS}, answer_ms, transcript, tool_calls"


# The server's kinds of call next to the ledger's: a Talk session is a "socket" call on the server.
_SAME_KIND = {"talk": "socket"}


def _kind(kind: str | None) -> str | None:
    return _SAME_KIND.get(kind or "", kind)


class CallIdTaken(LookupError):
    """The id is kept already for another call (a sandbox started again gives old ids anew): the
    ledger keeps the call it had and says so, rather than letting the new one take its row."""

    def __init__(self, call_id: str, kind: str, agent: str, noted_at: str) -> None:
        self.call_id = call_id
        super().__init__(
            f"call id {call_id} is kept already for another call (a {kind} call of {agent or 'an unknown agent'} "
            f"noted {noted_at}); the server gives that id to a different call now (a sandbox started again?). "
            "The ledger keeps the call it had; nothing was overwritten")


def default_data_dir() -> Path:
    import platformdirs

    return platformdirs.user_data_path(APP_NAME)


def ledger_path(profile: str, data_dir: Path | None = None) -> Path:
    from vap_console.credentials.names import check_profile_name

    return (data_dir or default_data_dir()) / "calls" / f"{check_profile_name(profile)}.sqlite3"


def _now() -> datetime:
    return datetime.now(UTC)


def _iso(moment: datetime | None) -> str | None:
    if moment is None:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


@dataclass(frozen=True)
class Turn:
    role: str
    content: str


@dataclass(frozen=True)
class CallEntry:
    """One call as the ledger holds it. ``said`` is the transcript as stored (JSON, empty when not
    read); ``transcript`` its turns, parsed on first use: a list of 10,000 calls parses only the
    few a person opens."""

    row: int
    call_id: str | None
    agent: str
    kind: str
    to_number: str | None
    from_ref: str | None
    noted_at: str
    outcome: str | None
    idempotency_key: str | None
    status: str | None
    end_reason: str | None
    duration_seconds: float | None
    credits: float | None
    summary: str | None
    has_recording: bool
    created_at: str | None
    ended_at: str | None
    read_at: str | None
    read_error: str | None
    said: str = ""
    # The words said, turn after turn (read with the transcript for the Calls list's filter).
    words: str = ""
    # As kept (JSON text, ledger/figures.py), parsed on first use like the transcript.
    timed: str | None = None
    tools: str | None = None

    @cached_property
    def transcript(self) -> tuple[Turn, ...]:
        if not self.said:
            return ()
        try:
            raw = json.loads(self.said)
        except ValueError:
            return ()
        if not isinstance(raw, list):
            return ()
        return tuple(Turn(str(t[0]), str(t[1])) for t in raw if isinstance(t, list) and len(t) == 2)

    @cached_property
    def answer_times(self) -> tuple[float, ...]:
        """The answer time of each agent turn, in order (ms); () when the console measured none."""
        return figures.times_of(self.timed)

    @cached_property
    def tool_calls(self) -> tuple[figures.ToolCallSeen, ...] | None:
        """Each call of a tool the record listed; None when it listed none (the real service)."""
        return figures.tools_of(self.tools)

    @property
    def unknown(self) -> bool:
        return self.outcome == "unknown"

    @property
    def shown_status(self) -> str:
        if self.unknown:
            return OUTCOME_UNKNOWN
        return self.status or "not read yet"

    @property
    def ended(self) -> bool:
        return self.status in TERMINAL

    @property
    def open(self) -> bool:
        """A call to keep reading until it ends: known id, not ended, not gone."""
        return self.call_id is not None and not self.ended and self.status != GONE

    def as_dict(self, *, transcript: bool = True) -> dict[str, Any]:
        data: dict[str, Any] = {
            "callId": self.call_id, "agent": self.agent, "kind": self.kind, "toNumber": self.to_number,
            "from": self.from_ref, "notedAt": self.noted_at, "status": self.shown_status,
            "endReason": self.end_reason, "durationSeconds": self.duration_seconds,
            "creditsCharged": self.credits, "summary": self.summary, "hasRecording": self.has_recording,
            "createdAt": self.created_at, "endedAt": self.ended_at, "readAt": self.read_at,
            "readError": self.read_error,
        }
        if self.unknown:
            data["idempotencyKey"] = self.idempotency_key
        if transcript:
            data["transcript"] = [{"role": t.role, "content": t.content} for t in self.transcript]
        return data


@dataclass(frozen=True)
class DaySpend:
    day: date
    calls: int
    credits: float


@dataclass(frozen=True)
class Total:
    name: str
    calls: int
    credits: float
    seconds: float


class Ledger:
    """The calls of one profile. Every method opens its own short-lived connection."""

    def __init__(self, profile: str, *, data_dir: Path | None = None, path: Path | None = None) -> None:
        self.profile = profile
        self.path = path or ledger_path(profile, data_dir)
        self._ready = False

    def __repr__(self) -> str:
        return f"Ledger(profile={self.profile!r}, path={str(self.path)!r})"

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        if not self._ready:
            # Every transcript is in it: the folder 0700, the file 0600 before SQLite opens it, so
            # the -wal and -shm SQLite makes later take the file's mode (older ones are narrowed).
            private_dir(self.path.parent)
            create_private(self.path)
            for extra in ("-wal", "-shm"):
                make_private(self.path.with_name(self.path.name + extra))
        # isolation_level=None: autocommit, so each statement is its own short transaction and
        # BEGIN IMMEDIATE is ours to write where a read and a write must go together. Closing the
        # connection (always, below) rolls back a transaction an exception left open.
        conn = sqlite3.connect(self.path, isolation_level=None)
        try:
            conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            if not self._ready:
                conn.execute("PRAGMA journal_mode = WAL")
                migrate(conn)
                self._ready = True
            conn.execute("PRAGMA synchronous = FULL")
            yield conn
        finally:
            conn.close()

    # --- whose calls ---

    def account(self) -> str | None:
        """The fingerprint of the account whose calls this file keeps; None when none was noted
        (a file written before accounts were told apart)."""
        with self._connect() as conn:
            found = conn.execute("SELECT value FROM meta WHERE name = 'account'").fetchone()
        return str(found[0]) if found else None

    def note_account(self, tag: str, *, unless_other: bool = False) -> bool:
        """Note that this file keeps the calls of account ``tag``. ``unless_other``: only when it
        notes no other account yet. Whether the file is now that account's."""
        with self._connect() as conn:
            conn.execute("BEGIN IMMEDIATE")
            found = conn.execute("SELECT value FROM meta WHERE name = 'account'").fetchone()
            if unless_other and found is not None and found[0] != tag:
                conn.execute("ROLLBACK")
                return False
            conn.execute("INSERT OR REPLACE INTO meta (name, value) VALUES ('account', ?)", (tag,))
            conn.execute("COMMIT")
        return True

    # --- writing ---

    def record_started(
        self,
        call_id: str,
        agent: str,
        kind: str,
        *,
        to_number: str | None = None,
        from_ref: str | None = None,
        at: datetime | None = None,
        status: str | None = None,
    ) -> None:
        """A call whose id is now known (a web call's, a Talk session's, a placed call's). Calling
        it again for the same id changes nothing that was cached."""
        if not call_id or not call_id.strip():
            raise ValueError("a call id is required")
        if kind not in KINDS:
            raise ValueError(f"kind {kind!r}: must be one of {', '.join(KINDS)}")
        with self._connect() as conn:
            conn.execute("BEGIN IMMEDIATE")
            kept = conn.execute("SELECT kind, agent, noted_at FROM calls WHERE call_id = ?",
                                (call_id.strip(),)).fetchone()
            if kept is not None:
                conn.execute("ROLLBACK")
                # The same call told again (by the console and a script, say) changes nothing;
                # another call under that id is refused aloud.
                if kept[0] != "elsewhere" and (_kind(kept[0]) != _kind(kind) or (kept[1] and kept[1] != agent)):
                    raise CallIdTaken(call_id.strip(), kept[0], kept[1], kept[2])
                return
            conn.execute(
                "INSERT INTO calls (call_id, agent, kind, to_number, from_ref, noted_at, status) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                (call_id.strip(), agent, kind, to_number, from_ref, _iso(at or _now()), status),
            )
            conn.execute("COMMIT")

    def record_unknown(
        self,
        agent: str,
        kind: str,
        *,
        idempotency_key: str | None,
        to_number: str | None = None,
        from_ref: str | None = None,
        at: datetime | None = None,
    ) -> int:
        """A start whose answer was lost: it may have placed a call. Its ledger row number."""
        with self._connect() as conn:
            cursor = conn.execute(
                "INSERT INTO calls (agent, kind, to_number, from_ref, noted_at, outcome, idempotency_key) "
                "VALUES (?, ?, ?, ?, ?, 'unknown', ?)",
                (agent, kind, to_number, from_ref, _iso(at or _now()), idempotency_key),
            )
            return int(cursor.lastrowid or 0)

    def resolve_unknown(self, row: int, call_id: str) -> None:
        """What became of a lost placement: its call id, found (the row takes it)."""
        with self._connect() as conn:
            conn.execute("BEGIN IMMEDIATE")
            if conn.execute("SELECT 1 FROM calls WHERE call_id = ?", (call_id,)).fetchone():
                # Known already (added by hand meanwhile): the lost placement was that call.
                conn.execute("DELETE FROM calls WHERE row = ? AND outcome = 'unknown'", (row,))
            else:
                conn.execute("UPDATE calls SET call_id = ?, outcome = NULL WHERE row = ?", (call_id, row))
            conn.execute("COMMIT")

    def record_answer_times(self, call_id: str, times: Sequence[float]) -> bool:
        """The answer time of each agent turn of a call the console held (ms, in order), kept on the
        call (replacing any kept before). Whether the ledger holds that call."""
        kept = figures.times_json(times)
        with self._connect() as conn:
            cursor = conn.execute("UPDATE calls SET answer_ms = ? WHERE call_id = ?", (kept, call_id))
        return cursor.rowcount > 0

    def cache_record(self, record: CallRecord, *, at: datetime | None = None) -> None:
        """What GET /v1/calls/{id} said, kept on the call (added first when it is not there)."""
        transcript = json.dumps(
            [[t.role, t.content] for t in record.transcript or []], ensure_ascii=False)
        values = {
            "status": record.status, "end_reason": record.end_reason,
            "duration_seconds": record.duration_seconds, "credits": record.credits_charged,
            "summary": record.summary, "transcript": transcript,
            "has_recording": bool(record.recording_url),
            "created_at": _iso(record.created_at), "ended_at": _iso(record.ended_at),
            "read_at": _iso(at or _now()),
        }
        if record.tool_calls is not None:  # a record without them keeps what an earlier read said
            values["tool_calls"] = figures.tools_json(record.tool_calls)
        with self._connect() as conn:
            conn.execute("BEGIN IMMEDIATE")
            kept = conn.execute("SELECT kind, agent, noted_at, created_at FROM calls WHERE call_id = ?",
                                (record.id,)).fetchone()
            if kept is not None and _another_call(kept[0], kept[3], record):
                conn.execute("ROLLBACK")
                raise CallIdTaken(record.id, kept[0], kept[1], kept[2])
            conn.execute(
                "INSERT INTO calls (call_id, agent, kind, to_number, from_ref, noted_at) "
                "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (call_id) DO NOTHING",
                (record.id, record.agent_id or "", record.kind if record.kind in KINDS else "elsewhere",
                 record.to_number, record.from_trunk_id, _iso(record.created_at or at or _now())),
            )
            sets = ", ".join(f"{name} = :{name}" for name in values)
            conn.execute(f"UPDATE calls SET {sets}, read_error = NULL WHERE call_id = :call_id",
                         {**values, "call_id": record.id})
            conn.execute("COMMIT")

    def record_unreadable(self, call_id: str, problem: str, *, at: datetime | None = None, gone: bool) -> None:
        """The call's record could not be read (``problem`` says why); ``gone``: the server does
        not have it, so it is not read again."""
        with self._connect() as conn:
            conn.execute("UPDATE calls SET read_error = ?, read_at = ?, status = CASE WHEN ? THEN ? ELSE status END "
                         "WHERE call_id = ?", (problem, _iso(at or _now()), gone, GONE, call_id))

    # --- reading ---

    def entries(self, text: str = "", *, transcripts: bool = False) -> list[CallEntry]:
        """Newest first. ``text`` keeps the calls whose agent, status, kind, number or words said
        contain it (any case); ``transcripts`` reads what was said too (the console's list)."""
        where: str = ""
        args: tuple[Any, ...] = ()
        if text.strip():
            words = text.strip().lower()
            # As the words are kept in the transcript's JSON (json.dumps escapes " and \ and
            # controls): a quick first test on the stored text, before each turn is read.
            stored = json.dumps(words, ensure_ascii=False)[1:-1]
            where = ("WHERE lower(agent) LIKE ?1 ESCAPE '\\' OR lower(coalesce(status, '')) LIKE ?1 ESCAPE '\\' "
                     "OR lower(kind) LIKE ?1 ESCAPE '\\' OR coalesce(to_number, '') LIKE ?1 ESCAPE '\\' "
                     # The words of each turn, not the JSON they are kept in (its quotes,
                     # backslashes and role names are not said). A transcript damaged by hand is
                     # skipped: CASE, since SQLite may evaluate both sides of an AND.
                     "OR lower(coalesce(transcript, '')) LIKE ?2 ESCAPE '\\' AND CASE WHEN NOT json_valid(transcript) "
                     "THEN 0 WHEN json_type(transcript) = 'array' THEN EXISTS (SELECT 1 FROM json_each(transcript) "
                     "AS turn WHERE lower(json_extract(transcript, '$[' || turn.key || '][1]')) LIKE ?1 ESCAPE '\\') "
                     "END "
                     "OR (outcome = 'unknown' AND 'outcome unknown' LIKE ?1 ESCAPE '\\')")
            args = (like_anywhere(words), like_anywhere(stored))
        sql = f"SELECT {_DETAIL if transcripts else _COLUMNS} FROM calls {where} ORDER BY noted_at DESC, row DESC"
        with self._connect() as conn:
            return [_entry(r, words=transcripts) for r in conn.execute(sql, args)]

    def get(self, call_id: str) -> CallEntry | None:
        with self._connect() as conn:
            found = conn.execute(f"SELECT {_DETAIL} FROM calls WHERE call_id = ?", (call_id,)).fetchone()
        return _entry(found) if found else None

    def with_transcripts(self) -> list[CallEntry]:
        """Every call, oldest first, with its transcript (for an export)."""
        with self._connect() as conn:
            rows = conn.execute(f"SELECT {_DETAIL} FROM calls ORDER BY noted_at, row").fetchall()
        return [_entry(r) for r in rows]

    def open_ids(self) -> list[str]:
        """The calls not yet ended: to be read until they end."""
        with self._connect() as conn:
            rows = conn.execute(
                "SELECT call_id FROM calls WHERE call_id IS NOT NULL AND "
                "(status IS NULL OR status NOT IN ('completed', 'failed', 'expired', ?)) ORDER BY noted_at", (GONE,)
            ).fetchall()
        return [call_id for (call_id,) in rows]

    def per_day(self, days: int, *, today: date | None = None) -> list[DaySpend]:
        """Calls and credits per day (UTC) over the last ``days`` days, today last, gaps as 0."""
        last = today or _now().date()
        first = last - timedelta(days=days - 1)
        with self._connect() as conn:
            rows = conn.execute(
                "SELECT substr(noted_at, 1, 10), count(*), coalesce(sum(credits), 0) FROM calls "
                "WHERE noted_at >= ? GROUP BY 1", (first.isoformat(),)
            ).fetchall()
        seen = {r[0]: (int(r[1]), float(r[2])) for r in rows}
        out = []
        for n in range(days):
            day = first + timedelta(days=n)
            calls, spent = seen.get(day.isoformat(), (0, 0.0))
            out.append(DaySpend(day, calls, spent))
        return out

    def totals(self, by: str) -> list[Total]:
        """Calls, credits and seconds per agent (``by="agent"``) or per kind, most credits first."""
        if by not in ("agent", "kind"):
            raise ValueError("totals are by agent or by kind")
        with self._connect() as conn:
            rows = conn.execute(
                f"SELECT {by}, count(*), coalesce(sum(credits), 0), coalesce(sum(duration_seconds), 0) "
                f"FROM calls GROUP BY {by} ORDER BY 3 DESC, 2 DESC, 1"
            ).fetchall()
        return [Total(r[0] or "(unknown)", int(r[1]), float(r[2]), float(r[3])) for r in rows]

    def agent_figures(self, *, since: datetime | None = None,
                      agents: Sequence[str] | None = None) -> list[figures.AgentFigures]:
        """Calls, seconds, credits and every answer time per agent as kept, of the calls noted at
        or after ``since`` (all when None), only those kept under ``agents`` when given."""
        with self._connect() as conn:
            return figures.agent_figures(conn, _iso(since), agents)

    def answers_per_day(self, days: int, *, today: date | None = None) -> list[figures.DayAnswers]:
        """The answer times measured each UTC day over the last ``days`` days, today last."""
        with self._connect() as conn:
            return figures.answers_per_day(conn, days, today or _now().date())

    def count(self) -> int:
        with self._connect() as conn:
            (count,) = conn.execute("SELECT count(*) FROM calls").fetchone()
        return int(count)

    def add_many(self, entries: Sequence[dict[str, Any]]) -> None:
        """Bulk rows in one transaction (the bench's 10,000-call ledger; tests)."""
        with self._connect() as conn:
            conn.execute("BEGIN IMMEDIATE")
            conn.executemany(
                "INSERT OR IGNORE INTO calls (call_id, agent, kind, to_number, from_ref, noted_at, status, "
                "end_reason, duration_seconds, credits, summary, transcript, answer_ms) VALUES (:call_id, :agent, "
                ":kind, :to_number, :from_ref, :noted_at, :status, :end_reason, :duration_seconds, :credits, "
                ":summary, :transcript, :answer_ms)",
                [{"to_number": None, "from_ref": None, "status": None, "end_reason": None,
                  "duration_seconds": None, "credits": None, "summary": None, "transcript": "[]", **e,
                  "answer_ms": figures.times_json(e["answer_ms"]) if e.get("answer_ms") is not None else None}
                 for e in entries],
            )
            conn.execute("COMMIT")


def _another_call(kept_kind: str, kept_created: str | None, record: CallRecord) -> bool:
    """Whether ``record`` is a different call from the one kept under its id: another kind, or
    created at another time than the server said before."""
    # A kind this ledger does not know (a newer service's, or a hostile server's text) tells nothing.
    if kept_kind != "elsewhere" and record.kind in KINDS and _kind(kept_kind) != _kind(record.kind):
        return True
    return bool(kept_created and record.created_at and kept_created != _iso(record.created_at))


def _entry(row: Sequence[Any], *, words: bool = False) -> CallEntry:
    """A row of _COLUMNS or _DETAIL (10,000 of them for the console's list: kept short);
    ``words``: the words said joined too (the Calls list's filter)."""
    values = dict(zip(_NAMES, row, strict=False))  # _NAMES first; what _DETAIL adds is read below
    values["has_recording"] = bool(values["has_recording"])
    if len(row) > _COUNT:
        said = row[_COUNT + 1] or ""
        return CallEntry(**values, timed=row[_COUNT], said=said, words=words_said(said) if words else "",
                         tools=row[_COUNT + 2])
    return CallEntry(**values)
