"""Files this machine keeps for the person (Textual-free): their names and who may read them.

* ``name_part``: the one check of server text (a call id, a model name) that goes into a file's
  name. An id is used as it is only when it is a plain word (letters, digits, ``_``, ``-``: no
  ``/``, no ``..``, no NUL, no control character); anything else becomes a short fingerprint of
  it, so a hostile server can neither write outside the folder nor stop the console with a name
  the system refuses, and the file is still saved.
* ``call_audio_name``: what Talk's ctrl+s and Calls' ``s`` name a call's audio, one scheme.
* ``private_dir``, ``write_private``, ``make_private``: transcripts, recordings and exports are
  the person's own. Files are 0600 and folders 0700 (another user of the machine read every
  transcript when they were 0644); a file that was there before is narrowed too.
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
from pathlib import Path
from typing import BinaryIO

FILE_MODE = 0o600
DIR_MODE = 0o700
# A name part: starts with a letter or digit (never "." or "-"), at most 64 characters.
_PLAIN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}")


def name_part(text: str | None, *, fallback: str = "unknown") -> str:
    """``text`` as a piece of a file name: as it is when plain, else ``x`` and a fingerprint."""
    if not text:
        return fallback
    if _PLAIN.fullmatch(text):
        return text
    return "x" + hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def call_audio_name(call_id: str | None, what: str, *, stamp: str = "") -> str:
    """``vap-call-<id>-<what>.wav``: ``what`` says whose audio (``agent``: what Talk heard the
    agent say; ``recording``: the server's recording of the call). Without an id, ``stamp``."""
    return f"vap-call-{name_part(call_id, fallback=name_part(stamp))}-{what}.wav"


def private_dir(path: Path) -> Path:
    """``path`` made (with its missing parents) and narrowed to its owner (0700)."""
    path.mkdir(mode=DIR_MODE, parents=True, exist_ok=True)
    if stat.S_IMODE(path.stat().st_mode) != DIR_MODE:
        os.chmod(path, DIR_MODE)
    return path


def make_private(path: Path) -> None:
    """An existing file narrowed to 0600 (one written by an older version); none: nothing."""
    try:
        if stat.S_IMODE(path.stat().st_mode) & 0o077:
            os.chmod(path, FILE_MODE)
    except FileNotFoundError:
        pass


def create_private(path: Path) -> None:
    """``path`` created empty at 0600 when it is not there (SQLite then gives its -wal and -shm
    the database file's mode), narrowed when it is."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE)
    except FileExistsError:
        make_private(path)
        return
    os.close(fd)


def open_private(path: Path) -> BinaryIO:
    """``path`` opened to be written from the start, readable by its owner only."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, FILE_MODE)
    try:
        if hasattr(os, "fchmod"):  # a file that was there keeps its old mode through O_CREAT
            os.fchmod(fd, FILE_MODE)
        return os.fdopen(fd, "wb")
    except BaseException:
        os.close(fd)
        raise


def write_private(path: Path, data: bytes | str) -> None:
    """Write ``data`` (text as UTF-8) to ``path``, readable by its owner only."""
    with open_private(path) as out:
        out.write(data.encode("utf-8") if isinstance(data, str) else data)
