"""Voice samples kept on disk, so the same sample twice costs one request (issue 26).

A sample is keyed by (profile, engine, voice or description, text): the file's name is a hash of
them, so the folder says nothing of what was said or by whom, and it holds no secret (no key, no
base URL). The folder is the user's cache directory (platformdirs, as credentials/ chooses its
paths); ``cache_dir`` and tests pass another. A sample is written to a temporary file and renamed,
so a half-written one is never read back as a whole. The folder is 0700 and each sample 0600.

Blocking file I/O: the console calls these in a worker thread.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path

import platformdirs

from vap_console.api.speech import wav_problem
from vap_console.local_files import private_dir

APP_NAME = "vap-console"


def default_cache_dir() -> Path:
    return platformdirs.user_cache_path(APP_NAME) / "samples"


def sample_key(profile: str, model: str, voice: str | None, description: str | None, text: str) -> str:
    parts = [profile, model, voice or "", description or "", text]
    return hashlib.sha256(json.dumps(parts, ensure_ascii=False).encode()).hexdigest()[:32]


class SampleCache:
    def __init__(self, directory: Path | None = None) -> None:
        self.directory = directory or default_cache_dir()

    def path_for(self, profile: str, model: str, voice: str | None, description: str | None, text: str) -> Path:
        return self.directory / f"{sample_key(profile, model, voice, description, text)}.wav"

    def get(self, path: Path) -> bytes | None:
        """The sample at ``path`` when it is there and still a valid WAV, else None."""
        try:
            data = path.read_bytes()
        except OSError:
            return None
        return data if wav_problem(data) is None else None

    def put(self, path: Path, data: bytes) -> Path:
        # What was said, in a voice: the folder is its owner's alone (0700), each file 0600 (mkstemp).
        private_dir(path.parent)
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".sample-", suffix=".wav")
        try:
            with os.fdopen(handle, "wb") as out:
                out.write(data)
            os.replace(temporary, path)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
        return path
