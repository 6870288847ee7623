"""Voice samples kept on disk (api/sample_cache.py): a sample that cannot be stored leaves nothing
half-written in the user's cache folder, and a file there that is not a valid sample is not played."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.api.methods import _wav
from vap_console.api.sample_cache import SampleCache


def test_a_sample_that_cannot_be_stored_leaves_no_partial_file(tmp_path: Path) -> None:
    cache = SampleCache(tmp_path / "samples")
    path = cache.path_for("default@http://127.0.0.1:8787", "muga", None, None, "[happy] Hello")
    path.mkdir(parents=True)  # something in the way: the rename into place fails
    with pytest.raises(OSError):
        cache.put(path, _wav())
    assert [p.name for p in cache.directory.iterdir()] == [path.name]


def test_a_stored_sample_is_read_back_and_a_damaged_one_is_not(tmp_path: Path) -> None:
    cache = SampleCache(tmp_path / "samples")
    path = cache.path_for("default@http://127.0.0.1:8787", "mulberry", "speaker_1", None, "Hello")
    assert cache.get(path) is None
    assert cache.put(path, _wav()) == path and cache.get(path) == _wav()
    path.write_bytes(_wav()[:20])  # cut short
    assert cache.get(path) is None


def test_the_samples_are_readable_by_their_owner_only(tmp_path: Path) -> None:
    import os
    import stat

    old = tmp_path / "samples"
    old.mkdir(mode=0o755)  # as an older vap-console left it
    os.chmod(old, 0o755)
    cache = SampleCache(old)
    path = cache.put(cache.path_for("default", "muga", None, None, "[happy] Hello"), _wav())
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(old).st_mode) == 0o700
